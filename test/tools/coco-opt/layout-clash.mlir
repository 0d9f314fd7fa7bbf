// RUN: not coco-opt %s 2>&1 | FileCheck %s
//
// A hand-written global-norm clip that forgets the all_reduce of the
// per-slice partial sums: MLIR's parser reports the type clash, and a
// second line says which op turns the per-rank sum into a replicated one.

// CHECK: tools/coco-opt/layout-clash.mlir:[[@LINE+8]]:18: error: use of value '%partial' expects different type than prior uses: 'tensor<f32, #coco.replicated>' vs 'tensor<f32, #coco.local>'
// CHECK: tools/coco-opt/layout-clash.mlir:[[@LINE+7]]:18: error: %partial is #coco.local where it is defined but used as #coco.replicated: a value changes layout only through an op; coco.all_reduce combines per-rank values (such as a coco.reduce_elements of a slice, a partial sum) into a replicated one
func.func @clip(%grad: tensor<1024xf32, #coco.local>) -> tensor<1024xf32, #coco.replicated> {
  %s = coco.reduce_scatter avg %grad : tensor<1024xf32, #coco.local> -> tensor<1024xf32, #coco.sliced<0>>
  %sq = arith.mulf %s, %s : tensor<1024xf32, #coco.sliced<0>>
  %partial = coco.reduce_elements sum %sq : tensor<1024xf32, #coco.sliced<0>> -> tensor<f32, #coco.local>
  // Missing: %total = coco.all_reduce sum %partial : tensor<f32, #coco.local> -> tensor<f32, #coco.replicated>
  %one = arith.constant dense<1.0> : tensor<f32, #coco.replicated>
  %n = math.sqrt %partial : tensor<f32, #coco.replicated>
  %scale = arith.divf %one, %n : tensor<f32, #coco.replicated>
  %g = coco.all_gather %s : tensor<1024xf32, #coco.sliced<0>> -> tensor<1024xf32, #coco.replicated>
  return %g : tensor<1024xf32, #coco.replicated>
}
