// Paper scale (BERT-Large, 335M parameters): the same program as ../adam.mlir, for the autotuner; too large for the interpreter tests.
// Data-parallel Adam, CoCoNet's AR_C schedule: every rank holds its own
// gradient (#coco.local); one all_reduce averages it, then every rank runs the
// optimizer on the full, replicated parameters and moments.
//
// The flagship example: `coco-opt examples/coco/adam.mlir`. The
// transformations issue turns it into fuse(RS_C_AG) with as-slice (ZeRO-style
// sliced moments). Hyper-parameters that change per step (learning rate, bias
// corrections 1/(1 - beta^t)) are scalar program inputs, the same on every rank.

func.func @adam(%grad: tensor<335544320xf32, #coco.local>,
                %param: tensor<335544320xf32, #coco.replicated> {coco.keep_replicated},
                %m: tensor<335544320xf32, #coco.replicated>,
                %v: tensor<335544320xf32, #coco.replicated>,
                %lr: f32, %bias_correction1: f32, %bias_correction2: f32) {
  %g = coco.all_reduce avg %grad : tensor<335544320xf32, #coco.local> -> tensor<335544320xf32, #coco.replicated>

  %beta1 = arith.constant dense<0.9> : tensor<335544320xf32, #coco.replicated>
  %one_minus_beta1 = arith.constant dense<0.1> : tensor<335544320xf32, #coco.replicated>
  %beta2 = arith.constant dense<0.999> : tensor<335544320xf32, #coco.replicated>
  %one_minus_beta2 = arith.constant dense<0.001> : tensor<335544320xf32, #coco.replicated>
  %eps = arith.constant dense<1.0e-8> : tensor<335544320xf32, #coco.replicated>

  // m = beta1 * m + (1 - beta1) * g
  %m_decay = arith.mulf %beta1, %m : tensor<335544320xf32, #coco.replicated>
  %m_grad = arith.mulf %one_minus_beta1, %g : tensor<335544320xf32, #coco.replicated>
  %m_new = arith.addf %m_decay, %m_grad : tensor<335544320xf32, #coco.replicated>

  // v = beta2 * v + (1 - beta2) * g * g
  %g2 = arith.mulf %g, %g : tensor<335544320xf32, #coco.replicated>
  %v_decay = arith.mulf %beta2, %v : tensor<335544320xf32, #coco.replicated>
  %v_grad = arith.mulf %one_minus_beta2, %g2 : tensor<335544320xf32, #coco.replicated>
  %v_new = arith.addf %v_decay, %v_grad : tensor<335544320xf32, #coco.replicated>

  // p = p - lr * m_hat / (sqrt(v_hat) + eps)
  %bc1 = tensor.splat %bias_correction1 : tensor<335544320xf32, #coco.replicated>
  %bc2 = tensor.splat %bias_correction2 : tensor<335544320xf32, #coco.replicated>
  %lrs = tensor.splat %lr : tensor<335544320xf32, #coco.replicated>
  %m_hat = arith.mulf %m_new, %bc1 : tensor<335544320xf32, #coco.replicated>
  %v_hat = arith.mulf %v_new, %bc2 : tensor<335544320xf32, #coco.replicated>
  %root = math.sqrt %v_hat : tensor<335544320xf32, #coco.replicated>
  %denom = arith.addf %root, %eps : tensor<335544320xf32, #coco.replicated>
  %ratio = arith.divf %m_hat, %denom : tensor<335544320xf32, #coco.replicated>
  %step = arith.mulf %lrs, %ratio : tensor<335544320xf32, #coco.replicated>
  %p_new = arith.subf %param, %step : tensor<335544320xf32, #coco.replicated>

  coco.update %m, %m_new : tensor<335544320xf32, #coco.replicated>
  coco.update %v, %v_new : tensor<335544320xf32, #coco.replicated>
  coco.update %param, %p_new : tensor<335544320xf32, #coco.replicated>
  return
}
