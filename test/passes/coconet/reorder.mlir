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
