// Data-parallel Adafactor (Shazeer & Stern 2018) on one 48 x 32 weight
// (bench/reductions.py resizes it): factored second moments (row and
// column means of g^2, decayed with beta2), v = outer(r, c) / mean(r), the
// update's RMS clipped to 1, no first moment. The whole-tensor means (of
// the row moments and of u^2) are blocked-order sums; under
// coco-partial-reduce the row means move onto each rank's rows and the
// column means become partial sums (examples/coco/oracles/adafactor.py
// checks it against numpy).

func.func @adafactor(%grad: tensor<48x32xf32, #coco.local>,
                     %param: tensor<48x32xf32, #coco.replicated> {coco.keep_replicated},
                     %vr: tensor<48xf32, #coco.replicated>,
                     %vc: tensor<32xf32, #coco.replicated>,
                     %lr: f32) {
  %g = coco.all_reduce avg %grad : tensor<48x32xf32, #coco.local> -> tensor<48x32xf32, #coco.replicated>
  %eps1 = arith.constant dense<1.0e-30> : tensor<48x32xf32, #coco.replicated>
  %sq = arith.mulf %g, %g : tensor<48x32xf32, #coco.replicated>
  %g2 = arith.addf %sq, %eps1 : tensor<48x32xf32, #coco.replicated>

  // Factored moments: row and column means, decayed with beta2 = 0.999.
  %rows = coco.reduce_elements avg %g2 {dims = array<i64: 1>} : tensor<48x32xf32, #coco.replicated> -> tensor<48xf32, #coco.replicated>
  %cols = coco.reduce_elements avg %g2 {dims = array<i64: 0>} : tensor<48x32xf32, #coco.replicated> -> tensor<32xf32, #coco.replicated>
  %beta2 = arith.constant dense<0.999> : tensor<48xf32, #coco.replicated>
  %one_minus_beta2 = arith.constant dense<0.001> : tensor<48xf32, #coco.replicated>
  %vr_decay = arith.mulf %beta2, %vr : tensor<48xf32, #coco.replicated>
  %vr_grad = arith.mulf %one_minus_beta2, %rows : tensor<48xf32, #coco.replicated>
  %vr_new = arith.addf %vr_decay, %vr_grad : tensor<48xf32, #coco.replicated>
  %beta2_c = arith.constant dense<0.999> : tensor<32xf32, #coco.replicated>
  %one_minus_beta2_c = arith.constant dense<0.001> : tensor<32xf32, #coco.replicated>
  %vc_decay = arith.mulf %beta2_c, %vc : tensor<32xf32, #coco.replicated>
  %vc_grad = arith.mulf %one_minus_beta2_c, %cols : tensor<32xf32, #coco.replicated>
  %vc_new = arith.addf %vc_decay, %vc_grad : tensor<32xf32, #coco.replicated>

  // v_hat = outer(vr, vc) / mean(vr); u = g / sqrt(v_hat)
  %vr_mean = coco.reduce_elements avg %vr_new : tensor<48xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  %r = coco.expand %vr_new {dims = array<i64: 0>} : tensor<48xf32, #coco.replicated> -> tensor<48x32xf32, #coco.replicated>
  %c = coco.expand %vc_new {dims = array<i64: 1>} : tensor<32xf32, #coco.replicated> -> tensor<48x32xf32, #coco.replicated>
  %mean = coco.expand %vr_mean : tensor<f32, #coco.replicated> -> tensor<48x32xf32, #coco.replicated>
  %outer = arith.mulf %r, %c : tensor<48x32xf32, #coco.replicated>
  %v_hat = arith.divf %outer, %mean : tensor<48x32xf32, #coco.replicated>
  %root = math.sqrt %v_hat : tensor<48x32xf32, #coco.replicated>
  %u = arith.divf %g, %root : tensor<48x32xf32, #coco.replicated>

  // Clip: u / max(1, RMS(u)), RMS(u) = sqrt(mean(u^2)).
  %u2 = arith.mulf %u, %u : tensor<48x32xf32, #coco.replicated>
  %ms = coco.reduce_elements avg %u2 : tensor<48x32xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  %rms = math.sqrt %ms : tensor<f32, #coco.replicated>
  %one = arith.constant dense<1.0> : tensor<f32, #coco.replicated>
  %clip = arith.maximumf %rms, %one : tensor<f32, #coco.replicated>
  %clip_all = coco.expand %clip : tensor<f32, #coco.replicated> -> tensor<48x32xf32, #coco.replicated>
  %u_clipped = arith.divf %u, %clip_all : tensor<48x32xf32, #coco.replicated>

  %lrs = tensor.splat %lr : tensor<48x32xf32, #coco.replicated>
  %step = arith.mulf %lrs, %u_clipped : tensor<48x32xf32, #coco.replicated>
  %p_new = arith.subf %param, %step : tensor<48x32xf32, #coco.replicated>

  coco.update %vr, %vr_new : tensor<48xf32, #coco.replicated>
  coco.update %vc, %vc_new : tensor<32xf32, #coco.replicated>
  coco.update %param, %p_new : tensor<48x32xf32, #coco.replicated>
  return
}
