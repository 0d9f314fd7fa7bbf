// A pipeline-stage boundary: the world is split into two stages; within each,
// ranks shard a layer Megatron-style. Stage 0 ends with a model-parallel
// all_reduce and sends the activations to the same-index rank of stage 1,
// which receives them and continues. CoCoNet's pipeline example overlaps the
// all_reduce with the send.
// Seeded runs draw activations and weights as a model's would be
// (`coco.input`), so tanh does not saturate and the layer norm's rows are not
// one large value plus noise.

coco.process_group @stage0 stage 0 of 2
coco.process_group @stage1 stage 1 of 2

func.func @first_stage(%x: tensor<8x512xf32, #coco.replicated> {coco.input = "normal(0,1)"},
                       %w1: tensor<512x2048xf32, #coco.sliced<1>> {coco.input = "normal(0,0.02)"},
                       %w2: tensor<2048x512xf32, #coco.sliced<0>> {coco.input = "normal(0,0.02)"}) attributes {coco.group = @stage0} {
  %h = coco.matmul %x, %w1 : tensor<8x512xf32, #coco.replicated>, tensor<512x2048xf32, #coco.sliced<1>> -> tensor<8x2048xf32, #coco.sliced<1>>
  %r = math.tanh %h : tensor<8x2048xf32, #coco.sliced<1>>
  %partial = coco.matmul %r, %w2 : tensor<8x2048xf32, #coco.sliced<1>>, tensor<2048x512xf32, #coco.sliced<0>> -> tensor<8x512xf32, #coco.local>
  %y = coco.all_reduce sum %partial : tensor<8x512xf32, #coco.local> -> tensor<8x512xf32, #coco.replicated>
  coco.send %y to @stage1 : tensor<8x512xf32, #coco.replicated>
  return
}

func.func @second_stage(%w: tensor<512x512xf32, #coco.sliced<1>> {coco.input = "normal(0,0.02)"},
                        %gamma: tensor<512xf32, #coco.replicated> {coco.input = "uniform(0.9,1.1)"},
                        %beta: tensor<512xf32, #coco.replicated> {coco.input = "normal(0,0.02)"})
    -> tensor<8x512xf32, #coco.replicated> attributes {coco.group = @stage1} {
  %x = coco.recv from @stage0 : tensor<8x512xf32, #coco.replicated>
  %h = coco.matmul %x, %w : tensor<8x512xf32, #coco.replicated>, tensor<512x512xf32, #coco.sliced<1>> -> tensor<8x512xf32, #coco.sliced<1>>
  %full = coco.all_gather %h : tensor<8x512xf32, #coco.sliced<1>> -> tensor<8x512xf32, #coco.replicated>
  %y = coco.layer_norm %full, %gamma, %beta eps 1.0e-5 : tensor<8x512xf32, #coco.replicated>, tensor<512xf32, #coco.replicated>, tensor<512xf32, #coco.replicated> -> tensor<8x512xf32, #coco.replicated>
  return %y : tensor<8x512xf32, #coco.replicated>
}
