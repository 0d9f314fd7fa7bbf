// Stage test of kernel/nn.rs (--emit=kernels). coco.softmax and
// coco.layer_norm are two row reductions along the last dimension (the row
// max then the sum of exponentials; the sum then the squared deviations)
// and one parallel linalg.generic that normalises, all in the accumulation
// type (f32 for bf16 and f16) and rounded once at the end. coco.dropout is
// one parallel generic that hashes each element's GLOBAL row-major index
// with the interpreter's SplitMix64 constants: on a sliced tensor the
// sliced coordinate is offset by %rank times the local size. On the CPU
// exp is kernel/math.rs's polynomial (vectorised), named as math.exp's
// result was.
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry softmax | FileCheck %s --check-prefix=SOFTMAX
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry softmax_bf16 | FileCheck %s --check-prefix=SOFTBF16
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry softmax_rows --mcpu znver4 | FileCheck %s --check-prefix=ROWS
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry softmax_rows --mcpu x86-64-v3 | FileCheck %s --check-prefix=ROWS8
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry layer_norm | FileCheck %s --check-prefix=LN
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry dropout | FileCheck %s --check-prefix=DROP2
// RUN: coco-translate %s --emit=kernels --ranks 4 --entry dropout | FileCheck %s --check-prefix=DROP4

// SOFTMAX: arith.constant 0xFF800000 : f32
// SOFTMAX: %[[MAX:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%in0 : tensor<4x16xf32>) outs(%{{.*}} : tensor<4xf32>)
// SOFTMAX: %n = arith.maxnumf %acc, %a : f32
// SOFTMAX: arith.constant 0.0 : f32
// SOFTMAX: %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%in0, %[[MAX]] : tensor<4x16xf32>, tensor<4xf32>)
// SOFTMAX: %e_log2e = arith.constant 1.44269504088896341 : f32
// SOFTMAX: %e = arith.select %e_small, %e_zero, %e_s2 : f32
// SOFTMAX-NEXT: %n = arith.addf %acc, %e : f32
// SOFTMAX: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} ins(%in0, %[[MAX]], %[[SUM]] : tensor<4x16xf32>, tensor<4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<4x16xf32>)
// SOFTMAX: %q = arith.divf %ex, %c : f32
// SOFTMAX-NEXT: linalg.yield %q : f32
func.func @softmax(%x: tensor<4x16xf32, #coco.replicated>) -> tensor<4x16xf32, #coco.replicated> {
  %y = coco.softmax %x : tensor<4x16xf32, #coco.replicated>
  return %y : tensor<4x16xf32, #coco.replicated>
}

// SOFTBF16: ^bb0(%a: bf16, %acc: f32):
// SOFTBF16-NEXT: %x = arith.extf %a : bf16 to f32
// SOFTBF16-NEXT: %n = arith.maxnumf %acc, %x : f32
// SOFTBF16: ^bb0(%a: bf16, %b: f32, %c: f32, %o: bf16):
// SOFTBF16: %q = arith.divf %ex, %c : f32
// SOFTBF16-NEXT: %r = arith.truncf %q : f32 to bf16
// SOFTBF16-NEXT: linalg.yield %r : bf16
func.func @softmax_bf16(%x: tensor<4x16xbf16, #coco.replicated>) -> tensor<4x16xbf16, #coco.replicated> {
  %y = coco.softmax %x : tensor<4x16xbf16, #coco.replicated>
  return %y : tensor<4x16xbf16, #coco.replicated>
}

// Rows that fill whole tiles of the CPU's f32 lanes (16 with AVX-512, 8
// with AVX2) are 2-D reductions over the rows collapsed into one dimension,
// marked coco.row_reduction, which the CPU pipeline vectorises across rows
// (pipelines::with_row_reductions); the maximum is maximumf there (MLIR 19
// vectorises no maxnumf; the softmax is the same, nn.rs). 4 rows above stay
// scalar loops; 2 x 20 rows are whole tiles with 8 lanes, not with 16.
// ROWS-NOT: coco.row_reduction
// ROWS: arith.maxnumf
// ROWS8: %[[X:.*]] = tensor.collapse_shape %in0 {{\[\[}}0, 1], [2]] : tensor<2x20x16xf32> into tensor<40x16xf32>
// ROWS8: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"], coco.row_reduction} ins(%[[X]] : tensor<40x16xf32>) outs(%{{.*}} : tensor<40xf32>)
// ROWS8: %n = arith.maximumf %acc, %a : f32
// ROWS8: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [2, 20] : tensor<40xf32> into tensor<2x20xf32>
// ROWS8: iterator_types = ["parallel", "reduction"], coco.row_reduction}
// ROWS8: %n = arith.addf %acc, %e : f32
func.func @softmax_rows(%x: tensor<2x20x16xf32, #coco.replicated>) -> tensor<2x20x16xf32, #coco.replicated> {
  %y = coco.softmax %x : tensor<2x20x16xf32, #coco.replicated>
  return %y : tensor<2x20x16xf32, #coco.replicated>
}

// gamma and beta are read per column; epsilon is rounded to f32.
// LN: %n = arith.addf %acc, %x : f32
// LN: %w = arith.constant 16.0 : f32
// LN: %sq = arith.mulf %d, %d : f32
// LN: linalg.generic {indexing_maps = [{{.*}}, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]{{.*}} ins(%in0, %{{.*}}, %{{.*}}, %in1, %in2 : tensor<4x16xf16>, tensor<4xf32>, tensor<4xf32>, tensor<16xf16>, tensor<16xf16>) outs(%{{.*}} : tensor<4x16xf16>)
// LN: %eps = arith.constant 9.999999747378752e-6 : f32
// LN: %sd = math.sqrt %ve : f32
// LN: %gw = arith.extf %g : f16 to f32
// LN: %bw = arith.extf %be : f16 to f32
// LN-NEXT: %y = arith.addf %ng, %bw : f32
// LN-NEXT: %r = arith.truncf %y : f32 to f16
// LN-NEXT: linalg.yield %r : f16
func.func @layer_norm(%x: tensor<4x16xf16, #coco.replicated>, %g: tensor<16xf16, #coco.replicated>, %b: tensor<16xf16, #coco.replicated>) -> tensor<4x16xf16, #coco.replicated> {
  %y = coco.layer_norm %x, %g, %b eps 1.0e-5 : tensor<4x16xf16, #coco.replicated>, tensor<16xf16, #coco.replicated>, tensor<16xf16, #coco.replicated> -> tensor<4x16xf16, #coco.replicated>
  return %y : tensor<4x16xf16, #coco.replicated>
}

// The seed's key and the prob threshold (0.25 * 2^53) are compile-time
// constants; rows stride by the global width 16, not the local one.
// DROP2: func.func @dropout_k0(%p0: memref<4x8xf32> {{.*}}, %p1: memref<4x8xf32> {{.*}}, %rank: index)
// DROP2: %golden = arith.constant -7046029254386353131 : i64
// DROP2-NEXT: %mix1 = arith.constant -4658895280553007687 : i64
// DROP2-NEXT: %mix2 = arith.constant -7723592293110705685 : i64
// DROP2: %key = arith.constant -6235524532055283343 : i64
// DROP2-NEXT: %spread = arith.constant -2960836687051489901 : i64
// DROP2-NEXT: %threshold = arith.constant 2251799813685248 : i64
// DROP2: %ds0 = arith.constant 16 : i64
// DROP2: %dr1 = arith.index_cast %rank : index to i64
// DROP2-NEXT: %dn1 = arith.constant 8 : i64
// DROP2-NEXT: %do1 = arith.muli %dr1, %dn1 : i64
// DROP2-NEXT: %dc1 = arith.addi %dli1, %do1 : i64
// DROP2: %drop = arith.cmpi ult, %bits, %threshold : i64
// DROP2-NEXT: %scale = arith.constant 1.3333333730697632e0 : f32
// DROP2: %y = arith.select %drop, %zero, %kept : f32
// DROP4: func.func @dropout_k0(%p0: memref<4x4xf32> {{.*}}, %p1: memref<4x4xf32> {{.*}}, %rank: index)
// DROP4: %ds0 = arith.constant 16 : i64
// DROP4: %dn1 = arith.constant 4 : i64
func.func @dropout(%x: tensor<4x16xf32, #coco.sliced<1>>) -> tensor<4x16xf32, #coco.sliced<1>> {
  %y = coco.dropout %x prob 0.25 seed 7 : tensor<4x16xf32, #coco.sliced<1>>
  return %y : tensor<4x16xf32, #coco.sliced<1>>
}
