// RUN: coco-opt %s --split-input-file --coco-overlap | FileCheck %s
// RUN: coco-opt %s --split-input-file --coco-overlap="chunks=8" | FileCheck %s --check-prefix=EIGHT

// CHECK-LABEL: func.func @overlap_matmul_all_reduce
// CHECK-NEXT: %[[O:.*]] = coco.overlap chunks 4 -> tensor<16x32xf32, #coco.replicated> {
// CHECK-NEXT:   %[[P:.*]] = coco.matmul %arg0, %arg1
// CHECK-NEXT:   %[[R:.*]] = coco.all_reduce sum %[[P]]
// CHECK-NEXT:   coco.yield %[[R]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[O]]
// EIGHT: coco.overlap chunks 8
func.func @overlap_matmul_all_reduce(%x: tensor<16x64xf32, #coco.sliced<1>>, %w: tensor<64x32xf32, #coco.sliced<0>>) -> tensor<16x32xf32, #coco.replicated> {
  %p = coco.matmul %x, %w : tensor<16x64xf32, #coco.sliced<1>>, tensor<64x32xf32, #coco.sliced<0>> -> tensor<16x32xf32, #coco.local>
  %r = coco.all_reduce sum %p : tensor<16x32xf32, #coco.local> -> tensor<16x32xf32, #coco.replicated>
  return %r : tensor<16x32xf32, #coco.replicated>
}

// -----

// The consumer may be a fused collective: overlap(MM, fuse(RS_C_AG)).
// CHECK-LABEL: func.func @overlap_matmul_fused_collective
// CHECK: coco.overlap chunks 4
// CHECK-NEXT: coco.matmul
// CHECK-NEXT: coco.fused_collective
func.func @overlap_matmul_fused_collective(%x: tensor<16x64xf32, #coco.sliced<1>>, %w: tensor<64x32xf32, #coco.sliced<0>>) -> tensor<16x32xf32, #coco.replicated> {
  %p = coco.matmul %x, %w : tensor<16x64xf32, #coco.sliced<1>>, tensor<64x32xf32, #coco.sliced<0>> -> tensor<16x32xf32, #coco.local>
  %r = coco.fused_collective -> tensor<16x32xf32, #coco.replicated> {
    %s = coco.reduce_scatter sum %p : tensor<16x32xf32, #coco.local> -> tensor<16x32xf32, #coco.sliced<0>>
    %t = arith.mulf %s, %s : tensor<16x32xf32, #coco.sliced<0>>
    %g = coco.all_gather %t : tensor<16x32xf32, #coco.sliced<0>> -> tensor<16x32xf32, #coco.replicated>
    coco.yield %g : tensor<16x32xf32, #coco.replicated>
  }
  return %r : tensor<16x32xf32, #coco.replicated>
}
