// Paper scale (BERT-Large, 335M parameters): ../lamb.mlir for the autotuner; too large for the interpreter tests.
// Data-parallel LAMB: Adam's moments, then a layer-wise trust ratio
// ||p|| / ||update|| scales the step. The two L2 norms are why LAMB needs
// extra communication once the moments are sliced (the transformations issue
// rewrites them as reduce_elements + all_reduce + sqrt on slices).

func.func @lamb(%grad: tensor<335544320xf32, #coco.local>,
                %param: tensor<335544320xf32, #coco.replicated> {coco.keep_replicated},
                %m: tensor<335544320xf32, #coco.replicated>,
                %v: tensor<335544320xf32, #coco.replicated>,
                %lr: f32, %bias_correction1: f32, %bias_correction2: f32) {
  %g = coco.all_reduce avg %grad : tensor<335544320xf32, #coco.local> -> tensor<335544320xf32, #coco.replicated>

  %beta1 = arith.constant dense<0.9> : tensor<335544320xf32, #coco.replicated>
  %one_minus_beta1 = arith.constant dense<0.1> : tensor<335544320xf32, #coco.replicated>
  %beta2 = arith.constant dense<0.999> : tensor<335544320xf32, #coco.replicated>
  %one_minus_beta2 = arith.constant dense<0.001> : tensor<335544320xf32, #coco.replicated>
  %eps = arith.constant dense<1.0e-6> : tensor<335544320xf32, #coco.replicated>
  %weight_decay = arith.constant dense<0.01> : tensor<335544320xf32, #coco.replicated>

  %m_decay = arith.mulf %beta1, %m : tensor<335544320xf32, #coco.replicated>
  %m_grad = arith.mulf %one_minus_beta1, %g : tensor<335544320xf32, #coco.replicated>
  %m_new = arith.addf %m_decay, %m_grad : tensor<335544320xf32, #coco.replicated>
  %g2 = arith.mulf %g, %g : tensor<335544320xf32, #coco.replicated>
  %v_decay = arith.mulf %beta2, %v : tensor<335544320xf32, #coco.replicated>
  %v_grad = arith.mulf %one_minus_beta2, %g2 : tensor<335544320xf32, #coco.replicated>
  %v_new = arith.addf %v_decay, %v_grad : tensor<335544320xf32, #coco.replicated>

  // update = m_hat / (sqrt(v_hat) + eps) + weight_decay * p
  %bc1 = tensor.splat %bias_correction1 : tensor<335544320xf32, #coco.replicated>
  %bc2 = tensor.splat %bias_correction2 : tensor<335544320xf32, #coco.replicated>
  %m_hat = arith.mulf %m_new, %bc1 : tensor<335544320xf32, #coco.replicated>
  %v_hat = arith.mulf %v_new, %bc2 : tensor<335544320xf32, #coco.replicated>
  %root = math.sqrt %v_hat : tensor<335544320xf32, #coco.replicated>
  %denom = arith.addf %root, %eps : tensor<335544320xf32, #coco.replicated>
  %adam_step = arith.divf %m_hat, %denom : tensor<335544320xf32, #coco.replicated>
  %decay = arith.mulf %weight_decay, %param : tensor<335544320xf32, #coco.replicated>
  %update = arith.addf %adam_step, %decay : tensor<335544320xf32, #coco.replicated>

  // trust ratio = ||p|| / ||update||
  %param_norm = coco.norm %param : tensor<335544320xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  %update_norm = coco.norm %update : tensor<335544320xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  %trust = arith.divf %param_norm, %update_norm : tensor<f32, #coco.replicated>
  %trust_all = coco.expand %trust : tensor<f32, #coco.replicated> -> tensor<335544320xf32, #coco.replicated>

  // p = p - lr * trust * update
  %lrs = tensor.splat %lr : tensor<335544320xf32, #coco.replicated>
  %scaled = arith.mulf %trust_all, %update : tensor<335544320xf32, #coco.replicated>
  %step = arith.mulf %lrs, %scaled : tensor<335544320xf32, #coco.replicated>
  %p_new = arith.subf %param, %step : tensor<335544320xf32, #coco.replicated>

  coco.update %m, %m_new : tensor<335544320xf32, #coco.replicated>
  coco.update %param, %p_new : tensor<335544320xf32, #coco.replicated>
  return
}