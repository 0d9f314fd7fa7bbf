// The library route (--gemm library, docs/gemm.md) with dimensions CBLAS's
// C ints cannot hold: k of 3e9 was passed as K = -1294967296 (OpenBLAS
// refused the call, C was never written, and the run exited 0), and k of
// 2^32 was an internal error (an i32 constant out of range). The helper
// now takes every size as an index and calls CBLAS on blocks of at most
// 2^31 - 1 over k (accumulated: beta 1 after the first), and on views
// whose row stride is past the limit, one row per call. Compile-only: the
// operands would need 24 GB.
// RUN: coco-translate %s --entry k3e9 --emit=kernels --ranks 1 --gemm library | FileCheck %s --check-prefix=K3E9
// RUN: coco-translate %s --entry k2p32 --emit=kernels --ranks 1 --gemm library | FileCheck %s --check-prefix=K2P32
// RUN: coco-translate %s --entry k2p32 --emit=llvm-ir --ranks 1 --gemm library | FileCheck %s --check-prefix=LLVM

// K3E9-LABEL: func.func private @coco_blas_1x1x3000000000_f32(
// K3E9:       %limit = arith.constant 2147483647 : index
// K3E9:       %k = arith.constant 3000000000 : index
// K3E9:       %k_block = arith.constant 2147483647 : index
// K3E9:       %k_step = arith.select %b_wide, %c1, %k_block : index
// K3E9:       scf.for %p = %c0 to %k_end step %k_step {
// K3E9:         %k_cur = arith.minui %k_step, %k_left : index
// K3E9:         %k_arg = arith.index_cast %k_cur : index to i32
// K3E9:         %beta = arith.select %first, %beta_first, %beta_after : f32
// K3E9:         func.call @cblas_sgemm(%row_major, %no_trans, %no_trans, %m_arg, %n_arg, %k_arg,
// K3E9-NOT:   3000000000 : i32

// K2P32-LABEL: func.func private @coco_blas_2x1x4294967296_f32(
// K2P32:       %k = arith.constant 4294967296 : index
// K2P32-NOT:   4294967296 : i32

// LLVM: call void @cblas_sgemm(
func.func @k3e9(%a: tensor<1x3000000000xf32, #coco.replicated>, %b: tensor<3000000000x1xf32, #coco.replicated>)
    -> tensor<1x1xf32, #coco.replicated> {
  %c = coco.matmul %a, %b : tensor<1x3000000000xf32, #coco.replicated>, tensor<3000000000x1xf32, #coco.replicated> -> tensor<1x1xf32, #coco.replicated>
  return %c : tensor<1x1xf32, #coco.replicated>
}

func.func @k2p32(%a: tensor<2x4294967296xf32, #coco.replicated>, %b: tensor<4294967296x1xf32, #coco.replicated>)
    -> tensor<2x1xf32, #coco.replicated> {
  %c = coco.matmul %a, %b : tensor<2x4294967296xf32, #coco.replicated>, tensor<4294967296x1xf32, #coco.replicated> -> tensor<2x1xf32, #coco.replicated>
  return %c : tensor<2x1xf32, #coco.replicated>
}
