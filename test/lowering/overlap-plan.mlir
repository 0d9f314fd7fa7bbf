// coco.overlap chunks 2 around the Megatron MLP's second matmul and its
// all_reduce, compiled for 2 ranks: each row chunk is one launch of the same
// matmul kernel on stream 0 (views of the input and the partial sums), an
// event, and an all_reduce of that chunk on stream 1; stream 0 waits for
// the last chunk before the bias and dropout that follow.
// RUN: coco-opt ../examples/coco/megatron_mlp.mlir --pass-pipeline='builtin.module(coco-overlap{chunks=2})' | coco-translate - --emit=plan --ranks 2 | FileCheck %s

// CHECK: name = "megatron_mlp_k12"
// CHECK-NEXT: buffers = [{ dtype = "f16", shape = [8, 2048] }, { dtype = "f16", shape = [2048, 1024] }, { dtype = "f16", shape = [8, 1024] }]
// CHECK-NEXT: computes = ["coco.matmul (rows 8..)"]
// CHECK: name = "t11_at16384"
// CHECK-NEXT: dtype = "f16"
// CHECK-NEXT: shape = [8, 2048]
// CHECK: stages.buffers.view
// CHECK-NEXT: of = "t11"
// CHECK-NEXT: offset = 16384
// CHECK: kernel = "megatron_mlp_k12"
// CHECK-NEXT: buffers = ["t11_at0", "arg3", "t12_at0"]
// CHECK-NEXT: stream = 0
// CHECK: op = "record_event"
// CHECK-NEXT: event = "megatron_mlp_k12_chunk0"
// CHECK-NEXT: stream = 0
// CHECK: op = "wait_event"
// CHECK-NEXT: event = "megatron_mlp_k12_chunk0"
// CHECK-NEXT: stream = 1
// CHECK: op = "all_reduce"
// CHECK-NEXT: reduction = "sum"
// CHECK-NEXT: input = "t12_at0"
// CHECK-NEXT: output = "all_reduce_13_at0"
// CHECK-NEXT: stream = 1
// CHECK: kernel = "megatron_mlp_k12"
// CHECK-NEXT: buffers = ["t11_at16384", "arg3", "t12_at8192"]
// CHECK: op = "all_reduce"
// CHECK: input = "t12_at8192"
// CHECK: op = "record_event"
// CHECK-NEXT: event = "megatron_mlp_k12_reduced"
// CHECK-NEXT: stream = 1
// CHECK: op = "wait_event"
// CHECK-NEXT: event = "megatron_mlp_k12_reduced"
// CHECK-NEXT: stream = 0
