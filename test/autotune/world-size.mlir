// The autotuner plans for the rank count it is asked for: a schedule that
// slices a dimension those ranks do not divide cannot run there, so it is
// reported with the reason and never chosen (before, this RMSProp of 1000
// elements tuned for 3 ranks chose fuse(RS_C_AG+as-slice), which failed at
// run time: "world size 3 does not divide dimension 0").
// RUN: coco-opt %s --coco-autotune=cpu-host --autotune-ranks=3 --autotune-report 2>&1 >/dev/null | FileCheck %s
// RUN: coco-opt %s --coco-autotune=cpu-host --autotune-ranks=3 -o %t
// RUN: coco-run %t --backend cpu --ranks 3 --check --exact-reductions | FileCheck %s --check-prefix=RUNS
// RUN: coco-opt %s --coco-autotune=cpu-host --autotune-ranks=4 --autotune-report 2>&1 >/dev/null | FileCheck %s --check-prefix=FOUR

// CHECK: rejected: cannot run on 3 ranks: {{.*}}dimension 0 of size 1000 is sliced over 3 ranks, which does not divide it
// CHECK: chosen: fuse-kernels(AR_C)
// RUNS: rmsprop.arg1: bitwise equal
// RUNS: rmsprop.arg2: bitwise equal
// FOUR-NOT: rejected
// FOUR: chosen: fuse(RS_C_AG+as-slice)

func.func @rmsprop(%grad: tensor<1000xf32, #coco.local>,
                   %param: tensor<1000xf32, #coco.replicated> {coco.keep_replicated},
                   %sq: tensor<1000xf32, #coco.replicated>) {
  %g = coco.all_reduce avg %grad : tensor<1000xf32, #coco.local> -> tensor<1000xf32, #coco.replicated>
  %rho = arith.constant dense<0.9> : tensor<1000xf32, #coco.replicated>
  %one_minus = arith.constant dense<0.1> : tensor<1000xf32, #coco.replicated>
  %lr = arith.constant dense<0.01> : tensor<1000xf32, #coco.replicated>
  %eps = arith.constant dense<1.0e-8> : tensor<1000xf32, #coco.replicated>
  %a = arith.mulf %rho, %sq : tensor<1000xf32, #coco.replicated>
  %g2 = arith.mulf %g, %g : tensor<1000xf32, #coco.replicated>
  %b = arith.mulf %one_minus, %g2 : tensor<1000xf32, #coco.replicated>
  %sq_new = arith.addf %a, %b : tensor<1000xf32, #coco.replicated>
  %root = math.sqrt %sq_new : tensor<1000xf32, #coco.replicated>
  %den = arith.addf %root, %eps : tensor<1000xf32, #coco.replicated>
  %step = arith.divf %g, %den : tensor<1000xf32, #coco.replicated>
  %scaled = arith.mulf %lr, %step : tensor<1000xf32, #coco.replicated>
  %p_new = arith.subf %param, %scaled : tensor<1000xf32, #coco.replicated>
  coco.update %sq, %sq_new : tensor<1000xf32, #coco.replicated>
  coco.update %param, %p_new : tensor<1000xf32, #coco.replicated>
  return
}
