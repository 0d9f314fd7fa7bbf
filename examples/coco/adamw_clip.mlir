// Data-parallel AdamW with global-norm gradient clipping, the step of
// torch.nn.utils.clip_grad_norm_(max_norm=1.0) followed by
// torch.optim.AdamW: the averaged gradient is scaled by
// min(1, max_norm / (||g|| + 1e-6)) before the moments see it.
// Once coco-split and coco-reorder run the update on slices, the norm is
// the only reader of the gathered gradient; coco-partial-reduce computes it
// from per-slice sums of squares and one scalar all_reduce, so no full
// gradient is ever gathered.

func.func @adamw_clip(%grad: tensor<131072xf32, #coco.local>,
                      %param: tensor<131072xf32, #coco.replicated> {coco.keep_replicated},
                      %m: tensor<131072xf32, #coco.replicated>,
                      %v: tensor<131072xf32, #coco.replicated>,
                      %lr: f32, %bias_correction1: f32, %bias_correction2: f32) {
  %g = coco.all_reduce avg %grad : tensor<131072xf32, #coco.local> -> tensor<131072xf32, #coco.replicated>

  // Clip: g = g * min(1, max_norm / (||g|| + 1e-6)).
  %norm = coco.norm %g : tensor<131072xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  %max_norm = arith.constant dense<1.0> : tensor<f32, #coco.replicated>
  %tiny = arith.constant dense<1.0e-6> : tensor<f32, #coco.replicated>
  %one = arith.constant dense<1.0> : tensor<f32, #coco.replicated>
  %norm_eps = arith.addf %norm, %tiny : tensor<f32, #coco.replicated>
  %ratio = arith.divf %max_norm, %norm_eps : tensor<f32, #coco.replicated>
  %clip = arith.minimumf %ratio, %one : tensor<f32, #coco.replicated>
  %clip_all = coco.expand %clip : tensor<f32, #coco.replicated> -> tensor<131072xf32, #coco.replicated>
  %gc = arith.mulf %g, %clip_all : tensor<131072xf32, #coco.replicated>

  %beta1 = arith.constant dense<0.9> : tensor<131072xf32, #coco.replicated>
  %one_minus_beta1 = arith.constant dense<0.1> : tensor<131072xf32, #coco.replicated>
  %beta2 = arith.constant dense<0.999> : tensor<131072xf32, #coco.replicated>
  %one_minus_beta2 = arith.constant dense<0.001> : tensor<131072xf32, #coco.replicated>
  %eps = arith.constant dense<1.0e-8> : tensor<131072xf32, #coco.replicated>
  %wd = arith.constant dense<0.01> : tensor<131072xf32, #coco.replicated>
  %m_decay = arith.mulf %beta1, %m : tensor<131072xf32, #coco.replicated>
  %m_grad = arith.mulf %one_minus_beta1, %gc : tensor<131072xf32, #coco.replicated>
  %m_new = arith.addf %m_decay, %m_grad : tensor<131072xf32, #coco.replicated>
  %g2 = arith.mulf %gc, %gc : tensor<131072xf32, #coco.replicated>
  %v_decay = arith.mulf %beta2, %v : tensor<131072xf32, #coco.replicated>
  %v_grad = arith.mulf %one_minus_beta2, %g2 : tensor<131072xf32, #coco.replicated>
  %v_new = arith.addf %v_decay, %v_grad : tensor<131072xf32, #coco.replicated>
  %bc1 = tensor.splat %bias_correction1 : tensor<131072xf32, #coco.replicated>
  %bc2 = tensor.splat %bias_correction2 : tensor<131072xf32, #coco.replicated>
  %m_hat = arith.mulf %m_new, %bc1 : tensor<131072xf32, #coco.replicated>
  %v_hat = arith.mulf %v_new, %bc2 : tensor<131072xf32, #coco.replicated>
  %root = math.sqrt %v_hat : tensor<131072xf32, #coco.replicated>
  %denom = arith.addf %root, %eps : tensor<131072xf32, #coco.replicated>
  %adam = arith.divf %m_hat, %denom : tensor<131072xf32, #coco.replicated>
  %decay = arith.mulf %wd, %param : tensor<131072xf32, #coco.replicated>
  %update = arith.addf %adam, %decay : tensor<131072xf32, #coco.replicated>
  %lrs = tensor.splat %lr : tensor<131072xf32, #coco.replicated>
  %step = arith.mulf %lrs, %update : tensor<131072xf32, #coco.replicated>
  %p_new = arith.subf %param, %step : tensor<131072xf32, #coco.replicated>
  coco.update %m, %m_new : tensor<131072xf32, #coco.replicated>
  coco.update %v, %v_new : tensor<131072xf32, #coco.replicated>
  coco.update %param, %p_new : tensor<131072xf32, #coco.replicated>
  return
}
