// Data-parallel SGD with momentum, CoCoNet's AR_C schedule: the gradients are
// averaged with one all_reduce, then every rank updates the replicated
// parameters and momentum buffer.

func.func @sgd(%grad: tensor<262144xf32, #coco.local>,
               %param: tensor<262144xf32, #coco.replicated> {coco.keep_replicated},
               %momentum: tensor<262144xf32, #coco.replicated>,
               %lr: f32) {
  %g = coco.all_reduce avg %grad : tensor<262144xf32, #coco.local> -> tensor<262144xf32, #coco.replicated>
  %mu = arith.constant dense<0.9> : tensor<262144xf32, #coco.replicated>
  // buf = mu * buf + g
  %decayed = arith.mulf %mu, %momentum : tensor<262144xf32, #coco.replicated>
  %buf = arith.addf %decayed, %g : tensor<262144xf32, #coco.replicated>
  // p = p - lr * buf
  %lrs = tensor.splat %lr : tensor<262144xf32, #coco.replicated>
  %step = arith.mulf %lrs, %buf : tensor<262144xf32, #coco.replicated>
  %p_new = arith.subf %param, %step : tensor<262144xf32, #coco.replicated>
  coco.update %momentum, %buf : tensor<262144xf32, #coco.replicated>
  coco.update %param, %p_new : tensor<262144xf32, #coco.replicated>
  return
}
