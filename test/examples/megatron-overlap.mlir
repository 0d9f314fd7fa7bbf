// RUN: coco-opt ../examples/coco/megatron_mlp.mlir --pass-pipeline='builtin.module(coco-split,coco-reorder,canonicalize,cse,coco-fuse{kernels=false},coco-overlap)' | FileCheck %s
//
// Megatron-LM's MLP block in CoCoNet's overlap(MM, fuse(RS_C_AG)) form: the
// row-parallel matmul is pipelined with a fused reduce_scatter + bias +
// dropout + residual + all_gather; layer norm follows on the gathered rows.

// CHECK: %[[O:.*]] = coco.overlap chunks 4 -> tensor<16x1024xf16, #coco.replicated> {
// CHECK-NEXT: coco.matmul {{.*}} -> tensor<16x1024xf16, #coco.local>
// CHECK-NEXT: coco.fused_collective -> tensor<16x1024xf16, #coco.replicated> {
// CHECK-NEXT: coco.reduce_scatter sum
// CHECK: coco.dropout {{.*}} : tensor<16x1024xf16, #coco.sliced<0>>
// CHECK: coco.all_gather
// CHECK: coco.layer_norm %[[O]]
