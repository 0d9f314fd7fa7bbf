// RUN: coco-opt %s --split-input-file --coco-as-slice --verify-diagnostics
// RUN: not coco-opt %s --coco-as-slice="keep=x" 2>&1 | FileCheck %s --check-prefix=OPTION

// OPTION: coco-opt: error: coco-as-slice: option 'keep' expects argument positions like 1,3, found 'x'

// expected-remark@+1 {{coco-as-slice: not applied to argument #0: 'math.sqrt' (at}}
func.func @no_as_slice_when_used_whole(%p: tensor<64xf32, #coco.replicated>) -> tensor<64xf32, #coco.replicated> {
  %ps = coco.slice %p : tensor<64xf32, #coco.replicated> -> tensor<64xf32, #coco.sliced<0>>
  %q = math.sqrt %p : tensor<64xf32, #coco.replicated>
  coco.update %p, %q : tensor<64xf32, #coco.replicated>
  return %q : tensor<64xf32, #coco.replicated>
}

// -----

// expected-remark@+1 {{coco-as-slice: not applied to argument #0: 'coco.slice'}}
func.func @no_as_slice_with_two_dimensions(%p: tensor<8x8xf32, #coco.replicated>) -> (tensor<8x8xf32, #coco.sliced<0>>, tensor<8x8xf32, #coco.sliced<1>>) {
  %a = coco.slice %p : tensor<8x8xf32, #coco.replicated> -> tensor<8x8xf32, #coco.sliced<0>>
  %b = coco.slice %p : tensor<8x8xf32, #coco.replicated> -> tensor<8x8xf32, #coco.sliced<1>>
  return %a, %b : tensor<8x8xf32, #coco.sliced<0>>, tensor<8x8xf32, #coco.sliced<1>>
}

// -----

// coco-as-slice leaves a program on a mesh as written, and says so.
// expected-remark@+1 {{coco-as-slice: not applied: the program runs on the mesh @grid [dp = 2, tp = 2], and coco-as-slice does not transform collectives over mesh axes yet}}
coco.mesh @grid [dp = 2, tp = 2]
func.func @on_a_mesh(%w: tensor<8xf32, #coco.replicated>) -> tensor<8xf32, #coco.sliced<0>> {
  %s = coco.slice %w : tensor<8xf32, #coco.replicated> -> tensor<8xf32, #coco.sliced<0>>
  return %s : tensor<8xf32, #coco.sliced<0>>
}
