// RUN: coco-opt ../examples/coco/megatron_attention.mlir --pass-pipeline='builtin.module(coco-split,coco-reorder,canonicalize,cse,coco-fuse,coco-overlap)' | FileCheck %s
//
// The attention block in CoCoNet's overlap(MM, fuse(RS_C_AG)) form: the
// per-head computations become fused kernels, and the row-parallel output
// projection is pipelined with the fused reduce_scatter + bias + dropout +
// residual + all_gather.

// CHECK: coco.fused_kernel
// CHECK: coco.split_heads
// CHECK: coco.matmul {{.*}} -> tensor<8x64x64xf32, #coco.sliced<0>>
// CHECK: coco.softmax
// CHECK: %[[O:.*]] = coco.overlap chunks 4 -> tensor<64x256xf32, #coco.replicated> {
// CHECK-NEXT: coco.matmul {{.*}} -> tensor<64x256xf32, #coco.local>
// CHECK-NEXT: coco.fused_collective
// CHECK-NEXT: coco.reduce_scatter sum
// CHECK: coco.dropout {{.*}} : tensor<64x256xf32, #coco.sliced<0>>
// CHECK: coco.all_gather
// CHECK: coco.layer_norm %[[O]]
