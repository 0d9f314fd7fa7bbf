// Stage test of kernel/elementwise.rs (--emit=kernels): element-wise ops
// that coco-fuse puts in one kernel become ONE linalg.generic over the local
// shape collapsed to one dimension; a splat constant becomes a scalar
// constant in the body and a tensor.splat of a scalar argument a 0-d input
// read through `() -> ()`, so neither takes a buffer of the tensor's shape.
// coco.cast becomes arith.truncf/arith.extf on scalars; a comparison and
// arith.select fuse like any other op, and the i1 value between them stays
// in the body. Without coco-fuse every op is its own kernel.
// RUN: coco-opt %s --coco-fuse | coco-translate - --emit=kernels --ranks 2 --entry three_ops | FileCheck %s --check-prefix=FUSED
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry three_ops | FileCheck %s --check-prefix=UNFUSED
// RUN: coco-opt %s --coco-fuse | coco-translate - --emit=kernels --ranks 2 --entry casts | FileCheck %s --check-prefix=CAST
// RUN: coco-opt %s --coco-fuse | coco-translate - --emit=kernels --ranks 2 --entry select | FileCheck %s --check-prefix=SELECT
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry division | FileCheck %s --check-prefix=DIVISION
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry f64_to_bf16 | FileCheck %s --check-prefix=ODD

// FUSED: func.func @three_ops_k0(%p0: memref<4x8xf32> {{.*}}, %p1: memref<4x8xf32> {{.*}}, %p2: memref<f32> {{.*}}, %p3: memref<4x8xf32> {{.*}}, %rank: index)
// FUSED: tensor.collapse_shape %in0 {{\[\[}}0, 1]] : tensor<4x8xf32> into tensor<32xf32>
// FUSED: linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
// FUSED-SAME: tensor<32xf32>, tensor<32xf32>, tensor<f32>
// FUSED-NEXT: ^bb0(%bx0: f32, %bx1: f32, %bx2: f32, %by0: f32):
// FUSED-NEXT: %[[SUM:.*]] = "arith.addf"(%bx0, %bx1)
// FUSED-NEXT: %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// FUSED-NEXT: %[[TWICE:.*]] = "arith.mulf"(%[[SUM]], %[[TWO]])
// FUSED-NEXT: %[[OUT:.*]] = "arith.subf"(%[[TWICE]], %bx2)
// FUSED-NEXT: linalg.yield %[[OUT]] : f32
// FUSED: tensor.expand_shape {{.*}} output_shape [4, 8] : tensor<32xf32> into tensor<4x8xf32>
// FUSED-NOT: linalg.generic
// FUSED-NOT: func.func

// UNFUSED: func.func @three_ops_k0(
// UNFUSED: func.func @three_ops_k1(
// UNFUSED: func.func @three_ops_k2(
func.func @three_ops(%a: tensor<4x8xf32, #coco.replicated>, %b: tensor<4x8xf32, #coco.replicated>, %s: f32) -> tensor<4x8xf32, #coco.replicated> {
  %two = arith.constant dense<2.0> : tensor<4x8xf32, #coco.replicated>
  %sum = arith.addf %a, %b : tensor<4x8xf32, #coco.replicated>
  %twice = arith.mulf %sum, %two : tensor<4x8xf32, #coco.replicated>
  %ss = tensor.splat %s : tensor<4x8xf32, #coco.replicated>
  %out = arith.subf %twice, %ss : tensor<4x8xf32, #coco.replicated>
  return %out : tensor<4x8xf32, #coco.replicated>
}

// Both results are kernel outputs of one generic; the 1-D local shape
// (64 / 2 ranks) needs no reshape.
// CAST: func.func @casts_k0(%p0: memref<32xf32> {{.*}}, %p1: memref<32xbf16> {{.*}}, %p2: memref<32xf32> {{.*}}, %rank: index)
// CAST-NOT: collapse_shape
// CAST: = linalg.generic
// CAST-SAME: outs(%{{.*}}, %{{.*}} : tensor<32xbf16>, tensor<32xf32>)
// CAST-NEXT: ^bb0(%bx0: f32, %by0: bf16, %by1: f32):
// CAST-NEXT: %[[H:.*]] = arith.truncf %bx0 : f32 to bf16
// CAST-NEXT: %[[W:.*]] = arith.extf %[[H]] : bf16 to f32
// CAST-NEXT: %[[ERR:.*]] = "arith.subf"(%bx0, %[[W]])
// CAST-NEXT: linalg.yield %[[H]], %[[ERR]] : bf16, f32
// CAST-NOT: linalg.generic
func.func @casts(%a: tensor<64xf32, #coco.sliced<0>>) -> (tensor<64xbf16, #coco.sliced<0>>, tensor<64xf32, #coco.sliced<0>>) {
  %h = coco.cast %a : tensor<64xf32, #coco.sliced<0>> -> tensor<64xbf16, #coco.sliced<0>>
  %w = coco.cast %h : tensor<64xbf16, #coco.sliced<0>> -> tensor<64xf32, #coco.sliced<0>>
  %err = arith.subf %a, %w : tensor<64xf32, #coco.sliced<0>>
  return %h, %err : tensor<64xbf16, #coco.sliced<0>>, tensor<64xf32, #coco.sliced<0>>
}

// SELECT: func.func @select_k0(
// SELECT-NOT: xi1>
// SELECT: linalg.generic
// SELECT: %[[LT:.*]] = "arith.cmpf"(%bx0, %bx1) <{{.*}}predicate = 4 : i64}> : (f32, f32) -> i1
// SELECT-NEXT: %[[MIN:.*]] = "arith.select"(%[[LT]], %bx0, %bx1) {{.*}}: (i1, f32, f32) -> f32
// SELECT-NEXT: linalg.yield %[[MIN]] : f32
// SELECT-NOT: linalg.generic
func.func @select(%a: tensor<64xf32, #coco.replicated>, %b: tensor<64xf32, #coco.replicated>) -> tensor<64xf32, #coco.replicated> {
  %lt = arith.cmpf olt, %a, %b : tensor<64xf32, #coco.replicated>
  %min = arith.select %lt, %a, %b : tensor<64xi1, #coco.replicated>, tensor<64xf32, #coco.replicated>
  return %min : tensor<64xf32, #coco.replicated>
}

// Integer division is total (x / 0 = 0, x % 0 = x, MIN / -1 = MIN), as in
// the interpreter: the divisor becomes 1 where divsi would trap, and a
// select picks the defined result. Unsigned division needs only the zero
// check.
// DIVISION: func.func @division_k0(
// DIVISION: %[[Z:.*]] = arith.cmpi eq, %bx1, %[[ZERO:.*]] : i64
// DIVISION: %[[AM:.*]] = arith.cmpi eq, %bx0, %{{.*}} : i64
// DIVISION: %[[BM:.*]] = arith.cmpi eq, %bx1, %{{.*}} : i64
// DIVISION: %[[OV:.*]] = arith.andi %[[AM]], %[[BM]] : i1
// DIVISION: %[[BAD:.*]] = arith.ori %[[Z]], %[[OV]] : i1
// DIVISION: %[[D:.*]] = arith.select %[[BAD]], %{{.*}}, %bx1 : i64
// DIVISION: %[[Q:.*]] = arith.divsi %bx0, %[[D]] : i64
// DIVISION: arith.select %[[Z]], %[[ZERO]], %[[Q]] : i64
// DIVISION: func.func @division_k1(
// DIVISION: %[[UZ:.*]] = arith.cmpi eq, %bx1, %{{.*}} : i32
// DIVISION-NEXT: %[[UD:.*]] = arith.select %[[UZ]], %{{.*}}, %bx1 : i32
// DIVISION-NEXT: %[[R:.*]] = arith.remui %bx0, %[[UD]] : i32
// DIVISION-NEXT: arith.select %[[UZ]], %bx0, %[[R]] : i32
func.func @division(%a: tensor<8xi64, #coco.local>, %b: tensor<8xi64, #coco.local>,
                    %c: tensor<8xi32, #coco.local>, %d: tensor<8xi32, #coco.local>)
    -> (tensor<8xi64, #coco.local>, tensor<8xi32, #coco.local>) {
  %q = arith.divsi %a, %b : tensor<8xi64, #coco.local>
  %r = arith.remui %c, %d : tensor<8xi32, #coco.local>
  return %q, %r : tensor<8xi64, #coco.local>, tensor<8xi32, #coco.local>
}

// f64 to bf16 rounds once: to f32 rounding to odd, then to bf16.
// ODD: %[[T:.*]] = arith.truncf %bx0 : f64 to f32
// ODD: arith.ori
// ODD: %[[F:.*]] = arith.bitcast %{{.*}} : i32 to f32
// ODD-NEXT: arith.truncf %[[F]] : f32 to bf16
func.func @f64_to_bf16(%a: tensor<8xf64, #coco.local>) -> tensor<8xbf16, #coco.local> {
  %h = coco.cast %a : tensor<8xf64, #coco.local> -> tensor<8xbf16, #coco.local>
  return %h : tensor<8xbf16, #coco.local>
}
