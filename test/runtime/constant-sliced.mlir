// A non-splat constant with a sliced layout would need each rank's part
// cut out of it; the compiled route says how to write it instead.
// RUN: not coco-run %s --backend cpu --ranks 2 2>&1 | FileCheck %s

// CHECK: coco-run: error: {{.*}}constant-sliced.mlir:[[@LINE+2]]:8: a non-splat constant is compiled when it is #coco.replicated or #coco.local; declare it replicated and coco.slice it
func.func @sliced_constant(%x: tensor<4xf32, #coco.sliced<0>>) -> tensor<4xf32, #coco.sliced<0>> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32, #coco.sliced<0>>
  %y = arith.addf %x, %c : tensor<4xf32, #coco.sliced<0>>
  return %y : tensor<4xf32, #coco.sliced<0>>
}
