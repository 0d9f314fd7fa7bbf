// RUN: coco-opt %s --split-input-file --coco-partial-reduce --verify-diagnostics

// coco.norm accumulates 16-bit elements in f32: a 16-bit partial result per
// slice would round where the original does not.
func.func @no_partial_norm_of_f16(%s: tensor<64xf16, #coco.sliced<0>>) -> tensor<f16, #coco.replicated> {
  %g = coco.all_gather %s : tensor<64xf16, #coco.sliced<0>> -> tensor<64xf16, #coco.replicated>
  // expected-remark@+1 {{coco-partial-reduce: not applied to coco.norm: a norm of f16 elements accumulates in f32, which per-slice f16 partial results cannot reproduce (f32 and f64 only)}}
  %n = coco.norm %g : tensor<64xf16, #coco.replicated> -> tensor<f16, #coco.replicated>
  return %n : tensor<f16, #coco.replicated>
}

// -----

// Slicing an input that is nowhere sliced would add a divisibility
// requirement on the world size: left alone.
func.func @no_slice_available(%p: tensor<64xf32, #coco.replicated>) -> tensor<f32, #coco.replicated> {
  // expected-remark@+1 {{coco-partial-reduce: not applied to coco.norm: no slice of its operand is available (it is neither an all_gather's result nor sliced in this block)}}
  %n = coco.norm %p : tensor<64xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  return %n : tensor<f32, #coco.replicated>
}

// -----

func.func @no_partial_of_local(%x: tensor<64xf32, #coco.local>) -> tensor<f32, #coco.local> {
  // expected-remark@+1 {{coco-partial-reduce: not applied to coco.reduce_elements: its operand is #coco.local, not #coco.replicated}}
  %r = coco.reduce_elements sum %x : tensor<64xf32, #coco.local> -> tensor<f32, #coco.local>
  return %r : tensor<f32, #coco.local>
}

// -----

func.func @no_integer_average(%s: tensor<64xi64, #coco.sliced<0>>) -> tensor<i64, #coco.replicated> {
  %g = coco.all_gather %s : tensor<64xi64, #coco.sliced<0>> -> tensor<64xi64, #coco.replicated>
  // expected-remark@+1 {{coco-partial-reduce: not applied to coco.reduce_elements: an average of i64 elements rounds per slice (f32 and f64 only)}}
  %r = coco.reduce_elements avg %g : tensor<64xi64, #coco.replicated> -> tensor<i64, #coco.replicated>
  return %r : tensor<i64, #coco.replicated>
}
