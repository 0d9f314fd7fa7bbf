// Megatron-LM's model-parallel self-attention block with 8 heads of width 32:
// the Q, K and V projections are column-parallel, so each rank owns whole
// heads (the world size must divide 8); scores, softmax and the weighted sum
// of values are batched over the rank's heads (#coco.sliced<0> on the head
// dimension); the output projection is row-parallel and one all_reduce sums
// the partial outputs, followed by bias, dropout, residual and layer norm,
// the tail CoCoNet splits, reorders and fuses as for the MLP block.

func.func @megatron_attention(%x: tensor<64x256xf32, #coco.replicated>,
                              %wq: tensor<256x256xf32, #coco.sliced<1>>,
                              %wk: tensor<256x256xf32, #coco.sliced<1>>,
                              %wv: tensor<256x256xf32, #coco.sliced<1>>,
                              %wo: tensor<256x256xf32, #coco.sliced<0>>,
                              %bo: tensor<256xf32, #coco.replicated>,
                              %gamma: tensor<256xf32, #coco.replicated>,
                              %beta: tensor<256xf32, #coco.replicated>)
    -> tensor<64x256xf32, #coco.replicated> {
  %q = coco.matmul %x, %wq : tensor<64x256xf32, #coco.replicated>, tensor<256x256xf32, #coco.sliced<1>> -> tensor<64x256xf32, #coco.sliced<1>>
  %k = coco.matmul %x, %wk : tensor<64x256xf32, #coco.replicated>, tensor<256x256xf32, #coco.sliced<1>> -> tensor<64x256xf32, #coco.sliced<1>>
  %v = coco.matmul %x, %wv : tensor<64x256xf32, #coco.replicated>, tensor<256x256xf32, #coco.sliced<1>> -> tensor<64x256xf32, #coco.sliced<1>>
  %qh = coco.split_heads %q : tensor<64x256xf32, #coco.sliced<1>> -> tensor<8x64x32xf32, #coco.sliced<0>>
  %kh = coco.split_heads %k : tensor<64x256xf32, #coco.sliced<1>> -> tensor<8x64x32xf32, #coco.sliced<0>>
  %vh = coco.split_heads %v : tensor<64x256xf32, #coco.sliced<1>> -> tensor<8x64x32xf32, #coco.sliced<0>>

  // softmax(Q K^T / sqrt(32)) V, per head.
  %kt = coco.transpose %kh : tensor<8x64x32xf32, #coco.sliced<0>> -> tensor<8x32x64xf32, #coco.sliced<0>>
  %scores = coco.matmul %qh, %kt : tensor<8x64x32xf32, #coco.sliced<0>>, tensor<8x32x64xf32, #coco.sliced<0>> -> tensor<8x64x64xf32, #coco.sliced<0>>
  %scale = arith.constant dense<0.17677669> : tensor<8x64x64xf32, #coco.sliced<0>>
  %scaled = arith.mulf %scores, %scale : tensor<8x64x64xf32, #coco.sliced<0>>
  %weights = coco.softmax %scaled : tensor<8x64x64xf32, #coco.sliced<0>>
  %weights_dropped = coco.dropout %weights prob 0.1 seed 77 : tensor<8x64x64xf32, #coco.sliced<0>>
  %context = coco.matmul %weights_dropped, %vh : tensor<8x64x64xf32, #coco.sliced<0>>, tensor<8x64x32xf32, #coco.sliced<0>> -> tensor<8x64x32xf32, #coco.sliced<0>>
  %merged = coco.merge_heads %context : tensor<8x64x32xf32, #coco.sliced<0>> -> tensor<64x256xf32, #coco.sliced<1>>

  // Row-parallel output projection, then the block's tail.
  %partial = coco.matmul %merged, %wo : tensor<64x256xf32, #coco.sliced<1>>, tensor<256x256xf32, #coco.sliced<0>> -> tensor<64x256xf32, #coco.local>
  %out = coco.all_reduce sum %partial : tensor<64x256xf32, #coco.local> -> tensor<64x256xf32, #coco.replicated>
  %bias = coco.expand %bo : tensor<256xf32, #coco.replicated> -> tensor<64x256xf32, #coco.replicated>
  %biased = arith.addf %out, %bias : tensor<64x256xf32, #coco.replicated>
  %dropped = coco.dropout %biased prob 0.1 seed 78 : tensor<64x256xf32, #coco.replicated>
  %residual = arith.addf %dropped, %x : tensor<64x256xf32, #coco.replicated>
  %y = coco.layer_norm %residual, %gamma, %beta eps 1.0e-5 : tensor<64x256xf32, #coco.replicated>, tensor<256xf32, #coco.replicated>, tensor<256xf32, #coco.replicated> -> tensor<64x256xf32, #coco.replicated>
  return %y : tensor<64x256xf32, #coco.replicated>
}
