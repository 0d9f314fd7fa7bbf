// Megatron-LM's model-parallel MLP block (one transformer layer's feed-forward
// half): a column-parallel linear layer (weights sliced by columns), GeLU on
// the slices, a row-parallel linear layer giving local partial sums, one
// all_reduce, then bias, dropout, residual and layer norm on the replicated
// activations. CoCoNet overlaps the second matmul with the all_reduce and
// fuses the rest: overlap(MM, fuse(RS_C_AG)). Seeded runs draw the inputs as a
// model's would be (`coco.input`: unit activations, weights of std 0.02): from
// the default [0, 1) the first matmul's squares overflow f16 and every output
// is NaN.

func.func @megatron_mlp(%x: tensor<16x1024xf16, #coco.replicated> {coco.input = "normal(0,1)"},
                        %w1: tensor<1024x4096xf16, #coco.sliced<1>> {coco.input = "normal(0,0.02)"},
                        %b1: tensor<4096xf16, #coco.sliced<0>> {coco.input = "normal(0,0.02)"},
                        %w2: tensor<4096x1024xf16, #coco.sliced<0>> {coco.input = "normal(0,0.02)"},
                        %b2: tensor<1024xf16, #coco.replicated> {coco.input = "normal(0,0.02)"},
                        %gamma: tensor<1024xf16, #coco.replicated> {coco.input = "uniform(0.9,1.1)"},
                        %beta: tensor<1024xf16, #coco.replicated> {coco.input = "normal(0,0.02)"})
    -> tensor<16x1024xf16, #coco.replicated> {
  // Column-parallel linear: each rank computes its 4096/N columns.
  %h = coco.matmul %x, %w1 : tensor<16x1024xf16, #coco.replicated>, tensor<1024x4096xf16, #coco.sliced<1>> -> tensor<16x4096xf16, #coco.sliced<1>>
  %b1_rows = coco.expand %b1 : tensor<4096xf16, #coco.sliced<0>> -> tensor<16x4096xf16, #coco.sliced<1>>
  %hb = arith.addf %h, %b1_rows : tensor<16x4096xf16, #coco.sliced<1>>

  // GeLU, tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  %half = arith.constant dense<0.5> : tensor<16x4096xf16, #coco.sliced<1>>
  %one = arith.constant dense<1.0> : tensor<16x4096xf16, #coco.sliced<1>>
  %k0 = arith.constant dense<0.7978846> : tensor<16x4096xf16, #coco.sliced<1>>
  %k1 = arith.constant dense<0.044715> : tensor<16x4096xf16, #coco.sliced<1>>
  %x2 = arith.mulf %hb, %hb : tensor<16x4096xf16, #coco.sliced<1>>
  %x3 = arith.mulf %x2, %hb : tensor<16x4096xf16, #coco.sliced<1>>
  %cubic = arith.mulf %k1, %x3 : tensor<16x4096xf16, #coco.sliced<1>>
  %inner = arith.addf %hb, %cubic : tensor<16x4096xf16, #coco.sliced<1>>
  %scaled = arith.mulf %k0, %inner : tensor<16x4096xf16, #coco.sliced<1>>
  %t = math.tanh %scaled : tensor<16x4096xf16, #coco.sliced<1>>
  %onep = arith.addf %one, %t : tensor<16x4096xf16, #coco.sliced<1>>
  %halfx = arith.mulf %half, %hb : tensor<16x4096xf16, #coco.sliced<1>>
  %act = arith.mulf %halfx, %onep : tensor<16x4096xf16, #coco.sliced<1>>

  // Row-parallel linear: partial sums on every rank, reduced once.
  %partial = coco.matmul %act, %w2 : tensor<16x4096xf16, #coco.sliced<1>>, tensor<4096x1024xf16, #coco.sliced<0>> -> tensor<16x1024xf16, #coco.local>
  %sum = coco.all_reduce sum %partial : tensor<16x1024xf16, #coco.local> -> tensor<16x1024xf16, #coco.replicated>

  // Bias, dropout, residual, layer norm.
  %b2_rows = coco.expand %b2 : tensor<1024xf16, #coco.replicated> -> tensor<16x1024xf16, #coco.replicated>
  %biased = arith.addf %sum, %b2_rows : tensor<16x1024xf16, #coco.replicated>
  %dropped = coco.dropout %biased prob 0.1 seed 1234 : tensor<16x1024xf16, #coco.replicated>
  %residual = arith.addf %dropped, %x : tensor<16x1024xf16, #coco.replicated>
  %y = coco.layer_norm %residual, %gamma, %beta eps 1.0e-5 : tensor<16x1024xf16, #coco.replicated>, tensor<1024xf16, #coco.replicated>, tensor<1024xf16, #coco.replicated> -> tensor<16x1024xf16, #coco.replicated>
  return %y : tensor<16x1024xf16, #coco.replicated>
}
