// Paper scale (GPT-2 8.3B layer: hidden 3072, 8192 tokens): ../megatron_mlp.mlir for the autotuner;
// too large for the interpreter tests.
// Megatron-LM's model-parallel MLP block (one transformer layer's feed-forward
// half): a column-parallel linear layer (weights sliced by columns), GeLU on
// all_reduce, then bias, dropout, residual and layer norm on the replicated
// activations. CoCoNet overlaps the second matmul with the all_reduce and
// fuses the rest: overlap(MM, fuse(RS_C_AG)).

func.func @megatron_mlp(%x: tensor<8192x3072xf16, #coco.replicated>,
                        %w1: tensor<3072x12288xf16, #coco.sliced<1>>,
                        %b1: tensor<12288xf16, #coco.sliced<0>>,
                        %w2: tensor<12288x3072xf16, #coco.sliced<0>>,
                        %b2: tensor<3072xf16, #coco.replicated>,
                        %gamma: tensor<3072xf16, #coco.replicated>,
                        %beta: tensor<3072xf16, #coco.replicated>)
    -> tensor<8192x3072xf16, #coco.replicated> {
  // Column-parallel linear: each rank computes its 12288/N columns.
  %h = coco.matmul %x, %w1 : tensor<8192x3072xf16, #coco.replicated>, tensor<3072x12288xf16, #coco.sliced<1>> -> tensor<8192x12288xf16, #coco.sliced<1>>
  %b1_rows = coco.expand %b1 : tensor<12288xf16, #coco.sliced<0>> -> tensor<8192x12288xf16, #coco.sliced<1>>
  %hb = arith.addf %h, %b1_rows : tensor<8192x12288xf16, #coco.sliced<1>>

  // GeLU, tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  %half = arith.constant dense<0.5> : tensor<8192x12288xf16, #coco.sliced<1>>
  %one = arith.constant dense<1.0> : tensor<8192x12288xf16, #coco.sliced<1>>
  %k0 = arith.constant dense<0.7978846> : tensor<8192x12288xf16, #coco.sliced<1>>
  %k1 = arith.constant dense<0.044715> : tensor<8192x12288xf16, #coco.sliced<1>>
  %x2 = arith.mulf %hb, %hb : tensor<8192x12288xf16, #coco.sliced<1>>
  %x3 = arith.mulf %x2, %hb : tensor<8192x12288xf16, #coco.sliced<1>>
  %cubic = arith.mulf %k1, %x3 : tensor<8192x12288xf16, #coco.sliced<1>>
  %inner = arith.addf %hb, %cubic : tensor<8192x12288xf16, #coco.sliced<1>>
  %scaled = arith.mulf %k0, %inner : tensor<8192x12288xf16, #coco.sliced<1>>
  %t = math.tanh %scaled : tensor<8192x12288xf16, #coco.sliced<1>>
  %onep = arith.addf %one, %t : tensor<8192x12288xf16, #coco.sliced<1>>
  %halfx = arith.mulf %half, %hb : tensor<8192x12288xf16, #coco.sliced<1>>
  %act = arith.mulf %halfx, %onep : tensor<8192x12288xf16, #coco.sliced<1>>

  // Row-parallel linear: partial sums on every rank, reduced once.
  %partial = coco.matmul %act, %w2 : tensor<8192x12288xf16, #coco.sliced<1>>, tensor<12288x3072xf16, #coco.sliced<0>> -> tensor<8192x3072xf16, #coco.local>
  %sum = coco.all_reduce sum %partial : tensor<8192x3072xf16, #coco.local> -> tensor<8192x3072xf16, #coco.replicated>

  // Bias, dropout, residual, layer norm.
  %b2_rows = coco.expand %b2 : tensor<3072xf16, #coco.replicated> -> tensor<8192x3072xf16, #coco.replicated>
  %biased = arith.addf %sum, %b2_rows : tensor<8192x3072xf16, #coco.replicated>
  %dropped = coco.dropout %biased prob 0.1 seed 1234 : tensor<8192x3072xf16, #coco.replicated>
  %residual = arith.addf %dropped, %x : tensor<8192x3072xf16, #coco.replicated>
  %y = coco.layer_norm %residual, %gamma, %beta eps 1.0e-5 : tensor<8192x3072xf16, #coco.replicated>, tensor<3072xf16, #coco.replicated>, tensor<3072xf16, #coco.replicated> -> tensor<8192x3072xf16, #coco.replicated>
  return %y : tensor<8192x3072xf16, #coco.replicated>
}