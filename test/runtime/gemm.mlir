// Generated CPU GEMMs (docs/gemm.md) against the reference interpreter, on
// shapes that exercise every edge of the blocking: rows and columns that
// no register tile divides, cache blocks set by coco.tile that split k
// (each sum continues from C in order), m, n and k of 1, f32, f64, bf16
// and f16 (accumulated in f32, rounded as the last block over k is
// stored), bf16 with k odd (A packed) and even (A's pairs read in place,
// rows past the matrix clamped), a batched product, and a matrix sliced by
// columns across ranks (a strided view). With --gemm-arithmetic ordered
// every output is the interpreter's bit for bit; fused multiply-adds are
// within --check's tolerance; --gemm loops is the plain linalg route;
// --gemm library calls OpenBLAS for f32 and f64 (within tolerance) and
// keeps generated GEMMs for bf16 and f16, loops for i32.
// RUN: coco-run %s --backend cpu --ranks 1 --seed 3 --check --gemm-arithmetic ordered | FileCheck %s --check-prefix=ORDERED
// RUN: coco-run %s --backend cpu --ranks 2 --seed 4 --check --gemm-arithmetic ordered | FileCheck %s --check-prefix=ORDERED
// RUN: coco-run %s --backend cpu --ranks 2 --seed 4 --check | FileCheck %s --check-prefix=FUSED
// RUN: coco-run %s --backend cpu --ranks 1 --seed 3 --check --gemm loops | FileCheck %s --check-prefix=ORDERED
// RUN: coco-run %s --backend cpu --ranks 2 --seed 4 --check --gemm library | FileCheck %s --check-prefix=FUSED
// RUN: coco-translate %s --emit=kernels --ranks 2 | FileCheck %s --check-prefix=KERNELS
// RUN: coco-translate %s --emit=kernels --ranks 2 --gemm library | FileCheck %s --check-prefix=LIBRARY

// ORDERED:      check against the reference interpreter:
// ORDERED-NEXT:   gemm.result0: bitwise equal
// ORDERED-NEXT:   gemm.result1: bitwise equal
// ORDERED-NEXT:   gemm.result2: bitwise equal
// ORDERED-NEXT:   gemm.result3: bitwise equal
// ORDERED-NEXT:   gemm.result4: bitwise equal
// ORDERED-NEXT:   gemm.result5: bitwise equal
// ORDERED-NEXT:   gemm.result6: bitwise equal
// ORDERED-NEXT:   gemm.result7: bitwise equal
// ORDERED-NEXT:   gemm.result8: bitwise equal
// ORDERED-NEXT:   gemm.result9: bitwise equal

// FUSED:      check against the reference interpreter:
// FUSED-COUNT-10: gemm.result{{[0-9]}}: {{bitwise equal|largest relative error}}

// One helper per distinct shape, type and blocking; a tile that says the
// same as the default blocking names the same helper.
// KERNELS-DAG: func.func private @coco_gemm_37x45x29_f32_f32_b{{[0-9]+}}x{{[0-9]+}}x7_r{{[0-9]+}}x{{[0-9]+}}_fused(
// KERNELS-DAG: func.func private @coco_gemm_3x16x8_f64_f64_
// KERNELS-DAG: func.func private @coco_gemm_2x9x7x5_bf16_f32_
// KERNELS-DAG: linalg.matmul {coco.gemm = @coco_gemm_37x45x29_f32_f32_
// KERNELS-DAG: vector.fma
// KERNELS-NOT: coco_gemm_{{.*}}_i32_
// LIBRARY-DAG: func.func private @cblas_sgemm(i32, i32, i32, i32, i32, i32, f32, !llvm.ptr, i32, !llvm.ptr, i32, f32, !llvm.ptr, i32)
// LIBRARY-DAG: func.func private @cblas_dgemm(
// LIBRARY-DAG: func.func private @openblas_set_num_threads(i32)
// LIBRARY-DAG: func.func private @coco_blas_37x45x29_f32(
// LIBRARY-DAG: func.call @cblas_dgemm(
// LIBRARY-DAG: func.func private @coco_gemm_2x9x7x5_bf16_f32_
// LIBRARY-DAG: linalg.matmul {coco.gemm = @coco_blas_37x45x29_f32}
func.func @gemm(%a: tensor<37x29xf32, #coco.replicated>, %b: tensor<29x45xf32, #coco.replicated>,
                %c: tensor<1x1xf32, #coco.replicated>,
                %d: tensor<3x8xf64, #coco.replicated>, %e: tensor<8x32xf64, #coco.sliced<1>>,
                %f: tensor<4x9x5xbf16, #coco.sliced<0>>, %g: tensor<4x5x7xbf16, #coco.sliced<0>>,
                %h: tensor<19x33xf16, #coco.replicated>, %i: tensor<33x70xf16, #coco.replicated>,
                %j: tensor<5x6xi32, #coco.replicated>, %k: tensor<6x3xi32, #coco.replicated>,
                %l: tensor<17x12xbf16, #coco.replicated>, %m: tensor<12x40xbf16, #coco.replicated>)
    -> (tensor<37x45xf32, #coco.replicated>, tensor<37x45xf32, #coco.replicated>,
        tensor<1x1xf32, #coco.replicated>, tensor<3x32xf64, #coco.sliced<1>>,
        tensor<4x9x7xbf16, #coco.sliced<0>>, tensor<19x70xf16, #coco.replicated>,
        tensor<19x70xf16, #coco.replicated>, tensor<5x3xi32, #coco.replicated>,
        tensor<17x40xbf16, #coco.replicated>, tensor<17x40xbf16, #coco.replicated>) {
  %r0 = coco.matmul %a, %b : tensor<37x29xf32, #coco.replicated>, tensor<29x45xf32, #coco.replicated> -> tensor<37x45xf32, #coco.replicated>
  %r1 = coco.matmul %a, %b {coco.tile = array<i64: 5, 20, 7>} : tensor<37x29xf32, #coco.replicated>, tensor<29x45xf32, #coco.replicated> -> tensor<37x45xf32, #coco.replicated>
  %r2 = coco.matmul %c, %c : tensor<1x1xf32, #coco.replicated>, tensor<1x1xf32, #coco.replicated> -> tensor<1x1xf32, #coco.replicated>
  %r3 = coco.matmul %d, %e : tensor<3x8xf64, #coco.replicated>, tensor<8x32xf64, #coco.sliced<1>> -> tensor<3x32xf64, #coco.sliced<1>>
  %r4 = coco.matmul %f, %g : tensor<4x9x5xbf16, #coco.sliced<0>>, tensor<4x5x7xbf16, #coco.sliced<0>> -> tensor<4x9x7xbf16, #coco.sliced<0>>
  %r5 = coco.matmul %h, %i : tensor<19x33xf16, #coco.replicated>, tensor<33x70xf16, #coco.replicated> -> tensor<19x70xf16, #coco.replicated>
  %r6 = coco.matmul %h, %i {coco.tile = array<i64: 7, 33, 4>} : tensor<19x33xf16, #coco.replicated>, tensor<33x70xf16, #coco.replicated> -> tensor<19x70xf16, #coco.replicated>
  %r7 = coco.matmul %j, %k : tensor<5x6xi32, #coco.replicated>, tensor<6x3xi32, #coco.replicated> -> tensor<5x3xi32, #coco.replicated>
  %r8 = coco.matmul %l, %m {coco.tile = array<i64: 7, 32, 4>} : tensor<17x12xbf16, #coco.replicated>, tensor<12x40xbf16, #coco.replicated> -> tensor<17x40xbf16, #coco.replicated>
  %r9 = coco.matmul %l, %m : tensor<17x12xbf16, #coco.replicated>, tensor<12x40xbf16, #coco.replicated> -> tensor<17x40xbf16, #coco.replicated>
  return %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9 : tensor<37x45xf32, #coco.replicated>, tensor<37x45xf32, #coco.replicated>, tensor<1x1xf32, #coco.replicated>, tensor<3x32xf64, #coco.sliced<1>>, tensor<4x9x7xbf16, #coco.sliced<0>>, tensor<19x70xf16, #coco.replicated>, tensor<19x70xf16, #coco.replicated>, tensor<5x3xi32, #coco.replicated>, tensor<17x40xbf16, #coco.replicated>, tensor<17x40xbf16, #coco.replicated>
}
