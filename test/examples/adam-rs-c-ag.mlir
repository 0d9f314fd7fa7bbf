// RUN: coco-opt ../examples/coco/adam.mlir --pass-pipeline='builtin.module(coco-split,coco-reorder,canonicalize,cse,coco-as-slice,coco-fuse)' | FileCheck %s
//
// The flagship: data-parallel Adam in CoCoNet's fuse(RS_C_AG) form with
// sliced moments (ZeRO-style optimizer state). The parameters (argument 1)
// stay replicated for the forward pass ({coco.keep_replicated}); m and v
// (arguments 2, 3) are sliced.

// CHECK: func.func @adam(%arg0: tensor<262144xf32, #coco.local>, %arg1: tensor<262144xf32, #coco.replicated> {coco.keep_replicated}, %arg2: tensor<262144xf32, #coco.sliced<0>>, %arg3: tensor<262144xf32, #coco.sliced<0>>
// CHECK-NEXT: %[[F:.*]]:3 = coco.fused_collective
// CHECK: coco.reduce_scatter avg %arg0
// CHECK-NOT: coco.all_reduce
// CHECK: math.sqrt {{.*}} : tensor<262144xf32, #coco.sliced<0>>
// CHECK: coco.slice %arg1
// CHECK: %[[P:.*]] = coco.all_gather
// CHECK-NEXT: coco.yield {{.*}}, {{.*}}, %[[P]]
// CHECK: coco.update %arg2, %[[F]]#0 : tensor<262144xf32, #coco.sliced<0>>
// CHECK-NEXT: coco.update %arg3, %[[F]]#1 : tensor<262144xf32, #coco.sliced<0>>
// CHECK-NEXT: coco.update %arg1, %[[F]]#2 : tensor<262144xf32, #coco.replicated>
