// RUN: coco-opt %s --split-input-file --coco-as-slice | FileCheck %s
// RUN: coco-opt %s --split-input-file --coco-as-slice="keep=0" | FileCheck %s --check-prefix=KEEP

// CHECK-LABEL: func.func @as_slice_moment
// CHECK-SAME: (%[[M:.*]]: tensor<1024xf32, #coco.sliced<0>>, %[[G:.*]]: tensor<1024xf32, #coco.sliced<0>>)
// CHECK-NEXT: %[[N:.*]] = arith.addf %[[M]], %[[G]] : tensor<1024xf32, #coco.sliced<0>>
// CHECK-NEXT: coco.update %[[M]], %[[N]] : tensor<1024xf32, #coco.sliced<0>>
// CHECK-NOT: coco.all_gather
// KEEP-LABEL: func.func @as_slice_moment
// KEEP: coco.slice
func.func @as_slice_moment(%m: tensor<1024xf32, #coco.replicated>, %g: tensor<1024xf32, #coco.sliced<0>>) {
  %ms = coco.slice %m : tensor<1024xf32, #coco.replicated> -> tensor<1024xf32, #coco.sliced<0>>
  %new = arith.addf %ms, %g : tensor<1024xf32, #coco.sliced<0>>
  %full = coco.all_gather %new : tensor<1024xf32, #coco.sliced<0>> -> tensor<1024xf32, #coco.replicated>
  coco.update %m, %full : tensor<1024xf32, #coco.replicated>
  return
}

// -----

// An update with a value that is not a gather is sliced; here that slice is
// then the only use of %r, so %r becomes sliced as well.
// CHECK-LABEL: func.func @as_slice_slices_other_updates
// CHECK-SAME: (%[[M:.*]]: tensor<8x4xf32, #coco.sliced<1>>, %[[R:.*]]: tensor<8x4xf32, #coco.sliced<1>>)
// CHECK-NEXT: coco.update %[[M]], %[[R]] : tensor<8x4xf32, #coco.sliced<1>>
// KEEP-LABEL: func.func @as_slice_slices_other_updates
// KEEP-SAME: tensor<8x4xf32, #coco.replicated>, %{{.*}}: tensor<8x4xf32, #coco.replicated>
func.func @as_slice_slices_other_updates(%m: tensor<8x4xf32, #coco.replicated>, %r: tensor<8x4xf32, #coco.replicated>) -> tensor<8x4xf32, #coco.sliced<1>> {
  %ms = coco.slice %m : tensor<8x4xf32, #coco.replicated> -> tensor<8x4xf32, #coco.sliced<1>>
  coco.update %m, %r : tensor<8x4xf32, #coco.replicated>
  return %ms : tensor<8x4xf32, #coco.sliced<1>>
}
