// RUN: coco-opt ../examples/coco/sgd.mlir --pass-pipeline='builtin.module(coco-split,coco-reorder,canonicalize,cse,coco-as-slice,canonicalize,coco-fuse)' | FileCheck %s --check-prefix=SGD
// RUN: coco-opt ../examples/coco/adamw.mlir --pass-pipeline='builtin.module(coco-split,coco-reorder,canonicalize,cse,coco-as-slice,canonicalize,coco-fuse)' | FileCheck %s --check-prefix=ADAMW
// RUN: coco-opt ../examples/coco/lamb.mlir --pass-pipeline='builtin.module(coco-split,coco-reorder,canonicalize,cse,coco-as-slice,canonicalize,coco-fuse)' | FileCheck %s --check-prefix=LAMB
// RUN: coco-opt ../examples/coco/pipeline_stage.mlir --pass-pipeline='builtin.module(coco-split,coco-reorder,canonicalize,cse,coco-fuse{kernels=false},coco-overlap{chunks=2})' | FileCheck %s --check-prefix=PIPE
//
// The optimized forms of the other examples under CoCoNet's schedules.

// SGD: func.func @sgd({{.*}}%arg2: tensor<262144xf32, #coco.sliced<0>>
// SGD: coco.fused_collective
// SGD: coco.reduce_scatter avg
// SGD: coco.all_gather
// SGD: coco.update %arg2, %{{.*}}#0 : tensor<262144xf32, #coco.sliced<0>>
// SGD: coco.update %arg1, %{{.*}}#1 : tensor<262144xf32, #coco.replicated>

// ADAMW: func.func @adamw({{.*}}%arg2: tensor<131072xf32, #coco.sliced<0>>, %arg3: tensor<131072xf32, #coco.sliced<0>>
// ADAMW: coco.fused_collective
// ADAMW: arith.mulf {{.*}} : tensor<131072xf32, #coco.sliced<0>>
// ADAMW: coco.update %arg1, {{.*}} : tensor<131072xf32, #coco.replicated>

// The trust-ratio norms need the whole update: the fused collective ends at
// the gather the norm reads, the parameter step follows on slices.
// LAMB: coco.fused_collective
// LAMB: coco.reduce_scatter avg
// LAMB: coco.all_gather
// LAMB: coco.norm
// LAMB: coco.update %arg2, {{.*}} : tensor<65536xf32, #coco.sliced<0>>

// PIPE: func.func @first_stage
// PIPE: coco.overlap chunks 2
// PIPE: coco.fused_collective
// PIPE: coco.reduce_scatter sum
// PIPE: coco.all_gather
// PIPE: coco.send
// PIPE: func.func @second_stage
// PIPE: coco.recv from @stage0
