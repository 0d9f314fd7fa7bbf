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

