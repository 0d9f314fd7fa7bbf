// RUN: coco-opt %s --split-input-file --coco-split --verify-diagnostics
// RUN: not coco-opt %s --split-input-file --coco-split=strict=true 2>&1 | FileCheck %s --check-prefix=STRICT
// RUN: not coco-opt %s --coco-split="via=tree" 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not coco-opt %s --coco-split="dim=64" 2>&1 | FileCheck %s --check-prefix=DIM

// STRICT: error: coco-split: not applied to coco.all_reduce: the tensor has rank 0
// OPTION: coco-opt: error: coco-split: option 'via' expects reduce-scatter or reduce-broadcast, found 'tree'
// DIM: coco-opt: error: coco-split: option 'dim' must be between 0 and 63, found 64

func.func @no_split_of_scalar(%loss: tensor<f32, #coco.local>) -> tensor<f32, #coco.replicated> {
  // expected-remark@+1 {{coco-split: not applied to coco.all_reduce: the tensor has rank 0, so there is no dimension 0 to slice the intermediate along}}
  %r = coco.all_reduce sum %loss : tensor<f32, #coco.local> -> tensor<f32, #coco.replicated>
  return %r : tensor<f32, #coco.replicated>
}

// -----

// The other passes leave a program on a mesh as written, and say so.
// expected-remark@+1 {{coco-split: not applied: the program runs on the mesh @grid [dp = 2, tp = 2], and coco-split does not transform collectives over mesh axes yet}}
coco.mesh @grid [dp = 2, tp = 2]
func.func @on_a_mesh(%g: tensor<8xf32, #coco.mesh<{dp = #coco.local, tp = #coco.replicated}>>) -> tensor<8xf32, #coco.replicated> {
  %r = coco.all_reduce sum %g over "dp" : tensor<8xf32, #coco.mesh<{dp = #coco.local, tp = #coco.replicated}>> -> tensor<8xf32, #coco.replicated>
  return %r : tensor<8xf32, #coco.replicated>
}
