// Peer launches around norms: LAMB under fused partial reductions. The
// fused region becomes a peer launch that folds the peers' gradient parts
// and computes the moments, the update and the partial sums of squares of
// its two norms; two scalar all_reduces; and a peer launch that applies the
// trust ratio in place and writes the new parameters on every rank.
// Bitwise against the interpreter on 1, 2, 3, 4 and 8 ranks, and on two
// simulated nodes.
// RUN: coco-opt %s --pass-pipeline='builtin.module(coco-split,coco-reorder,canonicalize,cse,coco-as-slice,canonicalize,coco-partial-reduce,canonicalize,cse,coco-fuse)' -o %t
// RUN: coco-translate %t --emit=plan --ranks 4 | FileCheck %s --check-prefix=PLAN
// RUN: coco-run %t --ranks 1 --seed 4 --check --exact-reductions | FileCheck %s
// RUN: coco-run %t --ranks 2 --seed 4 --check --exact-reductions | FileCheck %s
// RUN: coco-run %t --ranks 3 --seed 4 --check --exact-reductions | FileCheck %s
// RUN: coco-run %t --ranks 4 --seed 4 --check --exact-reductions | FileCheck %s
// RUN: coco-run %t --ranks 8 --seed 4 --check --exact-reductions | FileCheck %s
// RUN: coco-run %t --ranks 4 --ranks-per-node 2 --seed 4 --check --exact-reductions | FileCheck %s

// PLAN-NOT: op = "reduce_scatter"
// PLAN: op = "peer_launch"
// PLAN: peer_reads = ["arg0"]
// PLAN: op = "all_reduce"
// PLAN: op = "all_reduce"
// PLAN: op = "peer_launch"
// PLAN: peer_writes = ["arg1"]
// PLAN-NOT: op = "all_gather"
// PLAN-NOT: op = "copy"

// CHECK: lamb.arg1: {{.*}}bitwise equal
// CHECK: lamb.arg2: {{.*}}bitwise equal
// CHECK: lamb.arg3: {{.*}}bitwise equal

func.func @lamb(%grad: tensor<1536xf32, #coco.local>,
                %param: tensor<1536xf32, #coco.replicated> {coco.keep_replicated},
                %m: tensor<1536xf32, #coco.replicated>,
                %v: tensor<1536xf32, #coco.replicated>,
                %lr: f32, %bias_correction1: f32, %bias_correction2: f32) {
  %g = coco.all_reduce avg %grad : tensor<1536xf32, #coco.local> -> tensor<1536xf32, #coco.replicated>

  %beta1 = arith.constant dense<0.9> : tensor<1536xf32, #coco.replicated>
  %one_minus_beta1 = arith.constant dense<0.1> : tensor<1536xf32, #coco.replicated>
  %beta2 = arith.constant dense<0.999> : tensor<1536xf32, #coco.replicated>
  %one_minus_beta2 = arith.constant dense<0.001> : tensor<1536xf32, #coco.replicated>
  %eps = arith.constant dense<1.0e-6> : tensor<1536xf32, #coco.replicated>
  %weight_decay = arith.constant dense<0.01> : tensor<1536xf32, #coco.replicated>

  %m_decay = arith.mulf %beta1, %m : tensor<1536xf32, #coco.replicated>
  %m_grad = arith.mulf %one_minus_beta1, %g : tensor<1536xf32, #coco.replicated>
  %m_new = arith.addf %m_decay, %m_grad : tensor<1536xf32, #coco.replicated>
  %g2 = arith.mulf %g, %g : tensor<1536xf32, #coco.replicated>
  %v_decay = arith.mulf %beta2, %v : tensor<1536xf32, #coco.replicated>
  %v_grad = arith.mulf %one_minus_beta2, %g2 : tensor<1536xf32, #coco.replicated>
  %v_new = arith.addf %v_decay, %v_grad : tensor<1536xf32, #coco.replicated>

  // update = m_hat / (sqrt(v_hat) + eps) + weight_decay * p
  %bc1 = tensor.splat %bias_correction1 : tensor<1536xf32, #coco.replicated>
  %bc2 = tensor.splat %bias_correction2 : tensor<1536xf32, #coco.replicated>
  %m_hat = arith.mulf %m_new, %bc1 : tensor<1536xf32, #coco.replicated>
  %v_hat = arith.mulf %v_new, %bc2 : tensor<1536xf32, #coco.replicated>
  %root = math.sqrt %v_hat : tensor<1536xf32, #coco.replicated>
  %denom = arith.addf %root, %eps : tensor<1536xf32, #coco.replicated>
  %adam_step = arith.divf %m_hat, %denom : tensor<1536xf32, #coco.replicated>
  %decay = arith.mulf %weight_decay, %param : tensor<1536xf32, #coco.replicated>
  %update = arith.addf %adam_step, %decay : tensor<1536xf32, #coco.replicated>

  // trust ratio = ||p|| / ||update||
  %param_norm = coco.norm %param : tensor<1536xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  %update_norm = coco.norm %update : tensor<1536xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  %trust = arith.divf %param_norm, %update_norm : tensor<f32, #coco.replicated>
  %trust_all = coco.expand %trust : tensor<f32, #coco.replicated> -> tensor<1536xf32, #coco.replicated>

  // p = p - lr * trust * update
  %lrs = tensor.splat %lr : tensor<1536xf32, #coco.replicated>
  %scaled = arith.mulf %trust_all, %update : tensor<1536xf32, #coco.replicated>
  %step = arith.mulf %lrs, %scaled : tensor<1536xf32, #coco.replicated>
  %p_new = arith.subf %param, %step : tensor<1536xf32, #coco.replicated>

  coco.update %m, %m_new : tensor<1536xf32, #coco.replicated>
  coco.update %v, %v_new : tensor<1536xf32, #coco.replicated>
  coco.update %param, %p_new : tensor<1536xf32, #coco.replicated>
  return
}
