// RUN: coco-opt %s --test-coco-layouts --verify-diagnostics
//
// Layout inference (compiler/dialects/src/coco/rules.rs) on each rule that computes a
// layout rather than checking one.

func.func @megatron(%x: tensor<8x16xf32, #coco.replicated>, %w1: tensor<16x32xf32, #coco.sliced<1>>,
                    %b1: tensor<32xf32, #coco.sliced<0>>, %w2: tensor<32x16xf32, #coco.sliced<0>>) {
  // expected-remark@+1 {{result layout: #coco.sliced<1>}}
  %h = coco.matmul %x, %w1 : tensor<8x16xf32, #coco.replicated>, tensor<16x32xf32, #coco.sliced<1>> -> tensor<8x32xf32, #coco.sliced<1>>
  // expected-remark@+1 {{result layout: #coco.sliced<1>}}
  %b = coco.expand %b1 : tensor<32xf32, #coco.sliced<0>> -> tensor<8x32xf32, #coco.sliced<1>>
  // expected-remark@+1 {{result layout: #coco.local}}
  %p = coco.matmul %h, %w2 : tensor<8x32xf32, #coco.sliced<1>>, tensor<32x16xf32, #coco.sliced<0>> -> tensor<8x16xf32, #coco.local>
  // expected-remark@+1 {{result layout: #coco.replicated}}
  %r = coco.all_reduce sum %p : tensor<8x16xf32, #coco.local> -> tensor<8x16xf32, #coco.replicated>
  // expected-remark@+1 {{result layout: #coco.sliced<d>}}
  %s = coco.reduce_scatter sum %p : tensor<8x16xf32, #coco.local> -> tensor<8x16xf32, #coco.sliced<0>>
  // expected-remark@+1 {{result layout: #coco.local}}
  %partial = coco.reduce_elements max %s : tensor<8x16xf32, #coco.sliced<0>> -> tensor<f32, #coco.local>
  // expected-remark@+1 {{result layout: #coco.sliced<0>}}
  %d = coco.dropout %s prob 0.5 seed 7 : tensor<8x16xf32, #coco.sliced<0>>
  return
}
