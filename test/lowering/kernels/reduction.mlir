// Stage test of kernel/reduction.rs (--emit=kernels): coco.norm and
// coco.reduce_elements reduce the whole local tensor in one linalg.generic,
// a parallel dimension of one around "reduction" iterators, accumulating
// into a linalg.fill of the accumulation type (f32 for 16-bit floats, f64
// for f64) from the kind's identity; a one-element generic finishes (sqrt
// for the norm, a divide by the element count for avg) and rounds to the
// element type, writing straight into the output buffer.
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry norm | FileCheck %s --check-prefix=NORM
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry sum_bf16 | FileCheck %s --check-prefix=SUM2
// RUN: coco-translate %s --emit=kernels --ranks 4 --entry sum_bf16 | FileCheck %s --check-prefix=SUM4
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry avg | FileCheck %s --check-prefix=AVG
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry max_f32 | FileCheck %s --check-prefix=MAX
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry min_f64 | FileCheck %s --check-prefix=MIN
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry prod_f16 | FileCheck %s --check-prefix=PROD

// NORM: func.func @norm_k0(%p0: memref<4x16xf32> {{.*}}, %p1: memref<f32> {{.*}}, %rank: index)
// NORM: %[[ZERO:.*]] = arith.constant 0.0 : f32
// NORM-NEXT: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<1xf32>)
// NORM-NEXT: %[[X:.*]] = tensor.expand_shape %in0 {{\[\[}}0, 1], [2]] output_shape [1, 4, 16]
// NORM-NEXT: %[[S:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "reduction"]} ins(%[[X]] : tensor<1x4x16xf32>) outs(%[[INIT]] : tensor<1xf32>)
// NORM-NEXT: ^bb0(%a: f32, %acc: f32):
// NORM-NEXT: %sq = arith.mulf %a, %a : f32
// NORM-NEXT: %n = arith.addf %acc, %sq : f32
// NORM: %[[D:.*]] = bufferization.to_tensor %p1 restrict writable : memref<f32>
// NORM-NEXT: %[[D1:.*]] = tensor.expand_shape %[[D]] [] output_shape [1]
// NORM-NEXT: linalg.generic {{.*}} ins(%[[S]] : tensor<1xf32>) outs(%[[D1]] : tensor<1xf32>)
// NORM-NEXT: ^bb0
// NORM-NEXT: %y = math.sqrt %a : f32
// NORM-NEXT: linalg.yield %y : f32
func.func @norm(%x: tensor<4x16xf32, #coco.replicated>) -> tensor<f32, #coco.replicated> {
  %n = coco.norm %x : tensor<4x16xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  return %n : tensor<f32, #coco.replicated>
}

// Each rank sums its own columns: 16 / 2 or 16 / 4 of them.
// SUM2: func.func @sum_bf16_k0(%p0: memref<4x8xbf16> {{.*}}, %p1: memref<bf16> {{.*}}, %rank: index)
// SUM2: linalg.fill {{.*}} -> tensor<1xf32>
// SUM2: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x4x8xbf16>) outs(%{{.*}} : tensor<1xf32>)
// SUM2-NEXT: ^bb0(%a: bf16, %acc: f32):
// SUM2-NEXT: %x = arith.extf %a : bf16 to f32
// SUM2-NEXT: %n = arith.addf %acc, %x : f32
// SUM2: ins(%{{.*}} : tensor<1xf32>) outs(%{{.*}} : tensor<1xbf16>)
// SUM2-NEXT: ^bb0(%a: f32, %b: bf16):
// SUM2-NEXT: %r = arith.truncf %a : f32 to bf16
// SUM2-NEXT: linalg.yield %r : bf16
// SUM4: func.func @sum_bf16_k0(%p0: memref<4x4xbf16> {{.*}}, %p1: memref<bf16> {{.*}}, %rank: index)
// SUM4: ins(%{{.*}} : tensor<1x4x4xbf16>) outs(%{{.*}} : tensor<1xf32>)
func.func @sum_bf16(%x: tensor<4x16xbf16, #coco.sliced<1>>) -> tensor<bf16, #coco.local> {
  %s = coco.reduce_elements sum %x : tensor<4x16xbf16, #coco.sliced<1>> -> tensor<bf16, #coco.local>
  return %s : tensor<bf16, #coco.local>
}

// AVG: %n = arith.addf %acc, %a : f32
// AVG: %cnt = arith.constant 64.0 : f32
// AVG-NEXT: %y = arith.divf %a, %cnt : f32
// AVG-NEXT: linalg.yield %y : f32
func.func @avg(%x: tensor<4x16xf32, #coco.replicated>) -> tensor<f32, #coco.replicated> {
  %s = coco.reduce_elements avg %x : tensor<4x16xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  return %s : tensor<f32, #coco.replicated>
}

// The identities are infinities, spelled as MLIR parses them (hex bits).
// MAX: arith.constant 0xFF800000 : f32
// MAX: iterator_types = ["parallel", "reduction"]
// MAX: %n = arith.maxnumf %acc, %a : f32
func.func @max_f32(%x: tensor<64xf32, #coco.replicated>) -> tensor<f32, #coco.replicated> {
  %s = coco.reduce_elements max %x : tensor<64xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  return %s : tensor<f32, #coco.replicated>
}

// MIN: arith.constant 0x7FF0000000000000 : f64
// MIN: ins(%{{.*}} : tensor<1x64xf64>) outs(%{{.*}} : tensor<1xf64>)
// MIN-NEXT: ^bb0(%a: f64, %acc: f64):
// MIN-NEXT: %n = arith.minnumf %acc, %a : f64
// MIN-NOT: arith.extf
// MIN-NOT: arith.truncf
func.func @min_f64(%x: tensor<64xf64, #coco.replicated>) -> tensor<f64, #coco.replicated> {
  %s = coco.reduce_elements min %x : tensor<64xf64, #coco.replicated> -> tensor<f64, #coco.replicated>
  return %s : tensor<f64, #coco.replicated>
}

// PROD: arith.constant 1.0 : f32
// PROD: ^bb0(%a: f16, %acc: f32):
// PROD-NEXT: %x = arith.extf %a : f16 to f32
// PROD-NEXT: %n = arith.mulf %acc, %x : f32
// PROD: %r = arith.truncf %a : f32 to f16
func.func @prod_f16(%x: tensor<64xf16, #coco.replicated>) -> tensor<f16, #coco.replicated> {
  %s = coco.reduce_elements prod %x : tensor<64xf16, #coco.replicated> -> tensor<f16, #coco.replicated>
  return %s : tensor<f16, #coco.replicated>
}
