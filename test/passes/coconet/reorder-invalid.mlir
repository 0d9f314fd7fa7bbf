// RUN: coco-opt %s --split-input-file --coco-reorder --verify-diagnostics

func.func @no_reorder_into_reduction(%s: tensor<64xf32, #coco.sliced<0>>) -> tensor<f32, #coco.replicated> {
  // expected-remark@+1 {{coco-reorder: not applied to coco.all_gather: no element-wise computation with replicated operands of the same shape consumes its result}}
  %g = coco.all_gather %s : tensor<64xf32, #coco.sliced<0>> -> tensor<64xf32, #coco.replicated>
  %n = coco.norm %g : tensor<64xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  return %n : tensor<f32, #coco.replicated>
}

// -----

func.func @no_reorder_into_matmul(%s: tensor<8x16xf32, #coco.sliced<0>>, %w: tensor<16x4xf32, #coco.replicated>) -> tensor<8x4xf32, #coco.replicated> {
  // expected-remark@+1 {{coco-reorder: not applied to coco.all_gather}}
  %g = coco.all_gather %s : tensor<8x16xf32, #coco.sliced<0>> -> tensor<8x16xf32, #coco.replicated>
  %m = coco.matmul %g, %w : tensor<8x16xf32, #coco.replicated>, tensor<16x4xf32, #coco.replicated> -> tensor<8x4xf32, #coco.replicated>
  return %m : tensor<8x4xf32, #coco.replicated>
}

// -----

// Passes that do not transform collectives over mesh axes leave a program on
// a mesh as written, and say so.
// expected-remark@+1 {{coco-reorder: not applied: the program runs on the mesh @grid [dp = 2, tp = 2], and coco-reorder does not transform collectives over mesh axes yet}}
coco.mesh @grid [dp = 2, tp = 2]
func.func @on_a_mesh(%s: tensor<8xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.replicated}>>) -> tensor<8xf32, #coco.replicated> {
  %g = coco.all_gather %s over "dp" : tensor<8xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.replicated}>> -> tensor<8xf32, #coco.replicated>
  %y = arith.mulf %g, %g : tensor<8xf32, #coco.replicated>
  return %y : tensor<8xf32, #coco.replicated>
}
