// Stage test of kernel/reduction.rs and blocked_reduction.rs
// (--emit=kernels). A whole-tensor float norm, sum, avg or prod folds in
// the blocked order (compiler/dialects/src/coco/summation.rs): the local
// tensor flattened and viewed as [blocks, rows, 16] (only the rows the data
// fill), one linalg.generic folding the rows into 16 lanes per block (lanes
// innermost and parallel), then the lanes' partials joined pairwise through
// stride-2 slices, one small generic per level. Min and max keep one
// generic in index order, a parallel dimension of one around "reduction"
// iterators. Both accumulate in f32 for 16-bit floats (f64 for f64) from
// the kind's identity; a one-element generic finishes (sqrt for the norm, a
// divide by the element count for avg) and rounds to the element type,
// writing straight into the output buffer.
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry norm | FileCheck %s --check-prefix=NORM
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry sum_bf16 | FileCheck %s --check-prefix=SUM2
// RUN: coco-translate %s --emit=kernels --ranks 4 --entry sum_bf16 | FileCheck %s --check-prefix=SUM4
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry avg | FileCheck %s --check-prefix=AVG
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry max_f32 | FileCheck %s --check-prefix=MAX
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry min_f64 | FileCheck %s --check-prefix=MIN
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry prod_f16 | FileCheck %s --check-prefix=PROD
// RUN: coco-translate %s --emit=kernels --ranks 1 --entry blocks | FileCheck %s --check-prefix=BLOCKS

// NORM: func.func @norm_k0(%p0: memref<4x16xf32> {{.*}}, %p1: memref<f32> {{.*}}, %rank: index)
// NORM: %[[FLAT:.*]] = tensor.collapse_shape %in0 {{\[\[}}0, 1]] : tensor<4x16xf32> into tensor<64xf32>
// NORM: %[[ZERO:.*]] = arith.constant 0.0 : f32
// NORM-NEXT: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<1x16xf32>)
// NORM-NEXT: %[[X:.*]] = tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1, 2]] output_shape [1, 4, 16]
// NORM-NEXT: %[[S:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]] : tensor<1x4x16xf32>) outs(%[[INIT]] : tensor<1x16xf32>)
// NORM-NEXT: ^bb0(%a: f32, %acc: f32):
// NORM-NEXT: %sq = arith.mulf %a, %a : f32
// NORM-NEXT: %n = arith.addf %acc, %sq : f32
// NORM: tensor.collapse_shape %[[S]] {{\[\[}}0, 1]] : tensor<1x16xf32> into tensor<16xf32>
// NORM: tensor.extract_slice %{{.*}}[0] [8] [2] : tensor<16xf32> to tensor<8xf32>
// NORM-NEXT: tensor.extract_slice %{{.*}}[1] [8] [2] : tensor<16xf32> to tensor<8xf32>
// NORM: ^bb0(%acc: f32, %q: f32, %o: f32):
// NORM-NEXT: %n = arith.addf %acc, %q : f32
// NORM: [4] [2]
// NORM: [2] [2]
// NORM: %[[S:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1xf32>)
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
// SUM2: linalg.fill {{.*}} -> tensor<1x16xf32>
// SUM2: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x2x16xbf16>) outs(%{{.*}} : tensor<1x16xf32>)
// SUM2-NEXT: ^bb0(%a: bf16, %acc: f32):
// SUM2-NEXT: %x = arith.extf %a : bf16 to f32
// SUM2-NEXT: %n = arith.addf %acc, %x : f32
// SUM2: ins(%{{.*}} : tensor<1xf32>) outs(%{{.*}} : tensor<1xbf16>)
// SUM2-NEXT: ^bb0(%a: f32, %b: bf16):
// SUM2-NEXT: %r = arith.truncf %a : f32 to bf16
// SUM2-NEXT: linalg.yield %r : bf16
// SUM4: func.func @sum_bf16_k0(%p0: memref<4x4xbf16> {{.*}}, %p1: memref<bf16> {{.*}}, %rank: index)
// SUM4: ins(%{{.*}} : tensor<1x1x16xbf16>) outs(%{{.*}} : tensor<1x16xf32>)
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
// MIN: iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<1x64xf64>) outs(%{{.*}} : tensor<1xf64>)
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
// PROD: ^bb0(%acc: f32, %q: f32, %o: f32):
// PROD-NEXT: %n = arith.mulf %acc, %q : f32
// PROD: %r = arith.truncf %a : f32 to f16
func.func @prod_f16(%x: tensor<64xf16, #coco.replicated>) -> tensor<f16, #coco.replicated> {
  %s = coco.reduce_elements prod %x : tensor<64xf16, #coco.replicated> -> tensor<f16, #coco.replicated>
  return %s : tensor<f16, #coco.replicated>
}

// Two whole blocks of 4096 (a view, no copy) and a tail of 21 elements: two
// rows, the second padded with the identity (a copy of 32 elements). The
// 3 x 16 partials join in levels of 24, 12, 6, 3, 2 and 1; at 3, the odd
// last one is carried up by insert_slice.
// BLOCKS: %[[HEAD:.*]] = tensor.extract_slice %in0[0] [8192] [1] : tensor<8213xf32> to tensor<8192xf32>
// BLOCKS: tensor.expand_shape %[[HEAD]] {{\[\[}}0, 1, 2]] output_shape [2, 256, 16]
// BLOCKS: iterator_types = ["parallel", "reduction", "parallel"]} ins(%{{.*}} : tensor<2x256x16xf32>) outs(%{{.*}} : tensor<2x16xf32>)
// BLOCKS: tensor.insert_slice %{{.*}}[0, 0] [2, 16] [1, 1] : tensor<2x16xf32> into tensor<3x16xf32>
// BLOCKS: %[[TAIL:.*]] = tensor.extract_slice %in0[8192] [21] [1] : tensor<8213xf32> to tensor<21xf32>
// BLOCKS: linalg.fill {{.*}} -> tensor<32xf32>
// BLOCKS-NEXT: %[[PADDED:.*]] = tensor.insert_slice %[[TAIL]] into %{{.*}}[0] [21] [1] : tensor<21xf32> into tensor<32xf32>
// BLOCKS-NEXT: tensor.expand_shape %[[PADDED]] {{\[\[}}0, 1, 2]] output_shape [1, 2, 16]
// BLOCKS: tensor.insert_slice %{{.*}}[2, 0] [1, 16] [1, 1] : tensor<1x16xf32> into tensor<3x16xf32>
// BLOCKS: [24] [2] : tensor<48xf32> to tensor<24xf32>
// BLOCKS: [3] [2] : tensor<6xf32> to tensor<3xf32>
// BLOCKS: [1] [2] : tensor<3xf32> to tensor<1xf32>
// BLOCKS: %[[LAST:.*]] = tensor.extract_slice %{{.*}}[2] [1] [1] : tensor<3xf32> to tensor<1xf32>
// BLOCKS-NEXT: tensor.insert_slice %[[LAST]] into %{{.*}}[1] [1] [1] : tensor<1xf32> into tensor<2xf32>
func.func @blocks(%x: tensor<8213xf32, #coco.replicated>) -> tensor<f32, #coco.replicated> {
  %s = coco.reduce_elements sum %x : tensor<8213xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  return %s : tensor<f32, #coco.replicated>
}
