// A 1F1B training step of a two-layer model over two pipeline stages, two
// microbatches, with each layer tensor-parallel inside its stage. Stage 0
// runs forward, forward, backward, backward; stage 1 runs forward, backward,
// forward, backward, so stage 0 receives gradients after it has sent
// activations: the schedule that keeps a pipeline's memory at one
// microbatch in flight per stage. Each stage sums its two microbatches'
// weight gradients and takes an SGD step; the loss is half the squared
// distance to the targets.

coco.process_group @stage0 stage 0 of 2
coco.process_group @stage1 stage 1 of 2

func.func @first_stage(%x0: tensor<8x64xf32, #coco.replicated> {coco.input = "normal(0,1)"},
                       %x1: tensor<8x64xf32, #coco.replicated> {coco.input = "normal(0,1)"},
                       %w1: tensor<64x128xf32, #coco.sliced<1>> {coco.input = "normal(0,0.1)"})
    attributes {coco.group = @stage0} {
  // Forward, microbatch 0 and 1.
  %h0 = coco.matmul %x0, %w1 : tensor<8x64xf32, #coco.replicated>, tensor<64x128xf32, #coco.sliced<1>> -> tensor<8x128xf32, #coco.sliced<1>>
  %a0 = math.tanh %h0 : tensor<8x128xf32, #coco.sliced<1>>
  %a0_full = coco.all_gather %a0 : tensor<8x128xf32, #coco.sliced<1>> -> tensor<8x128xf32, #coco.replicated>
  coco.send %a0_full to @stage1 : tensor<8x128xf32, #coco.replicated>
  %h1 = coco.matmul %x1, %w1 : tensor<8x64xf32, #coco.replicated>, tensor<64x128xf32, #coco.sliced<1>> -> tensor<8x128xf32, #coco.sliced<1>>
  %a1 = math.tanh %h1 : tensor<8x128xf32, #coco.sliced<1>>
  %a1_full = coco.all_gather %a1 : tensor<8x128xf32, #coco.sliced<1>> -> tensor<8x128xf32, #coco.replicated>
  coco.send %a1_full to @stage1 : tensor<8x128xf32, #coco.replicated>
  // Backward, microbatch 0: the activation gradient comes back from stage 1.
  %one = arith.constant 1.0 : f32
  %ones = tensor.splat %one : tensor<8x128xf32, #coco.sliced<1>>
  %da0_full = coco.recv from @stage1 : tensor<8x128xf32, #coco.replicated>
  %da0 = coco.slice %da0_full : tensor<8x128xf32, #coco.replicated> -> tensor<8x128xf32, #coco.sliced<1>>
  %sq0 = arith.mulf %a0, %a0 : tensor<8x128xf32, #coco.sliced<1>>
  %dtanh0 = arith.subf %ones, %sq0 : tensor<8x128xf32, #coco.sliced<1>>
  %dh0 = arith.mulf %da0, %dtanh0 : tensor<8x128xf32, #coco.sliced<1>>
  %x0t = coco.transpose %x0 : tensor<8x64xf32, #coco.replicated> -> tensor<64x8xf32, #coco.replicated>
  %g0 = coco.matmul %x0t, %dh0 : tensor<64x8xf32, #coco.replicated>, tensor<8x128xf32, #coco.sliced<1>> -> tensor<64x128xf32, #coco.sliced<1>>
  // Backward, microbatch 1.
  %da1_full = coco.recv from @stage1 : tensor<8x128xf32, #coco.replicated>
  %da1 = coco.slice %da1_full : tensor<8x128xf32, #coco.replicated> -> tensor<8x128xf32, #coco.sliced<1>>
  %sq1 = arith.mulf %a1, %a1 : tensor<8x128xf32, #coco.sliced<1>>
  %dtanh1 = arith.subf %ones, %sq1 : tensor<8x128xf32, #coco.sliced<1>>
  %dh1 = arith.mulf %da1, %dtanh1 : tensor<8x128xf32, #coco.sliced<1>>
  %x1t = coco.transpose %x1 : tensor<8x64xf32, #coco.replicated> -> tensor<64x8xf32, #coco.replicated>
  %g1 = coco.matmul %x1t, %dh1 : tensor<64x8xf32, #coco.replicated>, tensor<8x128xf32, #coco.sliced<1>> -> tensor<64x128xf32, #coco.sliced<1>>
  // SGD on the summed gradient.
  %g = arith.addf %g0, %g1 : tensor<64x128xf32, #coco.sliced<1>>
  %lr = arith.constant 0.05 : f32
  %lrs = tensor.splat %lr : tensor<64x128xf32, #coco.sliced<1>>
  %step = arith.mulf %lrs, %g : tensor<64x128xf32, #coco.sliced<1>>
  %w1_new = arith.subf %w1, %step : tensor<64x128xf32, #coco.sliced<1>>
  coco.update %w1, %w1_new : tensor<64x128xf32, #coco.sliced<1>>
  return
}

func.func @second_stage(%t0: tensor<8x32xf32, #coco.sliced<1>> {coco.input = "normal(0,1)"},
                        %t1: tensor<8x32xf32, #coco.sliced<1>> {coco.input = "normal(0,1)"},
                        %w2: tensor<128x32xf32, #coco.sliced<1>> {coco.input = "normal(0,0.1)"})
    -> tensor<8x32xf32, #coco.replicated> attributes {coco.group = @stage1} {
  %w2t = coco.transpose %w2 : tensor<128x32xf32, #coco.sliced<1>> -> tensor<32x128xf32, #coco.sliced<0>>
  // Microbatch 0: forward, loss gradient, backward; the activation
  // gradient goes back to stage 0 before microbatch 1 arrives.
  %a0 = coco.recv from @stage0 : tensor<8x128xf32, #coco.replicated>
  %y0 = coco.matmul %a0, %w2 : tensor<8x128xf32, #coco.replicated>, tensor<128x32xf32, #coco.sliced<1>> -> tensor<8x32xf32, #coco.sliced<1>>
  %dy0 = arith.subf %y0, %t0 : tensor<8x32xf32, #coco.sliced<1>>
  %da0_part = coco.matmul %dy0, %w2t : tensor<8x32xf32, #coco.sliced<1>>, tensor<32x128xf32, #coco.sliced<0>> -> tensor<8x128xf32, #coco.local>
  %da0 = coco.all_reduce sum %da0_part : tensor<8x128xf32, #coco.local> -> tensor<8x128xf32, #coco.replicated>
  coco.send %da0 to @stage0 : tensor<8x128xf32, #coco.replicated>
  %a0t = coco.transpose %a0 : tensor<8x128xf32, #coco.replicated> -> tensor<128x8xf32, #coco.replicated>
  %g0 = coco.matmul %a0t, %dy0 : tensor<128x8xf32, #coco.replicated>, tensor<8x32xf32, #coco.sliced<1>> -> tensor<128x32xf32, #coco.sliced<1>>
  // Microbatch 1.
  %a1 = coco.recv from @stage0 : tensor<8x128xf32, #coco.replicated>
  %y1 = coco.matmul %a1, %w2 : tensor<8x128xf32, #coco.replicated>, tensor<128x32xf32, #coco.sliced<1>> -> tensor<8x32xf32, #coco.sliced<1>>
  %dy1 = arith.subf %y1, %t1 : tensor<8x32xf32, #coco.sliced<1>>
  %da1_part = coco.matmul %dy1, %w2t : tensor<8x32xf32, #coco.sliced<1>>, tensor<32x128xf32, #coco.sliced<0>> -> tensor<8x128xf32, #coco.local>
  %da1 = coco.all_reduce sum %da1_part : tensor<8x128xf32, #coco.local> -> tensor<8x128xf32, #coco.replicated>
  coco.send %da1 to @stage0 : tensor<8x128xf32, #coco.replicated>
  %a1t = coco.transpose %a1 : tensor<8x128xf32, #coco.replicated> -> tensor<128x8xf32, #coco.replicated>
  %g1 = coco.matmul %a1t, %dy1 : tensor<128x8xf32, #coco.replicated>, tensor<8x32xf32, #coco.sliced<1>> -> tensor<128x32xf32, #coco.sliced<1>>
  // SGD on the summed gradient; microbatch 0's output is returned.
  %g = arith.addf %g0, %g1 : tensor<128x32xf32, #coco.sliced<1>>
  %lr = arith.constant 0.05 : f32
  %lrs = tensor.splat %lr : tensor<128x32xf32, #coco.sliced<1>>
  %step = arith.mulf %lrs, %g : tensor<128x32xf32, #coco.sliced<1>>
  %w2_new = arith.subf %w2, %step : tensor<128x32xf32, #coco.sliced<1>>
  coco.update %w2, %w2_new : tensor<128x32xf32, #coco.sliced<1>>
  %y0_full = coco.all_gather %y0 : tensor<8x32xf32, #coco.sliced<1>> -> tensor<8x32xf32, #coco.replicated>
  return %y0_full : tensor<8x32xf32, #coco.replicated>
}
