// coco.cumsum on known values, on the interpreter and compiled (bitwise):
// an MoE's slot of each token in its expert is the running count of the
// tokens routed there before it (minus one); floats sum from zero in index
// order, rounding each step; a tensor sliced along another dimension sums
// each rank's part.
// RUN: coco-run %s --backend reference --ranks 2 --print-values | FileCheck %s
// RUN: coco-run %s --backend cpu --ranks 1 --check | FileCheck %s --check-prefix=CPU
// RUN: coco-run %s --backend cpu --ranks 2 --check | FileCheck %s --check-prefix=CPU
// RUN: coco-translate %s --emit=ptx --ranks 2 | FileCheck %s --check-prefix=PTX

// CHECK: scan.result0: i64 [5, 3] #coco.replicated
// CHECK-NEXT: [1, 0, 0, 1, 1, 0, 2, 1, 0, 2, 1, 1, 3, 1, 1]
// CHECK: scan.result1: f32 [2, 4] #coco.sliced<0>
// CHECK-NEXT: [0.5, 0.75, 1.75, -0.25, 1, 3, 6, 10]
// CPU: scan.result0: {{.*}}bitwise equal
// CPU: scan.result1: {{.*}}bitwise equal
// PTX: .entry

func.func @scan() -> (tensor<5x3xi64, #coco.replicated>, tensor<2x4xf32, #coco.sliced<0>>) {
  // Five tokens routed to experts 0, 1, 0, 2, 0 (one-hot rows).
  %onehot = arith.constant dense<[[1, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1], [1, 0, 0]]> : tensor<5x3xi64, #coco.replicated>
  %count = coco.cumsum %onehot dim 0 : tensor<5x3xi64, #coco.replicated> -> tensor<5x3xi64, #coco.replicated>
  %x = arith.constant dense<[[0.5, 0.25, 1.0, -2.0], [1.0, 2.0, 3.0, 4.0]]> : tensor<2x4xf32, #coco.replicated>
  %xs = coco.slice %x : tensor<2x4xf32, #coco.replicated> -> tensor<2x4xf32, #coco.sliced<0>>
  %run = coco.cumsum %xs dim 1 : tensor<2x4xf32, #coco.sliced<0>> -> tensor<2x4xf32, #coco.sliced<0>>
  return %count, %run : tensor<5x3xi64, #coco.replicated>, tensor<2x4xf32, #coco.sliced<0>>
}
