// A mixture-of-experts layer with GShard's capacity-limited top-2 routing
// and expert parallelism: 64 tokens of width 16 sliced over the ranks, 8
// experts (a two-layer ReLU FFN of width 32 each) sliced over the ranks,
// capacity C = 16 slots per expert (factor 1: 2 * 64 / 8).
//
//   gate:     probs = softmax(x @ wg); e1 = argmax(probs); e2 = argmax of
//             the others; g1, g2 their probabilities, normalised to sum 1
//   slots:    a token's slot in e1 is the number of tokens before it that
//             chose e1 first (cumsum over the batch); second choices come
//             after every first choice of that expert; a slot >= C is
//             dropped (GShard's overflow)
//   dispatch: d[e, c, :] = the token in slot c of expert e, an [E, C, H]
//             buffer; each rank contributes its own tokens and one
//             reduce_scatter hands every rank its experts' slots: E*C*H
//             elements instead of the dense dispatch's E*T*H
//   experts:  o[e] = relu(d[e] @ w1[e]) @ w2[e]
//   combine:  y[t, :] = sum over e, c of gate(t, e) * [t in slot c of e] * o[e, c, :]
//
// examples/coco/oracles/moe_capacity.py recomputes it with numpy on 1, 2,
// 4 and 8 ranks.

func.func @moe_capacity(%x: tensor<64x16xf32, #coco.sliced<0>> {coco.input = "normal(0,1)"},
                        %wg: tensor<16x8xf32, #coco.replicated> {coco.input = "normal(0,1)"},
                        %w1: tensor<8x16x32xf32, #coco.sliced<0>> {coco.input = "normal(0,0.25)"},
                        %w2: tensor<8x32x16xf32, #coco.sliced<0>> {coco.input = "normal(0,0.25)"})
    -> tensor<64x16xf32, #coco.sliced<0>> {
  // Gating: the two most probable experts of each token.
  %logits = coco.matmul %x, %wg : tensor<64x16xf32, #coco.sliced<0>>, tensor<16x8xf32, #coco.replicated> -> tensor<64x8xf32, #coco.sliced<0>>
  %probs = coco.softmax %logits : tensor<64x8xf32, #coco.sliced<0>>
  %ids = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : tensor<8xi64, #coco.replicated>
  %ids_te = coco.expand %ids {dims = array<i64: 1>} : tensor<8xi64, #coco.replicated> -> tensor<64x8xi64, #coco.replicated>
  %ids_mine = coco.slice %ids_te : tensor<64x8xi64, #coco.replicated> -> tensor<64x8xi64, #coco.sliced<0>>
  %e1 = coco.argmax %probs {dim = 1 : i64} : tensor<64x8xf32, #coco.sliced<0>> -> tensor<64xi64, #coco.sliced<0>>
  %e1_te = coco.expand %e1 {dims = array<i64: 0>} : tensor<64xi64, #coco.sliced<0>> -> tensor<64x8xi64, #coco.sliced<0>>
  %first = arith.cmpi eq, %e1_te, %ids_mine : tensor<64x8xi64, #coco.sliced<0>>
  %m1 = arith.uitofp %first : tensor<64x8xi1, #coco.sliced<0>> to tensor<64x8xf32, #coco.sliced<0>>
  %one = arith.constant 1.0 : f32
  %ones = tensor.splat %one : tensor<64x8xf32, #coco.sliced<0>>
  %not_first = arith.subf %ones, %m1 : tensor<64x8xf32, #coco.sliced<0>>
  %others = arith.mulf %probs, %not_first : tensor<64x8xf32, #coco.sliced<0>>
  %e2 = coco.argmax %others {dim = 1 : i64} : tensor<64x8xf32, #coco.sliced<0>> -> tensor<64xi64, #coco.sliced<0>>
  %e2_te = coco.expand %e2 {dims = array<i64: 0>} : tensor<64xi64, #coco.sliced<0>> -> tensor<64x8xi64, #coco.sliced<0>>
  %second = arith.cmpi eq, %e2_te, %ids_mine : tensor<64x8xi64, #coco.sliced<0>>
  %m2 = arith.uitofp %second : tensor<64x8xi1, #coco.sliced<0>> to tensor<64x8xf32, #coco.sliced<0>>
  %p1 = arith.mulf %probs, %m1 : tensor<64x8xf32, #coco.sliced<0>>
  %p2 = arith.mulf %probs, %m2 : tensor<64x8xf32, #coco.sliced<0>>
  %g1 = coco.reduce_elements sum %p1 {dims = array<i64: 1>} : tensor<64x8xf32, #coco.sliced<0>> -> tensor<64xf32, #coco.sliced<0>>
  %g2 = coco.reduce_elements sum %p2 {dims = array<i64: 1>} : tensor<64x8xf32, #coco.sliced<0>> -> tensor<64xf32, #coco.sliced<0>>
  %g12 = arith.addf %g1, %g2 : tensor<64xf32, #coco.sliced<0>>
  %g1n = arith.divf %g1, %g12 : tensor<64xf32, #coco.sliced<0>>
  %g2n = arith.divf %g2, %g12 : tensor<64xf32, #coco.sliced<0>>
  %g1_te = coco.expand %g1n {dims = array<i64: 0>} : tensor<64xf32, #coco.sliced<0>> -> tensor<64x8xf32, #coco.sliced<0>>
  %g2_te = coco.expand %g2n {dims = array<i64: 0>} : tensor<64xf32, #coco.sliced<0>> -> tensor<64x8xf32, #coco.sliced<0>>
  %w_first = arith.mulf %g1_te, %m1 : tensor<64x8xf32, #coco.sliced<0>>
  %w_second = arith.mulf %g2_te, %m2 : tensor<64x8xf32, #coco.sliced<0>>
  %gates = arith.addf %w_first, %w_second : tensor<64x8xf32, #coco.sliced<0>>

  // Slots: running counts over the whole batch, in token order.
  %c1 = arith.extui %first : tensor<64x8xi1, #coco.sliced<0>> to tensor<64x8xi64, #coco.sliced<0>>
  %c2 = arith.extui %second : tensor<64x8xi1, #coco.sliced<0>> to tensor<64x8xi64, #coco.sliced<0>>
  %c1_all = coco.all_gather %c1 : tensor<64x8xi64, #coco.sliced<0>> -> tensor<64x8xi64, #coco.replicated>
  %c2_all = coco.all_gather %c2 : tensor<64x8xi64, #coco.sliced<0>> -> tensor<64x8xi64, #coco.replicated>
  %run1 = coco.cumsum %c1_all dim 0 : tensor<64x8xi64, #coco.replicated> -> tensor<64x8xi64, #coco.replicated>
  %run2 = coco.cumsum %c2_all dim 0 : tensor<64x8xi64, #coco.replicated> -> tensor<64x8xi64, #coco.replicated>
  %firsts = coco.reduce_elements sum %c1_all {dims = array<i64: 0>} : tensor<64x8xi64, #coco.replicated> -> tensor<8xi64, #coco.replicated>
  %firsts_te = coco.expand %firsts {dims = array<i64: 1>} : tensor<8xi64, #coco.replicated> -> tensor<64x8xi64, #coco.replicated>
  %one_i = arith.constant 1 : i64
  %ones_i = tensor.splat %one_i : tensor<64x8xi64, #coco.replicated>
  %slot1 = arith.subi %run1, %ones_i : tensor<64x8xi64, #coco.replicated>
  %slot2_own = arith.subi %run2, %ones_i : tensor<64x8xi64, #coco.replicated>
  %slot2 = arith.addi %slot2_own, %firsts_te : tensor<64x8xi64, #coco.replicated>
  %none_i = arith.constant -1 : i64
  %nones = tensor.splat %none_i : tensor<64x8xi64, #coco.replicated>
  %zero_i = arith.constant 0 : i64
  %zeros_i = tensor.splat %zero_i : tensor<64x8xi64, #coco.replicated>
  %is1 = arith.cmpi ne, %c1_all, %zeros_i : tensor<64x8xi64, #coco.replicated>
  %is2 = arith.cmpi ne, %c2_all, %zeros_i : tensor<64x8xi64, #coco.replicated>
  %slot2_or_none = arith.select %is2, %slot2, %nones : tensor<64x8xi1, #coco.replicated>, tensor<64x8xi64, #coco.replicated>
  %slot = arith.select %is1, %slot1, %slot2_or_none : tensor<64x8xi1, #coco.replicated>, tensor<64x8xi64, #coco.replicated>

  // The dispatch mask [E, C, T]: token t sits in slot c of expert e; a
  // slot of C or more (overflow) and -1 (not routed there) match no c.
  %slot_et = coco.transpose %slot : tensor<64x8xi64, #coco.replicated> -> tensor<8x64xi64, #coco.replicated>
  %slot_ect = coco.expand %slot_et {dims = array<i64: 0, 2>} : tensor<8x64xi64, #coco.replicated> -> tensor<8x16x64xi64, #coco.replicated>
  %cs = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : tensor<16xi64, #coco.replicated>
  %cs_ect = coco.expand %cs {dims = array<i64: 1>} : tensor<16xi64, #coco.replicated> -> tensor<8x16x64xi64, #coco.replicated>
  %in_slot = arith.cmpi eq, %slot_ect, %cs_ect : tensor<8x16x64xi64, #coco.replicated>
  %dispatch = arith.uitofp %in_slot : tensor<8x16x64xi1, #coco.replicated> to tensor<8x16x64xf32, #coco.replicated>

  // Dispatch: each rank places its own tokens, one reduce_scatter over the
  // experts gives each rank its experts' [C, H] buffers.
  %dispatch_mine = coco.slice %dispatch : tensor<8x16x64xf32, #coco.replicated> -> tensor<8x16x64xf32, #coco.sliced<2>>
  %x_eth = coco.expand %x {dims = array<i64: 1, 2>} : tensor<64x16xf32, #coco.sliced<0>> -> tensor<8x64x16xf32, #coco.sliced<1>>
  %placed = coco.matmul %dispatch_mine, %x_eth : tensor<8x16x64xf32, #coco.sliced<2>>, tensor<8x64x16xf32, #coco.sliced<1>> -> tensor<8x16x16xf32, #coco.local>
  %buffers = coco.reduce_scatter sum %placed : tensor<8x16x16xf32, #coco.local> -> tensor<8x16x16xf32, #coco.sliced<0>>

  // Each rank's experts on their slots.
  %hidden = coco.matmul %buffers, %w1 : tensor<8x16x16xf32, #coco.sliced<0>>, tensor<8x16x32xf32, #coco.sliced<0>> -> tensor<8x16x32xf32, #coco.sliced<0>>
  %zero = arith.constant dense<0.0> : tensor<8x16x32xf32, #coco.sliced<0>>
  %relu = arith.maximumf %hidden, %zero : tensor<8x16x32xf32, #coco.sliced<0>>
  %out = coco.matmul %relu, %w2 : tensor<8x16x32xf32, #coco.sliced<0>>, tensor<8x32x16xf32, #coco.sliced<0>> -> tensor<8x16x16xf32, #coco.sliced<0>>

  // Combine: every slot back to its token, weighted by the token's gate.
  %gates_all = coco.all_gather %gates : tensor<64x8xf32, #coco.sliced<0>> -> tensor<64x8xf32, #coco.replicated>
  %gates_et = coco.transpose %gates_all : tensor<64x8xf32, #coco.replicated> -> tensor<8x64xf32, #coco.replicated>
  %gates_ect = coco.expand %gates_et {dims = array<i64: 0, 2>} : tensor<8x64xf32, #coco.replicated> -> tensor<8x16x64xf32, #coco.replicated>
  %combine = arith.mulf %dispatch, %gates_ect : tensor<8x16x64xf32, #coco.replicated>
  %combine_mine = coco.slice %combine : tensor<8x16x64xf32, #coco.replicated> -> tensor<8x16x64xf32, #coco.sliced<0>>
  %combine_etc = coco.transpose %combine_mine : tensor<8x16x64xf32, #coco.sliced<0>> -> tensor<8x64x16xf32, #coco.sliced<0>>
  %per_expert = coco.matmul %combine_etc, %out : tensor<8x64x16xf32, #coco.sliced<0>>, tensor<8x16x16xf32, #coco.sliced<0>> -> tensor<8x64x16xf32, #coco.sliced<0>>
  %partial = coco.reduce_elements sum %per_expert {dims = array<i64: 0>} : tensor<8x64x16xf32, #coco.sliced<0>> -> tensor<64x16xf32, #coco.local>
  %y = coco.reduce_scatter sum %partial : tensor<64x16xf32, #coco.local> -> tensor<64x16xf32, #coco.sliced<0>>
  return %y : tensor<64x16xf32, #coco.sliced<0>>
}
