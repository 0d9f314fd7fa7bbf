// A bool .npy whose bytes are other than 0 and 1 (inputs/bool-bytes holds
// 0, 1, 2, 255): numpy reads every nonzero byte as True, and so does coco,
// on every backend. The native kernels assume 0 or 1, so the reader gives
// them exactly that; before, extui gave 2 and 255 on the cpu backend, 1 in
// the interpreter, and the job still exited 0.
// RUN: coco-run %s --backend reference --inputs tools/coco-run/inputs/bool-bytes --print-values | FileCheck %s
// RUN: coco-run %s --backend cpu --inputs tools/coco-run/inputs/bool-bytes --check | FileCheck %s --check-prefix=CPU

// CHECK:      flags.result0: i64 [4] #coco.replicated
// CHECK-NEXT:   [0, 1, 1, 1]
// CHECK:      flags.result1: i1 [4] #coco.replicated
// CHECK-NEXT:   [1, 0, 0, 0]

// CPU: flags.result0: bitwise equal
// CPU: flags.result1: bitwise equal
func.func @flags(%b: tensor<4xi1, #coco.replicated>) -> (tensor<4xi64, #coco.replicated>, tensor<4xi1, #coco.replicated>) {
  %e = arith.extui %b : tensor<4xi1, #coco.replicated> to tensor<4xi64, #coco.replicated>
  %t = arith.constant dense<true> : tensor<4xi1, #coco.replicated>
  %n = arith.xori %b, %t : tensor<4xi1, #coco.replicated>
  return %e, %n : tensor<4xi64, #coco.replicated>, tensor<4xi1, #coco.replicated>
}
