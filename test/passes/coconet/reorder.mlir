// RUN: coco-opt %s --split-input-file --pass-pipeline='builtin.module(coco-reorder,canonicalize,cse)' | FileCheck %s

// CHECK-LABEL: func.func @reorder_elementwise_before_gather
// CHECK-DAG: %[[W:.*]] = coco.slice %arg1 : tensor<1024xf32, #coco.replicated> -> tensor<1024xf32, #coco.sliced<0>>
// CHECK-DAG: %[[C:.*]] = arith.constant dense<2.000000e+00> : tensor<1024xf32, #coco.sliced<0>>
// CHECK: %[[M:.*]] = arith.mulf %arg0, %[[W]] : tensor<1024xf32, #coco.sliced<0>>
// CHECK: %[[A:.*]] = arith.addf %[[M]], %[[C]] : tensor<1024xf32, #coco.sliced<0>>
// CHECK: %[[G:.*]] = coco.all_gather %[[A]]
// CHECK-NEXT: return %[[G]]
func.func @reorder_elementwise_before_gather(%s: tensor<1024xf32, #coco.sliced<0>>, %w: tensor<1024xf32, #coco.replicated>) -> tensor<1024xf32, #coco.replicated> {
  %g = coco.all_gather %s : tensor<1024xf32, #coco.sliced<0>> -> tensor<1024xf32, #coco.replicated>
  %two = arith.constant dense<2.0> : tensor<1024xf32, #coco.replicated>
  %m = arith.mulf %g, %w : tensor<1024xf32, #coco.replicated>
  %a = arith.addf %m, %two : tensor<1024xf32, #coco.replicated>
  return %a : tensor<1024xf32, #coco.replicated>
}

// -----

// A replicated operand computed element-wise is recomputed on slices, and a
// value needed replicated by a non-element-wise op (norm) keeps one gather.
// CHECK-LABEL: func.func @recompute_producers_and_keep_needed_gathers
// CHECK: %[[P:.*]] = coco.slice %arg1
// CHECK: %[[D:.*]] = arith.mulf %[[P]], %[[P]] : tensor<64xf32, #coco.sliced<0>>
// CHECK: %[[S:.*]] = arith.addf %arg0, %[[D]] : tensor<64xf32, #coco.sliced<0>>
// CHECK: %[[G:.*]] = coco.all_gather %[[S]]
// CHECK: coco.norm %[[G]]
// CHECK-NOT: coco.all_gather
func.func @recompute_producers_and_keep_needed_gathers(%s: tensor<64xf32, #coco.sliced<0>>, %p: tensor<64xf32, #coco.replicated>) -> tensor<f32, #coco.replicated> {
  %g = coco.all_gather %s : tensor<64xf32, #coco.sliced<0>> -> tensor<64xf32, #coco.replicated>
  %decay = arith.mulf %p, %p : tensor<64xf32, #coco.replicated>
  %sum = arith.addf %g, %decay : tensor<64xf32, #coco.replicated>
  %n = coco.norm %sum : tensor<64xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  return %n : tensor<f32, #coco.replicated>
}

// -----

// Over one mesh axis: the data-parallel SGD step moves onto the slices of
// the gradient's reduce_scatter over "dp" (ZeRO), the weight is sliced
// along dimension 0 on dp (its tp slices stay), and the new weight is
// gathered over "dp" for the update.
// CHECK-LABEL: func.func @reorder_over_axis
// CHECK-DAG: %[[LR:.*]] = arith.constant dense<{{.*}}> : tensor<8x4xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.sliced<1>}>>
// CHECK-DAG: %[[S:.*]] = coco.reduce_scatter sum %arg1 over "dp"
// CHECK: %[[STEP:.*]] = arith.mulf %[[S]], %[[LR]] : tensor<8x4xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.sliced<1>}>>
// CHECK-NEXT: %[[W:.*]] = coco.slice %arg0 : tensor<8x4xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>> -> tensor<8x4xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.sliced<1>}>>
// CHECK-NEXT: %[[NEW:.*]] = arith.subf %[[W]], %[[STEP]]
// CHECK-NEXT: %[[G:.*]] = coco.all_gather %[[NEW]] over "dp" : tensor<8x4xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.sliced<1>}>> -> tensor<8x4xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>>
// CHECK-NEXT: coco.update %arg0, %[[G]]
coco.mesh @grid [dp = 2, tp = 2]
func.func @reorder_over_axis(%w: tensor<8x4xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>>,
                             %g: tensor<8x4xf32, #coco.mesh<{dp = #coco.local, tp = #coco.sliced<1>}>>) {
  %s = coco.reduce_scatter sum %g over "dp" : tensor<8x4xf32, #coco.mesh<{dp = #coco.local, tp = #coco.sliced<1>}>> -> tensor<8x4xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.sliced<1>}>>
  %full = coco.all_gather %s over "dp" : tensor<8x4xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.sliced<1>}>> -> tensor<8x4xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>>
  %lr = arith.constant 0.01 : f32
  %lrs = tensor.splat %lr : tensor<8x4xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>>
  %step = arith.mulf %full, %lrs : tensor<8x4xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>>
  %new = arith.subf %w, %step : tensor<8x4xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>>
  coco.update %w, %new : tensor<8x4xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>>
  return
}
