// The 3-D (pipeline x data x tensor parallel) step of
// examples/coco/megatron_3d.mlir with ReLU instead of tanh, so that every
// op is exact against the interpreter: compiled for 8 ranks (2 stages of a
// [dp = 2, tp = 2] mesh) as written and under the schedules the autotuner
// considers (fused kernels and overlap included), each bitwise equal to the reference interpreter with
// rank-order reductions.
// RUN: coco-run %s --backend cpu --ranks 8 --seed 11 --check --exact-reductions --gemm-arithmetic ordered | FileCheck %s
// RUN: coco-opt %s --pass-pipeline='builtin.module(coco-split,coco-reorder,canonicalize,cse)' -o %t.rs_c_ag.mlir
// RUN: coco-run %t.rs_c_ag.mlir --backend cpu --ranks 8 --seed 11 --check --exact-reductions --gemm-arithmetic ordered | FileCheck %s
// RUN: coco-opt %s --pass-pipeline='builtin.module(coco-split,coco-reorder,canonicalize,cse,coco-fuse{collectives=false},coco-overlap{chunks=2})' -o %t.overlap.mlir
// RUN: coco-run %t.overlap.mlir --backend cpu --ranks 8 --seed 11 --check --exact-reductions --gemm-arithmetic ordered | FileCheck %s

// CHECK: check against the reference interpreter:
// CHECK-NEXT: mlp_stage.arg1: bitwise equal
// CHECK-NEXT: mlp_stage.arg2: bitwise equal
// CHECK-NEXT: head_stage.result0: bitwise equal
// CHECK-NEXT: head_stage.arg0: bitwise equal

#batch = #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.replicated}>
#batch_cols = #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.sliced<1>}>
#batch_partial = #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.local}>
#batch_t = #coco.mesh<{dp = #coco.sliced<1>, tp = #coco.replicated}>
#batch_t_rows = #coco.mesh<{dp = #coco.sliced<1>, tp = #coco.sliced<0>}>
#cols = #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>
#rows = #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<0>}>
#grad_cols = #coco.mesh<{dp = #coco.local, tp = #coco.sliced<1>}>
#grad_rows = #coco.mesh<{dp = #coco.local, tp = #coco.sliced<0>}>

coco.process_group @stage0 stage 0 of 2
coco.process_group @stage1 stage 1 of 2
coco.mesh @grid [dp = 2, tp = 2]

func.func @mlp_stage(%x: tensor<8x64xf32, #batch> {coco.input = "normal(0,1)"},
                     %w1: tensor<64x128xf32, #cols> {coco.input = "normal(0,0.1)"},
                     %w2: tensor<128x64xf32, #rows> {coco.input = "normal(0,0.1)"})
    attributes {coco.group = @stage0} {
  // Forward: h = tanh(x w1) column-parallel, y = h w2 row-parallel.
  %pre = coco.matmul %x, %w1 : tensor<8x64xf32, #batch>, tensor<64x128xf32, #cols> -> tensor<8x128xf32, #batch_cols>
  %zero = arith.constant 0.0 : f32
  %zeros = tensor.splat %zero : tensor<8x128xf32, #batch_cols>
  %h = arith.maximumf %pre, %zeros : tensor<8x128xf32, #batch_cols>
  %partial = coco.matmul %h, %w2 : tensor<8x128xf32, #batch_cols>, tensor<128x64xf32, #rows> -> tensor<8x64xf32, #batch_partial>
  %y = coco.all_reduce sum %partial over "tp" : tensor<8x64xf32, #batch_partial> -> tensor<8x64xf32, #batch>
  coco.send %y to @stage1 : tensor<8x64xf32, #batch>
  // Backward: dy comes back from stage 1.
  %dy = coco.recv from @stage1 : tensor<8x64xf32, #batch>
  %ht = coco.transpose %h : tensor<8x128xf32, #batch_cols> -> tensor<128x8xf32, #batch_t_rows>
  %gw2_replica = coco.matmul %ht, %dy : tensor<128x8xf32, #batch_t_rows>, tensor<8x64xf32, #batch> -> tensor<128x64xf32, #grad_rows>
  %w2t = coco.transpose %w2 : tensor<128x64xf32, #rows> -> tensor<64x128xf32, #cols>
  %dh = coco.matmul %dy, %w2t : tensor<8x64xf32, #batch>, tensor<64x128xf32, #cols> -> tensor<8x128xf32, #batch_cols>
  %active = arith.cmpf ogt, %pre, %zeros : tensor<8x128xf32, #batch_cols>
  %dpre = arith.select %active, %dh, %zeros : tensor<8x128xi1, #batch_cols>, tensor<8x128xf32, #batch_cols>
  %xt = coco.transpose %x : tensor<8x64xf32, #batch> -> tensor<64x8xf32, #batch_t>
  %gw1_replica = coco.matmul %xt, %dpre : tensor<64x8xf32, #batch_t>, tensor<8x128xf32, #batch_cols> -> tensor<64x128xf32, #grad_cols>
  // Data parallelism: the replicas' partial gradients summed over dp only.
  %gw1 = coco.all_reduce sum %gw1_replica over "dp" : tensor<64x128xf32, #grad_cols> -> tensor<64x128xf32, #cols>
  %gw2 = coco.all_reduce sum %gw2_replica over "dp" : tensor<128x64xf32, #grad_rows> -> tensor<128x64xf32, #rows>
  %lr = arith.constant 0.01 : f32
  %lr1 = tensor.splat %lr : tensor<64x128xf32, #cols>
  %step1 = arith.mulf %lr1, %gw1 : tensor<64x128xf32, #cols>
  %w1_new = arith.subf %w1, %step1 : tensor<64x128xf32, #cols>
  coco.update %w1, %w1_new : tensor<64x128xf32, #cols>
  %lr2 = tensor.splat %lr : tensor<128x64xf32, #rows>
  %step2 = arith.mulf %lr2, %gw2 : tensor<128x64xf32, #rows>
  %w2_new = arith.subf %w2, %step2 : tensor<128x64xf32, #rows>
  coco.update %w2, %w2_new : tensor<128x64xf32, #rows>
  return
}

func.func @head_stage(%w3: tensor<64x32xf32, #cols> {coco.input = "normal(0,0.1)"},
                      %target: tensor<8x32xf32, #batch_cols> {coco.input = "normal(0,1)"})
    -> tensor<8x32xf32, #batch> attributes {coco.group = @stage1} {
  %y = coco.recv from @stage0 : tensor<8x64xf32, #batch>
  %z = coco.matmul %y, %w3 : tensor<8x64xf32, #batch>, tensor<64x32xf32, #cols> -> tensor<8x32xf32, #batch_cols>
  // The loss's gradient, and the activation's, back to stage 0 first.
  %dz = arith.subf %z, %target : tensor<8x32xf32, #batch_cols>
  %w3t = coco.transpose %w3 : tensor<64x32xf32, #cols> -> tensor<32x64xf32, #rows>
  %dy_partial = coco.matmul %dz, %w3t : tensor<8x32xf32, #batch_cols>, tensor<32x64xf32, #rows> -> tensor<8x64xf32, #batch_partial>
  %dy = coco.all_reduce sum %dy_partial over "tp" : tensor<8x64xf32, #batch_partial> -> tensor<8x64xf32, #batch>
  coco.send %dy to @stage0 : tensor<8x64xf32, #batch>
  %yt = coco.transpose %y : tensor<8x64xf32, #batch> -> tensor<64x8xf32, #batch_t>
  %gw3_replica = coco.matmul %yt, %dz : tensor<64x8xf32, #batch_t>, tensor<8x32xf32, #batch_cols> -> tensor<64x32xf32, #grad_cols>
  %gw3 = coco.all_reduce sum %gw3_replica over "dp" : tensor<64x32xf32, #grad_cols> -> tensor<64x32xf32, #cols>
  %lr = arith.constant 0.01 : f32
  %lrs = tensor.splat %lr : tensor<64x32xf32, #cols>
  %step = arith.mulf %lrs, %gw3 : tensor<64x32xf32, #cols>
  %w3_new = arith.subf %w3, %step : tensor<64x32xf32, #cols>
  coco.update %w3, %w3_new : tensor<64x32xf32, #cols>
  %out = coco.all_gather %z over "tp" : tensor<8x32xf32, #batch_cols> -> tensor<8x32xf32, #batch>
  return %out : tensor<8x32xf32, #batch>
}
