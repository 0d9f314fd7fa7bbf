// RUN: coco-opt %s --split-input-file --coco-fuse="kernels=false" --verify-diagnostics

func.func @no_fusion_without_gather(%g: tensor<64xf32, #coco.local>) -> tensor<64xf32, #coco.sliced<0>> {
  // expected-remark@+1 {{coco-fuse: not fused: no coco.all_gather collects the slices this coco.reduce_scatter produces}}
  %s = coco.reduce_scatter sum %g : tensor<64xf32, #coco.local> -> tensor<64xf32, #coco.sliced<0>>
  %t = arith.mulf %s, %s : tensor<64xf32, #coco.sliced<0>>
  return %t : tensor<64xf32, #coco.sliced<0>>
}

// -----

// Fusing would need the region before the norm (which uses a grouped value)
// and after it (the gather): a cycle.
func.func @no_fusion_across_a_use(%g: tensor<64xf32, #coco.local>) -> (tensor<64xf32, #coco.replicated>, tensor<f32, #coco.local>) {
  // expected-remark@+1 {{coco-fuse: not fused: 'coco.reduce_elements' at}}
  %s = coco.reduce_scatter sum %g : tensor<64xf32, #coco.local> -> tensor<64xf32, #coco.sliced<0>>
  %t = arith.mulf %s, %s : tensor<64xf32, #coco.sliced<0>>
  %n = coco.reduce_elements sum %t : tensor<64xf32, #coco.sliced<0>> -> tensor<f32, #coco.local>
  %r = coco.all_gather %t : tensor<64xf32, #coco.sliced<0>> -> tensor<64xf32, #coco.replicated>
  return %r, %n : tensor<64xf32, #coco.replicated>, tensor<f32, #coco.local>
}

// -----

// On a mesh, fused collectives are not formed (and a remark says so); the
// kernels-only form, fused kernels, is what applies.
// expected-remark@+1 {{coco-fuse: fused collectives not formed: the program runs on the mesh @grid [dp = 2, tp = 2], and coco-fuse does not fuse collectives over mesh axes yet (fused kernels are formed)}}
coco.mesh @grid [dp = 2, tp = 2]
func.func @on_a_mesh(%s: tensor<8xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.replicated}>>) -> tensor<8xf32, #coco.replicated> {
  %g = coco.all_gather %s over "dp" : tensor<8xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.replicated}>> -> tensor<8xf32, #coco.replicated>
  return %g : tensor<8xf32, #coco.replicated>
}
