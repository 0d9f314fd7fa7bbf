// RUN: not coco-run %s --backend reference --ranks 3 2>&1 | FileCheck %s --check-prefix=WORLD
// RUN: not coco-run %s --backend cpu --ranks 3 2>&1 | FileCheck %s --check-prefix=WORLD
// RUN: not coco-run %s --backend reference --ranks 2 --inputs runtime/interp/inputs/bad-shape 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not coco-run %s --backend reference --ranks 2 --inputs runtime/interp/inputs/collectives 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: coco-run %s --backend reference --list-inputs | FileCheck %s --check-prefix=LIST

// WORLD: coco-run: error: runtime/interp/errors.mlir:11:1: argument 0: dimension 0 of size 4 is sliced over 3 ranks, which does not divide it
// SHAPE: coco-run: error: input 'shapes.arg0': runtime/interp/inputs/bad-shape/shapes.arg0.npy has shape [3], the program expects [4]
// MISSING: coco-run: error: missing input 'shapes.arg0': expected runtime/interp/inputs/collectives/shapes.arg0.npy (f32 [4] #coco.sliced<0>)
// LIST: shapes.arg0 (%x): f32 [4] #coco.sliced<0>
func.func @shapes(%x: tensor<4xf32, #coco.sliced<0>>) -> tensor<4xf32, #coco.replicated> {
  %g = coco.all_gather %x : tensor<4xf32, #coco.sliced<0>> -> tensor<4xf32, #coco.replicated>
  return %g : tensor<4xf32, #coco.replicated>
}
