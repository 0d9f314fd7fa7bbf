// A training step of a three-layer model in 3-D parallelism, as Megatron-LM
// lays out large runs: pipeline stages (pp = 2, the process groups), and
// inside each stage a [dp = 2, tp = 2] mesh. 8 ranks.
//
// Stage 0 holds a Megatron MLP (column-parallel w1, row-parallel w2: one
// all_reduce over tp); stage 1 the output layer w3 (column-parallel) and the
// loss, half the squared distance to the targets. The batch of 8 rows is
// sliced over dp: each data-parallel replica runs 4 rows through its own
// tensor-parallel pair. The activation goes forward to stage 1 and its
// gradient back (1F1B with one microbatch); each weight gradient is a
// partial sum per replica until an all_reduce over dp, then SGD.
//
// examples/coco/oracles/megatron_3d.py recomputes the step on the whole
// batch with numpy.

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
  %h = math.tanh %pre : tensor<8x128xf32, #batch_cols>
  %partial = coco.matmul %h, %w2 : tensor<8x128xf32, #batch_cols>, tensor<128x64xf32, #rows> -> tensor<8x64xf32, #batch_partial>
  %y = coco.all_reduce sum %partial over "tp" : tensor<8x64xf32, #batch_partial> -> tensor<8x64xf32, #batch>
  coco.send %y to @stage1 : tensor<8x64xf32, #batch>
  // Backward: dy comes back from stage 1.
  %dy = coco.recv from @stage1 : tensor<8x64xf32, #batch>
  %ht = coco.transpose %h : tensor<8x128xf32, #batch_cols> -> tensor<128x8xf32, #batch_t_rows>
  %gw2_replica = coco.matmul %ht, %dy : tensor<128x8xf32, #batch_t_rows>, tensor<8x64xf32, #batch> -> tensor<128x64xf32, #grad_rows>
  %w2t = coco.transpose %w2 : tensor<128x64xf32, #rows> -> tensor<64x128xf32, #cols>
  %dh = coco.matmul %dy, %w2t : tensor<8x64xf32, #batch>, tensor<64x128xf32, #cols> -> tensor<8x128xf32, #batch_cols>
  %one = arith.constant 1.0 : f32
  %ones = tensor.splat %one : tensor<8x128xf32, #batch_cols>
  %h2 = arith.mulf %h, %h : tensor<8x128xf32, #batch_cols>
  %dtanh = arith.subf %ones, %h2 : tensor<8x128xf32, #batch_cols>
  %dpre = arith.mulf %dh, %dtanh : tensor<8x128xf32, #batch_cols>
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
