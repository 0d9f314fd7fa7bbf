// Peer launches next to collective steps: AdamW with global-norm clipping
// under fused partial reductions. Two kernels read the reduced gradient (the
// partial norm and the update), so the reduce_scatter keeps its step; the
// update (after the clipping coefficient, 0-d arithmetic) is still a peer
// launch that writes the new parameters on every rank, in place, and the
// moments are updated in place. Bitwise against the interpreter on 1, 2,
// 3, 4 and 8 ranks, and on two simulated nodes.
// RUN: coco-opt %s --pass-pipeline='builtin.module(coco-split,coco-reorder,canonicalize,cse,coco-as-slice,canonicalize,coco-partial-reduce,canonicalize,cse,coco-fuse)' -o %t
// RUN: coco-translate %t --emit=plan --ranks 4 | FileCheck %s --check-prefix=PLAN
// RUN: coco-run %t --ranks 1 --seed 4 --check --exact-reductions | FileCheck %s
// RUN: coco-run %t --ranks 2 --seed 4 --check --exact-reductions | FileCheck %s
// RUN: coco-run %t --ranks 3 --seed 4 --check --exact-reductions | FileCheck %s
// RUN: coco-run %t --ranks 4 --seed 4 --check --exact-reductions | FileCheck %s
// RUN: coco-run %t --ranks 8 --seed 4 --check --exact-reductions | FileCheck %s
// RUN: coco-run %t --ranks 4 --ranks-per-node 2 --seed 4 --check --exact-reductions | FileCheck %s

// PLAN: op = "reduce_scatter"
// PLAN: op = "launch"
// PLAN: op = "all_reduce"
// PLAN: op = "peer_launch"
// PLAN-NOT: peer_reads
// PLAN: peer_writes = ["arg1"]
// PLAN-NOT: op = "all_gather"
// PLAN-NOT: op = "copy"

// CHECK: clip.arg1: {{.*}}bitwise equal
// CHECK: clip.arg2: {{.*}}bitwise equal
// CHECK: clip.arg3: {{.*}}bitwise equal

func.func @clip(%grad: tensor<1536xf32, #coco.local>,
                      %param: tensor<1536xf32, #coco.replicated> {coco.keep_replicated},
                      %m: tensor<1536xf32, #coco.replicated>,
                      %v: tensor<1536xf32, #coco.replicated>,
                      %lr: f32, %bias_correction1: f32, %bias_correction2: f32) {
  %g = coco.all_reduce avg %grad : tensor<1536xf32, #coco.local> -> tensor<1536xf32, #coco.replicated>

  // Clip: g = g * min(1, max_norm / (||g|| + 1e-6)).
  %norm = coco.norm %g : tensor<1536xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  %max_norm = arith.constant dense<1.0> : tensor<f32, #coco.replicated>
  %tiny = arith.constant dense<1.0e-6> : tensor<f32, #coco.replicated>
  %one = arith.constant dense<1.0> : tensor<f32, #coco.replicated>
  %norm_eps = arith.addf %norm, %tiny : tensor<f32, #coco.replicated>
  %ratio = arith.divf %max_norm, %norm_eps : tensor<f32, #coco.replicated>
  %clip = arith.minimumf %ratio, %one : tensor<f32, #coco.replicated>
  %clip_all = coco.expand %clip : tensor<f32, #coco.replicated> -> tensor<1536xf32, #coco.replicated>
  %gc = arith.mulf %g, %clip_all : tensor<1536xf32, #coco.replicated>

  %beta1 = arith.constant dense<0.9> : tensor<1536xf32, #coco.replicated>
  %one_minus_beta1 = arith.constant dense<0.1> : tensor<1536xf32, #coco.replicated>
  %beta2 = arith.constant dense<0.999> : tensor<1536xf32, #coco.replicated>
  %one_minus_beta2 = arith.constant dense<0.001> : tensor<1536xf32, #coco.replicated>
  %eps = arith.constant dense<1.0e-8> : tensor<1536xf32, #coco.replicated>
  %wd = arith.constant dense<0.01> : tensor<1536xf32, #coco.replicated>
  %m_decay = arith.mulf %beta1, %m : tensor<1536xf32, #coco.replicated>
  %m_grad = arith.mulf %one_minus_beta1, %gc : tensor<1536xf32, #coco.replicated>
  %m_new = arith.addf %m_decay, %m_grad : tensor<1536xf32, #coco.replicated>
  %g2 = arith.mulf %gc, %gc : tensor<1536xf32, #coco.replicated>
  %v_decay = arith.mulf %beta2, %v : tensor<1536xf32, #coco.replicated>
  %v_grad = arith.mulf %one_minus_beta2, %g2 : tensor<1536xf32, #coco.replicated>
  %v_new = arith.addf %v_decay, %v_grad : tensor<1536xf32, #coco.replicated>
  %bc1 = tensor.splat %bias_correction1 : tensor<1536xf32, #coco.replicated>
  %bc2 = tensor.splat %bias_correction2 : tensor<1536xf32, #coco.replicated>
  %m_hat = arith.mulf %m_new, %bc1 : tensor<1536xf32, #coco.replicated>
  %v_hat = arith.mulf %v_new, %bc2 : tensor<1536xf32, #coco.replicated>
  %root = math.sqrt %v_hat : tensor<1536xf32, #coco.replicated>
  %denom = arith.addf %root, %eps : tensor<1536xf32, #coco.replicated>
  %adam = arith.divf %m_hat, %denom : tensor<1536xf32, #coco.replicated>
  %decay = arith.mulf %wd, %param : tensor<1536xf32, #coco.replicated>
  %update = arith.addf %adam, %decay : tensor<1536xf32, #coco.replicated>
  %lrs = tensor.splat %lr : tensor<1536xf32, #coco.replicated>
  %step = arith.mulf %lrs, %update : tensor<1536xf32, #coco.replicated>
  %p_new = arith.subf %param, %step : tensor<1536xf32, #coco.replicated>
  coco.update %m, %m_new : tensor<1536xf32, #coco.replicated>
  coco.update %v, %v_new : tensor<1536xf32, #coco.replicated>
  coco.update %param, %p_new : tensor<1536xf32, #coco.replicated>
  return
}
