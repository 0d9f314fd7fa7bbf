// RUN: coco-opt %s --split-input-file --coco-split | FileCheck %s
// RUN: coco-opt %s --split-input-file --coco-split="via=reduce-broadcast" | FileCheck %s --check-prefix=BCAST
// RUN: coco-opt %s --split-input-file --pass-pipeline='builtin.module(coco-split{dim=1})' | FileCheck %s --check-prefix=DIM1

// CHECK-LABEL: func.func @split_all_reduce_sum
// CHECK-NEXT: %[[S:.*]] = coco.reduce_scatter sum %arg0 : tensor<8x4xf32, #coco.local> -> tensor<8x4xf32, #coco.sliced<0>>
// CHECK-NEXT: %[[G:.*]] = coco.all_gather %[[S]] : tensor<8x4xf32, #coco.sliced<0>> -> tensor<8x4xf32, #coco.replicated>
// CHECK-NEXT: return %[[G]]
// BCAST-LABEL: func.func @split_all_reduce_sum
// BCAST-NEXT: %[[R:.*]] = coco.reduce sum %arg0 root 0 : tensor<8x4xf32, #coco.local> -> tensor<8x4xf32, #coco.local>
// BCAST-NEXT: coco.broadcast %[[R]] root 0 : tensor<8x4xf32, #coco.local> -> tensor<8x4xf32, #coco.replicated>
// DIM1-LABEL: func.func @split_all_reduce_sum
// DIM1-NEXT: coco.reduce_scatter sum %arg0 : tensor<8x4xf32, #coco.local> -> tensor<8x4xf32, #coco.sliced<1>>
func.func @split_all_reduce_sum(%g: tensor<8x4xf32, #coco.local>) -> tensor<8x4xf32, #coco.replicated> {
  %r = coco.all_reduce sum %g : tensor<8x4xf32, #coco.local> -> tensor<8x4xf32, #coco.replicated>
  return %r : tensor<8x4xf32, #coco.replicated>
}

// -----

// Every use moves to the gathered value; the reduction kind is kept.
// CHECK-LABEL: func.func @split_keeps_kind_and_uses
// CHECK: coco.reduce_scatter avg
// CHECK: %[[G:.*]] = coco.all_gather
// CHECK-NEXT: arith.mulf %[[G]], %[[G]]
// CHECK-NOT: coco.all_reduce
func.func @split_keeps_kind_and_uses(%g: tensor<16xf32, #coco.local>) -> tensor<16xf32, #coco.replicated> {
  %r = coco.all_reduce avg %g : tensor<16xf32, #coco.local> -> tensor<16xf32, #coco.replicated>
  %s = arith.mulf %r, %r : tensor<16xf32, #coco.replicated>
  return %s : tensor<16xf32, #coco.replicated>
}

// -----

// Over one axis of a mesh: the data-parallel gradient all_reduce of a
// tensor-parallel weight splits into collectives over "dp", the
// intermediate sliced along dimension 0 on dp (dimension 1 stays tp's).
// CHECK-LABEL: func.func @split_over_axis
// CHECK: %[[S:.*]] = coco.reduce_scatter sum %arg0 over "dp" : tensor<8x4xf32, #coco.mesh<{dp = #coco.local, tp = #coco.sliced<1>}>> -> tensor<8x4xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.sliced<1>}>>
// CHECK-NEXT: %[[G:.*]] = coco.all_gather %[[S]] over "dp" : tensor<8x4xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.sliced<1>}>> -> tensor<8x4xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>>
// CHECK-NEXT: return %[[G]]
// BCAST-LABEL: func.func @split_over_axis
// BCAST: %[[R:.*]] = coco.reduce sum %arg0 root 0 over "dp" : tensor<8x4xf32, #coco.mesh<{dp = #coco.local, tp = #coco.sliced<1>}>> -> tensor<8x4xf32, #coco.mesh<{dp = #coco.local, tp = #coco.sliced<1>}>>
// BCAST-NEXT: coco.broadcast %[[R]] root 0 over "dp" : tensor<8x4xf32, #coco.mesh<{dp = #coco.local, tp = #coco.sliced<1>}>> -> tensor<8x4xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>>
// DIM1-LABEL: func.func @split_over_axis
// DIM1: coco.all_reduce sum %arg0 over "dp"
coco.mesh @grid [dp = 2, tp = 2]
func.func @split_over_axis(%g: tensor<8x4xf32, #coco.mesh<{dp = #coco.local, tp = #coco.sliced<1>}>>) -> tensor<8x4xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>> {
  %r = coco.all_reduce sum %g over "dp" : tensor<8x4xf32, #coco.mesh<{dp = #coco.local, tp = #coco.sliced<1>}>> -> tensor<8x4xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>>
  return %r : tensor<8x4xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>>
}

// -----

// Over the inner axis of a dimension the outer one slices already: the
// intermediate's dimension 0 is cut by dp, then by tp (Megatron's
// sequence-parallel reduce_scatter).
// CHECK-LABEL: func.func @split_over_inner_axis
// CHECK: coco.reduce_scatter sum %arg0 over "tp" : tensor<8x4xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.local}>> -> tensor<8x4xf32, #coco.sliced<0>>
// CHECK-NEXT: coco.all_gather %{{.*}} over "tp" : tensor<8x4xf32, #coco.sliced<0>> -> tensor<8x4xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.replicated}>>
coco.mesh @grid [dp = 2, tp = 2]
func.func @split_over_inner_axis(%p: tensor<8x4xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.local}>>) -> tensor<8x4xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.replicated}>> {
  %y = coco.all_reduce sum %p over "tp" : tensor<8x4xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.local}>> -> tensor<8x4xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.replicated}>>
  return %y : tensor<8x4xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.replicated}>>
}
