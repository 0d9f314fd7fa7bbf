// Stage test of kernel/movement.rs (--emit=kernels). coco.slice of a value
// that is not contiguous per rank is a gather: a linalg.generic with no
// inputs whose body extracts at the sliced coordinate plus %rank times the
// local size (a rank-dependent subview would be a strided memref, which a
// GPU kernel cannot take as a bare pointer). coco.expand is a generic whose
// input map drops the leading dimensions, coco.transpose a
// linalg.transpose of the last two dimensions, and split_heads /
// merge_heads generics whose input maps do the reshape and transpose.
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry slice | FileCheck %s --check-prefix=SLICE2
// RUN: coco-translate %s --emit=kernels --ranks 4 --entry slice | FileCheck %s --check-prefix=SLICE4
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry expand | FileCheck %s --check-prefix=EXPAND
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry transpose | FileCheck %s --check-prefix=TRANSPOSE
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry heads | FileCheck %s --check-prefix=HEADS

// SLICE2: func.func @slice_k0(%p0: memref<4x16xf32> {{.*}}, %p1: memref<4x8xf32> {{.*}}, %rank: index)
// SLICE2: %[[WIDTH:.*]] = arith.constant 8 : index
// SLICE2-NEXT: %[[OFFSET:.*]] = arith.muli %rank, %[[WIDTH]] : index
// SLICE2: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%{{.*}} : tensor<4x8xf32>)
// SLICE2: %gs1 = arith.addi %gl1, %[[OFFSET]] : index
// SLICE2-NEXT: %v = tensor.extract %in0[%gl0, %gs1] : tensor<4x16xf32>
// SLICE2-NOT: extract_slice
// SLICE4: func.func @slice_k0(%p0: memref<4x16xf32> {{.*}}, %p1: memref<4x4xf32> {{.*}}, %rank: index)
// SLICE4: %[[WIDTH:.*]] = arith.constant 4 : index
// SLICE4-NEXT: arith.muli %rank, %[[WIDTH]] : index
func.func @slice(%x: tensor<4x16xf32, #coco.replicated>) -> tensor<4x16xf32, #coco.sliced<1>> {
  %y = coco.slice %x : tensor<4x16xf32, #coco.replicated> -> tensor<4x16xf32, #coco.sliced<1>>
  return %y : tensor<4x16xf32, #coco.sliced<1>>
}

// EXPAND: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%in0 : tensor<16xf32>) outs(%{{.*}} : tensor<4x16xf32>)
// EXPAND-NEXT: ^bb0(%a: f32, %b: f32):
// EXPAND-NEXT: linalg.yield %a : f32
func.func @expand(%b: tensor<16xf32, #coco.replicated>) -> tensor<4x16xf32, #coco.replicated> {
  %y = coco.expand %b : tensor<16xf32, #coco.replicated> -> tensor<4x16xf32, #coco.replicated>
  return %y : tensor<4x16xf32, #coco.replicated>
}

// One of the two batches on each rank.
// TRANSPOSE: linalg.transpose ins(%in0 : tensor<1x4x8xbf16>) outs(%{{.*}} : tensor<1x8x4xbf16>) permutation = [0, 2, 1]
func.func @transpose(%x: tensor<2x4x8xbf16, #coco.sliced<0>>) -> tensor<2x8x4xbf16, #coco.sliced<0>> {
  %y = coco.transpose %x : tensor<2x4x8xbf16, #coco.sliced<0>> -> tensor<2x8x4xbf16, #coco.sliced<0>>
  return %y : tensor<2x8x4xbf16, #coco.sliced<0>>
}

// 4 heads of width 16, two on each rank.
// HEADS: func.func @heads_k0(
// HEADS: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0 * 16 + d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]{{.*}} ins(%in0 : tensor<16x32xf32>) outs(%{{.*}} : tensor<2x16x16xf32>)
// HEADS: func.func @heads_k1(
// HEADS: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1 floordiv 16, d0, d1 mod 16)>, affine_map<(d0, d1) -> (d0, d1)>]{{.*}} ins(%in0 : tensor<2x16x16xf32>) outs(%{{.*}} : tensor<16x32xf32>)
func.func @heads(%x: tensor<16x64xf32, #coco.sliced<1>>) -> tensor<16x64xf32, #coco.sliced<1>> {
  %h = coco.split_heads %x : tensor<16x64xf32, #coco.sliced<1>> -> tensor<4x16x16xf32, #coco.sliced<0>>
  %m = coco.merge_heads %h : tensor<4x16x16xf32, #coco.sliced<0>> -> tensor<16x64xf32, #coco.sliced<1>>
  return %m : tensor<16x64xf32, #coco.sliced<1>>
}
