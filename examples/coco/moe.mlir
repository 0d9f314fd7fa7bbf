// A mixture-of-experts layer with top-1 (Switch Transformer) routing and
// expert parallelism: 48 tokens of width 16 sliced over the ranks, 24
// experts (a two-layer ReLU FFN of width 32 each) sliced over the ranks.
// The dispatch is GShard's dense form: every token goes to every expert
// with a one-hot weight, so each rank's all_to_all block has a fixed size.
//
//   gate:     probs = softmax(x @ wg); expert = argmax(probs); g = max(probs)
//   dispatch: d[e, t, :] = (expert[t] == e) * x[t, :], all_to_all to e's rank
//   experts:  o[e] = relu(d[e] @ w1[e]) @ w2[e]
//   combine:  all_to_all back, y[t, :] = g[t] * sum_e (expert[t] == e) * o[e, t, :]
//
// 24 experts and 48 tokens divide by 1, 2, 3, 4, 6 and 8 ranks.

func.func @moe(%x: tensor<48x16xf32, #coco.sliced<0>>,
               %wg: tensor<16x24xf32, #coco.replicated>,
               %w1: tensor<24x16x32xf32, #coco.sliced<0>>,
               %w2: tensor<24x32x16xf32, #coco.sliced<0>>) -> tensor<48x16xf32, #coco.sliced<0>> {
  // Gating: each token's expert and that expert's probability.
  %logits = coco.matmul %x, %wg : tensor<48x16xf32, #coco.sliced<0>>, tensor<16x24xf32, #coco.replicated> -> tensor<48x24xf32, #coco.sliced<0>>
  %probs = coco.softmax %logits : tensor<48x24xf32, #coco.sliced<0>>
  %expert = coco.argmax %probs {dim = 1 : i64} : tensor<48x24xf32, #coco.sliced<0>> -> tensor<48xi64, #coco.sliced<0>>
  %gate = coco.reduce_elements max %probs {dims = array<i64: 1>} : tensor<48x24xf32, #coco.sliced<0>> -> tensor<48xf32, #coco.sliced<0>>

  // The routing mask: mask[t, e] = 1 where token t goes to expert e.
  %ids = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23]> : tensor<24xi64, #coco.replicated>
  %ids_te = coco.expand %ids {dims = array<i64: 1>} : tensor<24xi64, #coco.replicated> -> tensor<48x24xi64, #coco.replicated>
  %ids_mine = coco.slice %ids_te : tensor<48x24xi64, #coco.replicated> -> tensor<48x24xi64, #coco.sliced<0>>
  %expert_te = coco.expand %expert {dims = array<i64: 0>} : tensor<48xi64, #coco.sliced<0>> -> tensor<48x24xi64, #coco.sliced<0>>
  %hit = arith.cmpi eq, %expert_te, %ids_mine : tensor<48x24xi64, #coco.sliced<0>>
  %mask = arith.uitofp %hit : tensor<48x24xi1, #coco.sliced<0>> to tensor<48x24xf32, #coco.sliced<0>>

  // Dispatch: d[e, t, h] = mask[t, e] * x[t, h], then to the experts' ranks.
  %mask_et = coco.transpose %mask : tensor<48x24xf32, #coco.sliced<0>> -> tensor<24x48xf32, #coco.sliced<1>>
  %mask_eth = coco.expand %mask_et {dims = array<i64: 0, 1>} : tensor<24x48xf32, #coco.sliced<1>> -> tensor<24x48x16xf32, #coco.sliced<1>>
  %x_eth = coco.expand %x {dims = array<i64: 1, 2>} : tensor<48x16xf32, #coco.sliced<0>> -> tensor<24x48x16xf32, #coco.sliced<1>>
  %dispatched = arith.mulf %mask_eth, %x_eth : tensor<24x48x16xf32, #coco.sliced<1>>
  %at_experts = coco.all_to_all %dispatched : tensor<24x48x16xf32, #coco.sliced<1>> -> tensor<24x48x16xf32, #coco.sliced<0>>

  // Each rank's experts: relu(d @ w1) @ w2, batched over experts.
  %hidden = coco.matmul %at_experts, %w1 : tensor<24x48x16xf32, #coco.sliced<0>>, tensor<24x16x32xf32, #coco.sliced<0>> -> tensor<24x48x32xf32, #coco.sliced<0>>
  %zero = arith.constant dense<0.0> : tensor<24x48x32xf32, #coco.sliced<0>>
  %relu = arith.maximumf %hidden, %zero : tensor<24x48x32xf32, #coco.sliced<0>>
  %out = coco.matmul %relu, %w2 : tensor<24x48x32xf32, #coco.sliced<0>>, tensor<24x32x16xf32, #coco.sliced<0>> -> tensor<24x48x16xf32, #coco.sliced<0>>

  // Combine: back to the tokens' ranks, keep each token's expert, scale by its gate.
  %back = coco.all_to_all %out : tensor<24x48x16xf32, #coco.sliced<0>> -> tensor<24x48x16xf32, #coco.sliced<1>>
  %picked = arith.mulf %back, %mask_eth : tensor<24x48x16xf32, #coco.sliced<1>>
  %combined = coco.reduce_elements sum %picked {dims = array<i64: 0>} : tensor<24x48x16xf32, #coco.sliced<1>> -> tensor<48x16xf32, #coco.sliced<0>>
  %gate_th = coco.expand %gate {dims = array<i64: 0>} : tensor<48xf32, #coco.sliced<0>> -> tensor<48x16xf32, #coco.sliced<0>>
  %y = arith.mulf %combined, %gate_th : tensor<48x16xf32, #coco.sliced<0>>
  return %y : tensor<48x16xf32, #coco.sliced<0>>
}
