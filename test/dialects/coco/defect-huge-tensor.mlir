// RUN: coco-opt %s --split-input-file --verify-diagnostics
//
// Sizes become `index` values and byte offsets in the lowering: a tensor
// of more than 2^63 bytes would wrap there (an [2^33, 2^33] element-wise
// program was an internal error "attempt to multiply with overflow"), so
// the verifier refuses it where it is written.

// expected-error@+1 {{'func.func' op argument #0 (8589934592x8589934592) holds more than 2^63 bytes, beyond what any buffer can address}}
func.func @huge(%x: tensor<8589934592x8589934592xf32, #coco.replicated>) {
  // expected-error@+1 {{'arith.addf' op result #0 (8589934592x8589934592) holds more than 2^63 bytes, beyond what any buffer can address}}
  %y = arith.addf %x, %x : tensor<8589934592x8589934592xf32, #coco.replicated>
  return
}

// -----

// 2^61 f32 elements are 2^63 bytes: one byte too many. 2^60 f64 is the same.
// expected-error@+1 {{'func.func' op argument #0 (2305843009213693952) holds more than 2^63 bytes}}
func.func @edge(%x: tensor<2305843009213693952xf32, #coco.replicated>, %y: tensor<1152921504606846975xf64, #coco.replicated>) {
  // expected-error@+1 {{'arith.negf' op result #0 (2305843009213693952) holds more than 2^63 bytes}}
  %a = arith.negf %x : tensor<2305843009213693952xf32, #coco.replicated>
  // Just below: verifies.
  %b = arith.negf %y : tensor<1152921504606846975xf64, #coco.replicated>
  return
}
