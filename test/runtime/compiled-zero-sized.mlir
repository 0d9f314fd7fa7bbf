// A zero-sized dimension: the reference backend runs the program (empty
// outputs), the compiled backends reject it with a located error instead
// of an internal MLIR translation failure (kernels take bare pointers,
// which MLIR gives only non-empty memrefs).
// RUN: coco-run %s --backend reference --ranks 2 | FileCheck %s --check-prefix=REFERENCE
// RUN: not coco-run %s --backend cpu --ranks 2 2>&1 | FileCheck %s
// RUN: not coco-translate %s --emit=ptx 2>&1 | FileCheck %s

// REFERENCE: zero.result0: f32 [4, 0] #coco.replicated
// CHECK: error: {{.*}}compiled-zero-sized.mlir:12:8: tensor<4x0xf32, #coco.replicated>: dimension 1 is 0; zero-sized tensors are not compiled to kernels (run the program with --backend reference)
func.func @zero(%x: tensor<4x0xf32, #coco.replicated>) -> tensor<4x0xf32, #coco.replicated> {
  %y = arith.addf %x, %x : tensor<4x0xf32, #coco.replicated>
  return %y : tensor<4x0xf32, #coco.replicated>
}
