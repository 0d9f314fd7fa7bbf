// RUN: coco-opt %s --split-input-file --pass-pipeline='builtin.module(coco-partial-reduce,cse)' | FileCheck %s

// The norm of a gathered tensor: squares of the slice, a partial sum per
// rank, one scalar all_reduce, sqrt. The all_gather is gone.
// CHECK-LABEL: func.func @norm_of_gathered
// CHECK-NOT: coco.all_gather
// CHECK: %[[SQ:.*]] = arith.mulf %arg0, %arg0 : tensor<1024xf32, #coco.sliced<0>>
// CHECK: %[[P:.*]] = coco.reduce_elements sum %[[SQ]] : tensor<1024xf32, #coco.sliced<0>> -> tensor<f32, #coco.local>
// CHECK: %[[T:.*]] = coco.all_reduce sum %[[P]] : tensor<f32, #coco.local> -> tensor<f32, #coco.replicated>
// CHECK: %[[N:.*]] = math.sqrt %[[T]] : tensor<f32, #coco.replicated>
// CHECK-NOT: coco.norm
// CHECK: return %[[N]]
func.func @norm_of_gathered(%s: tensor<1024xf32, #coco.sliced<0>>) -> tensor<f32, #coco.replicated> {
  %g = coco.all_gather %s : tensor<1024xf32, #coco.sliced<0>> -> tensor<1024xf32, #coco.replicated>
  %n = coco.norm %g : tensor<1024xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  return %n : tensor<f32, #coco.replicated>
}

// -----

// A gathered value that something else still reads keeps its gather; a
// 2-D tensor sliced along dimension 1 reduces its slices the same way.
// CHECK-LABEL: func.func @gather_kept_for_other_users
// CHECK: %[[G:.*]] = coco.all_gather %arg0 : tensor<8x16xf64, #coco.sliced<1>> -> tensor<8x16xf64, #coco.replicated>
// CHECK: %[[SQ:.*]] = arith.mulf %arg0, %arg0 : tensor<8x16xf64, #coco.sliced<1>>
// CHECK: coco.reduce_elements sum %[[SQ]] : tensor<8x16xf64, #coco.sliced<1>> -> tensor<f64, #coco.local>
// CHECK: return %[[G]]
func.func @gather_kept_for_other_users(%s: tensor<8x16xf64, #coco.sliced<1>>) -> (tensor<8x16xf64, #coco.replicated>, tensor<f64, #coco.replicated>) {
  %g = coco.all_gather %s : tensor<8x16xf64, #coco.sliced<1>> -> tensor<8x16xf64, #coco.replicated>
  %n = coco.norm %g : tensor<8x16xf64, #coco.replicated> -> tensor<f64, #coco.replicated>
  return %g, %n : tensor<8x16xf64, #coco.replicated>, tensor<f64, #coco.replicated>
}

// -----

// A replicated input the block already slices (LAMB's ||p||, with p kept
// replicated for the forward pass) is reduced on that slice.
// CHECK-LABEL: func.func @norm_of_sliced_input
// CHECK: %[[S:.*]] = coco.slice %arg0 : tensor<64xf32, #coco.replicated> -> tensor<64xf32, #coco.sliced<0>>
// CHECK: %[[SQ:.*]] = arith.mulf %[[S]], %[[S]] : tensor<64xf32, #coco.sliced<0>>
// CHECK: coco.reduce_elements sum %[[SQ]]
// CHECK: coco.all_reduce sum
// CHECK: math.sqrt
func.func @norm_of_sliced_input(%p: tensor<64xf32, #coco.replicated>) -> (tensor<64xf32, #coco.sliced<0>>, tensor<f32, #coco.replicated>) {
  %s = coco.slice %p : tensor<64xf32, #coco.replicated> -> tensor<64xf32, #coco.sliced<0>>
  %n = coco.norm %p : tensor<64xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  return %s, %n : tensor<64xf32, #coco.sliced<0>>, tensor<f32, #coco.replicated>
}

// -----

// Min, max and integer sums keep their kind (exact); a float average sums
// the slices and divides by the element count. Consecutive reductions
// compute their partial results together, then all_reduce back to back
// (one kernel, then the collectives).
// CHECK-LABEL: func.func @reductions
// CHECK: %[[MAX:.*]] = coco.reduce_elements max %arg0 : tensor<64xf16, #coco.sliced<0>> -> tensor<f16, #coco.local>
// CHECK-NEXT: %[[SUM:.*]] = coco.reduce_elements sum %arg1 : tensor<64xi32, #coco.sliced<0>> -> tensor<i32, #coco.local>
// CHECK-NEXT: %[[PART:.*]] = coco.reduce_elements sum %arg2 : tensor<4x16xf32, #coco.sliced<0>> -> tensor<f32, #coco.local>
// CHECK-NEXT: coco.all_reduce max %[[MAX]] : tensor<f16, #coco.local> -> tensor<f16, #coco.replicated>
// CHECK-NEXT: coco.all_reduce sum %[[SUM]] : tensor<i32, #coco.local> -> tensor<i32, #coco.replicated>
// CHECK-NEXT: %[[TOTAL:.*]] = coco.all_reduce sum %[[PART]]
// CHECK-NEXT: %[[COUNT:.*]] = arith.constant dense<6.400000e+01> : tensor<f32, #coco.replicated>
// CHECK-NEXT: arith.divf %[[TOTAL]], %[[COUNT]] : tensor<f32, #coco.replicated>
func.func @reductions(%h: tensor<64xf16, #coco.sliced<0>>, %i: tensor<64xi32, #coco.sliced<0>>, %f: tensor<4x16xf32, #coco.sliced<0>>) -> (tensor<f16, #coco.replicated>, tensor<i32, #coco.replicated>, tensor<f32, #coco.replicated>) {
  %hg = coco.all_gather %h : tensor<64xf16, #coco.sliced<0>> -> tensor<64xf16, #coco.replicated>
  %ig = coco.all_gather %i : tensor<64xi32, #coco.sliced<0>> -> tensor<64xi32, #coco.replicated>
  %fg = coco.all_gather %f : tensor<4x16xf32, #coco.sliced<0>> -> tensor<4x16xf32, #coco.replicated>
  %max = coco.reduce_elements max %hg : tensor<64xf16, #coco.replicated> -> tensor<f16, #coco.replicated>
  %sum = coco.reduce_elements sum %ig : tensor<64xi32, #coco.replicated> -> tensor<i32, #coco.replicated>
  %avg = coco.reduce_elements avg %fg : tensor<4x16xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  return %max, %sum, %avg : tensor<f16, #coco.replicated>, tensor<i32, #coco.replicated>, tensor<f32, #coco.replicated>
}

// -----

// Adafactor's row and column means of gathered squares. The rows are
// sliced, so each rank's row means are its part of the result (one
// all_gather of 64 values instead of 64 x 32); the column means reduce the
// sliced dimension: partial sums of the kept 32 columns, an all_reduce,
// and a division by the 64 rows. Both partial reductions read the slice.
// CHECK-LABEL: func.func @row_and_column_means
// CHECK-NOT: coco.all_gather %arg0
// CHECK-DAG: %[[ROWS:.*]] = coco.reduce_elements avg %arg0 {dims = array<i64: 1>} : tensor<64x32xf32, #coco.sliced<0>> -> tensor<64xf32, #coco.sliced<0>>
// CHECK-DAG: %[[COLS:.*]] = coco.reduce_elements sum %arg0 {dims = array<i64: 0>} : tensor<64x32xf32, #coco.sliced<0>> -> tensor<32xf32, #coco.local>
// CHECK-DAG: %[[R:.*]] = coco.all_gather %[[ROWS]] : tensor<64xf32, #coco.sliced<0>> -> tensor<64xf32, #coco.replicated>
// CHECK-DAG: %[[T:.*]] = coco.all_reduce sum %[[COLS]] : tensor<32xf32, #coco.local> -> tensor<32xf32, #coco.replicated>
// CHECK-DAG: %[[N:.*]] = arith.constant dense<6.400000e+01> : tensor<32xf32, #coco.replicated>
// CHECK-DAG: %[[C:.*]] = arith.divf %[[T]], %[[N]] : tensor<32xf32, #coco.replicated>
// CHECK: return %[[R]], %[[C]]
func.func @row_and_column_means(%s: tensor<64x32xf32, #coco.sliced<0>>) -> (tensor<64xf32, #coco.replicated>, tensor<32xf32, #coco.replicated>) {
  %g = coco.all_gather %s : tensor<64x32xf32, #coco.sliced<0>> -> tensor<64x32xf32, #coco.replicated>
  %rows = coco.reduce_elements avg %g {dims = array<i64: 1>} : tensor<64x32xf32, #coco.replicated> -> tensor<64xf32, #coco.replicated>
  %cols = coco.reduce_elements avg %g {dims = array<i64: 0>} : tensor<64x32xf32, #coco.replicated> -> tensor<32xf32, #coco.replicated>
  return %rows, %cols : tensor<64xf32, #coco.replicated>, tensor<32xf32, #coco.replicated>
}

// -----

// Keeping the sliced dimension needs no partial results, so 16-bit
// elements and every kind qualify; reducing it needs wide floats, as for
// whole-tensor reductions.
// CHECK-LABEL: func.func @sixteen_bit_rows
// CHECK: %[[M:.*]] = coco.reduce_elements max %arg0 {dims = array<i64: 0, 2>} : tensor<4x8x6xbf16, #coco.sliced<1>> -> tensor<8xbf16, #coco.sliced<0>>
// CHECK: coco.all_gather %[[M]] : tensor<8xbf16, #coco.sliced<0>> -> tensor<8xbf16, #coco.replicated>
// CHECK: coco.reduce_elements avg %{{.*}} {dims = array<i64: 1>} : tensor<4x8x6xbf16, #coco.replicated>
func.func @sixteen_bit_rows(%s: tensor<4x8x6xbf16, #coco.sliced<1>>) -> (tensor<8xbf16, #coco.replicated>, tensor<4x6xbf16, #coco.replicated>) {
  %g = coco.all_gather %s : tensor<4x8x6xbf16, #coco.sliced<1>> -> tensor<4x8x6xbf16, #coco.replicated>
  %m = coco.reduce_elements max %g {dims = array<i64: 0, 2>} : tensor<4x8x6xbf16, #coco.replicated> -> tensor<8xbf16, #coco.replicated>
  %a = coco.reduce_elements avg %g {dims = array<i64: 1>} : tensor<4x8x6xbf16, #coco.replicated> -> tensor<4x6xbf16, #coco.replicated>
  return %m, %a : tensor<8xbf16, #coco.replicated>, tensor<4x6xbf16, #coco.replicated>
}

// -----

// On a mesh: the norm of an all_gather over dp is the slice's partial sum
// of squares (local along dp, and along tp where the slice is local too),
// an all_reduce over dp and a square root.
// CHECK-LABEL: func.func @norm_over_axis
// CHECK-NOT: coco.all_gather
// CHECK: %[[SQ:.*]] = arith.mulf %arg0, %arg0 : tensor<8x4xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.replicated}>>
// CHECK: %[[P:.*]] = coco.reduce_elements sum %[[SQ]] : tensor<8x4xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.replicated}>> -> tensor<f32, #coco.mesh<{dp = #coco.local, tp = #coco.replicated}>>
// CHECK: %[[T:.*]] = coco.all_reduce sum %[[P]] over "dp" : tensor<f32, #coco.mesh<{dp = #coco.local, tp = #coco.replicated}>> -> tensor<f32, #coco.replicated>
// CHECK: %[[N:.*]] = math.sqrt %[[T]] : tensor<f32, #coco.replicated>
// CHECK: return %[[N]]
coco.mesh @grid [dp = 2, tp = 2]
func.func @norm_over_axis(%s: tensor<8x4xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.replicated}>>) -> tensor<f32, #coco.replicated> {
  %g = coco.all_gather %s over "dp" : tensor<8x4xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.replicated}>> -> tensor<8x4xf32, #coco.replicated>
  %n = coco.norm %g : tensor<8x4xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  return %n : tensor<f32, #coco.replicated>
}

// -----

// On a mesh, a maximum over an all_gather over tp of a tensor sliced along
// dp too: partial maxima local along both axes, combined over tp only (the
// dp blocks stay apart, as in the original's result).
// CHECK-LABEL: func.func @max_over_inner_axis
// CHECK: %[[P:.*]] = coco.reduce_elements max %arg0 : tensor<8x4xi64, #coco.sliced<0>> -> tensor<i64, #coco.local>
// CHECK: %[[T:.*]] = coco.all_reduce max %[[P]] over "tp" : tensor<i64, #coco.local> -> tensor<i64, #coco.mesh<{dp = #coco.local, tp = #coco.replicated}>>
// CHECK: return %[[T]]
coco.mesh @grid [dp = 2, tp = 2]
func.func @max_over_inner_axis(%s: tensor<8x4xi64, #coco.sliced<0>>) -> tensor<i64, #coco.mesh<{dp = #coco.local, tp = #coco.replicated}>> {
  %g = coco.all_gather %s over "tp" : tensor<8x4xi64, #coco.sliced<0>> -> tensor<8x4xi64, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.replicated}>>
  %m = coco.reduce_elements max %g : tensor<8x4xi64, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.replicated}>> -> tensor<i64, #coco.mesh<{dp = #coco.local, tp = #coco.replicated}>>
  return %m : tensor<i64, #coco.mesh<{dp = #coco.local, tp = #coco.replicated}>>
}
