// RUN: coco-opt %s --split-input-file --coco-overlap | FileCheck %s
// RUN: coco-opt %s --split-input-file --coco-overlap="chunks=8" | FileCheck %s --check-prefix=EIGHT

// CHECK-LABEL: func.func @overlap_matmul_all_reduce
// CHECK-NEXT: %[[O:.*]] = coco.overlap chunks 4 -> tensor<16x32xf32, #coco.replicated> {
// CHECK-NEXT:   %[[P:.*]] = coco.matmul %arg0, %arg1
// CHECK-NEXT:   %[[R:.*]] = coco.all_reduce sum %[[P]]
// CHECK-NEXT:   coco.yield %[[R]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[O]]
// EIGHT: coco.overlap chunks 8
func.func @overlap_matmul_all_reduce(%x: tensor<16x64xf32, #coco.sliced<1>>, %w: tensor<64x32xf32, #coco.sliced<0>>) -> tensor<16x32xf32, #coco.replicated> {
  %p = coco.matmul %x, %w : tensor<16x64xf32, #coco.sliced<1>>, tensor<64x32xf32, #coco.sliced<0>> -> tensor<16x32xf32, #coco.local>
  %r = coco.all_reduce sum %p : tensor<16x32xf32, #coco.local> -> tensor<16x32xf32, #coco.replicated>
  return %r : tensor<16x32xf32, #coco.replicated>
}

// -----

// The consumer may be a fused collective: overlap(MM, fuse(RS_C_AG)).
// CHECK-LABEL: func.func @overlap_matmul_fused_collective
// CHECK: coco.overlap chunks 4
// CHECK-NEXT: coco.matmul
// CHECK-NEXT: coco.fused_collective
func.func @overlap_matmul_fused_collective(%x: tensor<16x64xf32, #coco.sliced<1>>, %w: tensor<64x32xf32, #coco.sliced<0>>) -> tensor<16x32xf32, #coco.replicated> {
  %p = coco.matmul %x, %w : tensor<16x64xf32, #coco.sliced<1>>, tensor<64x32xf32, #coco.sliced<0>> -> tensor<16x32xf32, #coco.local>
  %r = coco.fused_collective -> tensor<16x32xf32, #coco.replicated> {
    %s = coco.reduce_scatter sum %p : tensor<16x32xf32, #coco.local> -> tensor<16x32xf32, #coco.sliced<0>>
    %t = arith.mulf %s, %s : tensor<16x32xf32, #coco.sliced<0>>
    %g = coco.all_gather %t : tensor<16x32xf32, #coco.sliced<0>> -> tensor<16x32xf32, #coco.replicated>
    coco.yield %g : tensor<16x32xf32, #coco.replicated>
  }
  return %r : tensor<16x32xf32, #coco.replicated>
}

// -----

// On a mesh, a matmul overlaps with an all_reduce over one axis: the
// collective reduces each row of ranks element by element, so chunks of
// rows are independent (tensor parallelism inside data parallelism).
// CHECK-LABEL: func.func @overlap_over_axis
// CHECK: coco.overlap chunks 4 -> tensor<8x64xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.replicated}>>
// CHECK-NEXT: coco.matmul
// CHECK-NEXT: coco.all_reduce sum %{{.*}} over "tp"
coco.mesh @grid [dp = 2, tp = 2]
func.func @overlap_over_axis(%h: tensor<8x128xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.sliced<1>}>>,
                             %w: tensor<128x64xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<0>}>>)
    -> tensor<8x64xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.replicated}>> {
  %p = coco.matmul %h, %w : tensor<8x128xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.sliced<1>}>>, tensor<128x64xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<0>}>> -> tensor<8x64xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.local}>>
  %y = coco.all_reduce sum %p over "tp" : tensor<8x64xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.local}>> -> tensor<8x64xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.replicated}>>
  return %y : tensor<8x64xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.replicated}>>
}
