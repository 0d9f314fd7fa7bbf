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

// Over one mesh axis, the intermediate cannot be sliced along a dimension
// an axis inside that one slices already.
coco.mesh @grid [dp = 2, tp = 2]
func.func @dim_taken(%g: tensor<8x4xf32, #coco.mesh<{dp = #coco.local, tp = #coco.sliced<0>}>>) -> tensor<8x4xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<0>}>> {
  // expected-remark@+1 {{coco-split: not applied to coco.all_reduce: dimension 0 is sliced along axis "tp", inside "dp", so the intermediate cannot be sliced along it over "dp" (choose another with dim=)}}
  %r = coco.all_reduce sum %g over "dp" : tensor<8x4xf32, #coco.mesh<{dp = #coco.local, tp = #coco.sliced<0>}>> -> tensor<8x4xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<0>}>>
  return %r : tensor<8x4xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<0>}>>
}
