// RUN: coco-opt %s --split-input-file --coco-overlap="chunks=3" --verify-diagnostics
// RUN: not coco-opt %s --coco-overlap="chunks=0" 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not coco-opt %s --coco-overlap="chunks=1025" 2>&1 | FileCheck %s --check-prefix=TOO-MANY

// OPTION: coco-opt: error: coco-overlap: option 'chunks' must be between 1 and 1024, found 0
// TOO-MANY: coco-opt: error: coco-overlap: option 'chunks' must be between 1 and 1024, found 1025

func.func @rows_not_divisible(%x: tensor<16x64xf32, #coco.sliced<1>>, %w: tensor<64x32xf32, #coco.sliced<0>>) -> tensor<16x32xf32, #coco.replicated> {
  // expected-remark@+1 {{coco-overlap: not applied to coco.matmul: its 16 rows do not split into 3 chunks}}
  %p = coco.matmul %x, %w : tensor<16x64xf32, #coco.sliced<1>>, tensor<64x32xf32, #coco.sliced<0>> -> tensor<16x32xf32, #coco.local>
  %r = coco.all_reduce sum %p : tensor<16x32xf32, #coco.local> -> tensor<16x32xf32, #coco.replicated>
  return %r : tensor<16x32xf32, #coco.replicated>
}

// -----

func.func @result_used_twice(%x: tensor<12x64xf32, #coco.sliced<1>>, %w: tensor<64x32xf32, #coco.sliced<0>>) -> (tensor<12x32xf32, #coco.replicated>, tensor<12x32xf32, #coco.local>) {
  // expected-remark@+1 {{coco-overlap: not applied to coco.matmul: its result has uses other than one collective}}
  %p = coco.matmul %x, %w : tensor<12x64xf32, #coco.sliced<1>>, tensor<64x32xf32, #coco.sliced<0>> -> tensor<12x32xf32, #coco.local>
  %r = coco.all_reduce sum %p : tensor<12x32xf32, #coco.local> -> tensor<12x32xf32, #coco.replicated>
  return %r, %p : tensor<12x32xf32, #coco.replicated>, tensor<12x32xf32, #coco.local>
}

// -----

// all_to_all is a collective, just not one this pass overlaps.
func.func @feeds_all_to_all(%x: tensor<12x64xf32, #coco.sliced<0>>, %w: tensor<64x32xf32, #coco.replicated>) -> tensor<12x32xf32, #coco.sliced<1>> {
  // expected-remark@+1 {{coco-overlap: not applied to coco.matmul: its result feeds 'coco.all_to_all', a collective this pass does not overlap (it overlaps a matmul with coco.all_reduce, coco.reduce_scatter or coco.fused_collective)}}
  %p = coco.matmul %x, %w : tensor<12x64xf32, #coco.sliced<0>>, tensor<64x32xf32, #coco.replicated> -> tensor<12x32xf32, #coco.sliced<0>>
  %t = coco.all_to_all %p : tensor<12x32xf32, #coco.sliced<0>> -> tensor<12x32xf32, #coco.sliced<1>>
  return %t : tensor<12x32xf32, #coco.sliced<1>>
}
