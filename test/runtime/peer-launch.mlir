// The one-kernel fused collective (Step::PeerLaunch): Adam on 2-D tensors
// under the fused RS_C_AG schedule, so the reduce_scatter, the update and
// the all_gather are one kernel that reads every rank's gradient part and
// writes every rank's parameters. Run on 1, 2, 3, 4 and 8 ranks, and on 4
// and 8 ranks split into simulated nodes (shared memory inside a node, MPI
// between), bitwise against the interpreter.
// RUN: coco-opt %s --pass-pipeline='builtin.module(coco-split,coco-reorder,canonicalize,cse,coco-as-slice,canonicalize,coco-fuse)' -o %t
// RUN: coco-translate %t --emit=plan --ranks 3 | FileCheck %s --check-prefix=PLAN
// RUN: coco-translate %t --emit=plan --ranks 3 --fused-collectives=steps | FileCheck %s --check-prefix=STEPS
// RUN: coco-run %t --ranks 1 --seed 2 --check --exact-reductions | FileCheck %s
// RUN: coco-run %t --ranks 2 --seed 2 --check --exact-reductions | FileCheck %s
// RUN: coco-run %t --ranks 3 --seed 2 --check --exact-reductions | FileCheck %s
// RUN: coco-run %t --ranks 4 --seed 2 --check --exact-reductions | FileCheck %s
// RUN: coco-run %t --ranks 8 --seed 2 --check --exact-reductions | FileCheck %s
// RUN: coco-run %t --ranks 4 --ranks-per-node 2 --seed 2 --check --exact-reductions | FileCheck %s
// RUN: coco-run %t --ranks 8 --ranks-per-node 3 --seed 2 --check --exact-reductions | FileCheck %s

// One peer launch and no collective step: the gradient is read on the
// peers, the parameters written there, and the update is in place.
// PLAN-NOT: op = "reduce_scatter"
// PLAN-NOT: op = "all_gather"
// PLAN: op = "peer_launch"
// PLAN: peer_reads = ["arg0"]
// PLAN: peer_writes = ["arg1"]
// PLAN-NOT: op = "copy"

// STEPS: op = "reduce_scatter"
// STEPS: op = "launch"
// STEPS: op = "all_gather"
// STEPS-NOT: peer_launch

// CHECK: adam.arg1: {{.*}}bitwise equal
// CHECK: adam.arg2: {{.*}}bitwise equal
// CHECK: adam.arg3: {{.*}}bitwise equal

func.func @adam(%grad: tensor<48x16xf32, #coco.local>,
                %param: tensor<48x16xf32, #coco.replicated> {coco.keep_replicated},
                %m: tensor<48x16xf32, #coco.replicated>,
                %v: tensor<48x16xf32, #coco.replicated>,
                %lr: f32, %bias_correction1: f32, %bias_correction2: f32) {
  %g = coco.all_reduce avg %grad : tensor<48x16xf32, #coco.local> -> tensor<48x16xf32, #coco.replicated>

  %beta1 = arith.constant dense<0.9> : tensor<48x16xf32, #coco.replicated>
  %one_minus_beta1 = arith.constant dense<0.1> : tensor<48x16xf32, #coco.replicated>
  %beta2 = arith.constant dense<0.999> : tensor<48x16xf32, #coco.replicated>
  %one_minus_beta2 = arith.constant dense<0.001> : tensor<48x16xf32, #coco.replicated>
  %eps = arith.constant dense<1.0e-8> : tensor<48x16xf32, #coco.replicated>

  // m = beta1 * m + (1 - beta1) * g
  %m_decay = arith.mulf %beta1, %m : tensor<48x16xf32, #coco.replicated>
  %m_grad = arith.mulf %one_minus_beta1, %g : tensor<48x16xf32, #coco.replicated>
  %m_new = arith.addf %m_decay, %m_grad : tensor<48x16xf32, #coco.replicated>

  // v = beta2 * v + (1 - beta2) * g * g
  %g2 = arith.mulf %g, %g : tensor<48x16xf32, #coco.replicated>
  %v_decay = arith.mulf %beta2, %v : tensor<48x16xf32, #coco.replicated>
  %v_grad = arith.mulf %one_minus_beta2, %g2 : tensor<48x16xf32, #coco.replicated>
  %v_new = arith.addf %v_decay, %v_grad : tensor<48x16xf32, #coco.replicated>

  // p = p - lr * m_hat / (sqrt(v_hat) + eps)
  %bc1 = tensor.splat %bias_correction1 : tensor<48x16xf32, #coco.replicated>
  %bc2 = tensor.splat %bias_correction2 : tensor<48x16xf32, #coco.replicated>
  %lrs = tensor.splat %lr : tensor<48x16xf32, #coco.replicated>
  %m_hat = arith.mulf %m_new, %bc1 : tensor<48x16xf32, #coco.replicated>
  %v_hat = arith.mulf %v_new, %bc2 : tensor<48x16xf32, #coco.replicated>
  %root = math.sqrt %v_hat : tensor<48x16xf32, #coco.replicated>
  %denom = arith.addf %root, %eps : tensor<48x16xf32, #coco.replicated>
  %ratio = arith.divf %m_hat, %denom : tensor<48x16xf32, #coco.replicated>
  %step = arith.mulf %lrs, %ratio : tensor<48x16xf32, #coco.replicated>
  %p_new = arith.subf %param, %step : tensor<48x16xf32, #coco.replicated>

  coco.update %m, %m_new : tensor<48x16xf32, #coco.replicated>
  coco.update %v, %v_new : tensor<48x16xf32, #coco.replicated>
  coco.update %param, %p_new : tensor<48x16xf32, #coco.replicated>
  return
}
