// CoCoNet's pipeline-parallel boundary, optimised by hand in the form the
// paper describes: instead of all_reduce then send of the full activations,
// stage 0 reduce_scatters the row-parallel partial sums, every rank sends
// only its slice to the same-index rank of stage 1, and stage 1 all_gathers
// the slices (RS -> send/recv -> AG): each link carries 1/N of the tensor.
// Compare with pipeline_stage.mlir, which sends the whole tensor.
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
  %slice = coco.reduce_scatter sum %partial : tensor<8x512xf32, #coco.local> -> tensor<8x512xf32, #coco.sliced<0>>
  coco.send %slice to @stage1 : tensor<8x512xf32, #coco.sliced<0>>
  return
}

func.func @second_stage(%gamma: tensor<512xf32, #coco.replicated> {coco.input = "uniform(0.9,1.1)"},
                        %beta: tensor<512xf32, #coco.replicated> {coco.input = "normal(0,0.02)"})
    -> tensor<8x512xf32, #coco.replicated> attributes {coco.group = @stage1} {
  %slice = coco.recv from @stage0 : tensor<8x512xf32, #coco.sliced<0>>
  %full = coco.all_gather %slice : tensor<8x512xf32, #coco.sliced<0>> -> tensor<8x512xf32, #coco.replicated>
  %y = coco.layer_norm %full, %gamma, %beta eps 1.0e-5 : tensor<8x512xf32, #coco.replicated>, tensor<512xf32, #coco.replicated>, tensor<512xf32, #coco.replicated> -> tensor<8x512xf32, #coco.replicated>
  return %y : tensor<8x512xf32, #coco.replicated>
}
