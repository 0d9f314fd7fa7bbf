// RUN: coco-opt %s --split-input-file --coco-fuse | FileCheck %s
// RUN: coco-opt %s --split-input-file --coco-fuse="kernels=false" | FileCheck %s --check-prefix=NOKERNEL

// CHECK-LABEL: func.func @fuse_rs_c_ag
// CHECK-NEXT: %[[R:.*]] = coco.fused_collective -> tensor<1024xf32, #coco.replicated> {
// CHECK-NEXT:   %[[S:.*]] = coco.reduce_scatter sum %arg0
// CHECK-NEXT:   %[[T:.*]] = arith.mulf %[[S]], %[[S]]
// CHECK-NEXT:   %[[G:.*]] = coco.all_gather %[[T]]
// CHECK-NEXT:   coco.yield %[[G]] : tensor<1024xf32, #coco.replicated>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]
func.func @fuse_rs_c_ag(%g: tensor<1024xf32, #coco.local>) -> tensor<1024xf32, #coco.replicated> {
  %s = coco.reduce_scatter sum %g : tensor<1024xf32, #coco.local> -> tensor<1024xf32, #coco.sliced<0>>
  %t = arith.mulf %s, %s : tensor<1024xf32, #coco.sliced<0>>
  %r = coco.all_gather %t : tensor<1024xf32, #coco.sliced<0>> -> tensor<1024xf32, #coco.replicated>
  return %r : tensor<1024xf32, #coco.replicated>
}

// -----

// Sliced values used after the group (updates of sliced state) are results too.
// CHECK-LABEL: func.func @fuse_exposes_sliced_results
// CHECK: %[[F:.*]]:2 = coco.fused_collective -> tensor<64xf32, #coco.sliced<0>>, tensor<64xf32, #coco.replicated>
// CHECK: coco.update %arg1, %[[F]]#0
// CHECK: return %[[F]]#1
func.func @fuse_exposes_sliced_results(%g: tensor<64xf32, #coco.local>, %m: tensor<64xf32, #coco.sliced<0>>) -> tensor<64xf32, #coco.replicated> {
  %s = coco.reduce_scatter sum %g : tensor<64xf32, #coco.local> -> tensor<64xf32, #coco.sliced<0>>
  %n = arith.addf %m, %s : tensor<64xf32, #coco.sliced<0>>
  %r = coco.all_gather %n : tensor<64xf32, #coco.sliced<0>> -> tensor<64xf32, #coco.replicated>
  coco.update %m, %n : tensor<64xf32, #coco.sliced<0>>
  return %r : tensor<64xf32, #coco.replicated>
}

// -----

// Runs of computations become fused kernels.
// CHECK-LABEL: func.func @fuse_kernel_run
// CHECK-NEXT: %[[K:.*]] = coco.fused_kernel -> tensor<8xf32, #coco.replicated> {
// CHECK-NEXT:   math.sqrt
// CHECK-NEXT:   arith.addf
// CHECK-NEXT:   coco.yield
// CHECK: coco.all_reduce sum %arg1
// NOKERNEL-LABEL: func.func @fuse_kernel_run
// NOKERNEL-NOT: coco.fused_kernel
func.func @fuse_kernel_run(%x: tensor<8xf32, #coco.replicated>, %l: tensor<8xf32, #coco.local>) -> (tensor<8xf32, #coco.replicated>, tensor<8xf32, #coco.replicated>) {
  %a = math.sqrt %x : tensor<8xf32, #coco.replicated>
  %b = arith.addf %a, %x : tensor<8xf32, #coco.replicated>
  %r = coco.all_reduce sum %l : tensor<8xf32, #coco.local> -> tensor<8xf32, #coco.replicated>
  return %b, %r : tensor<8xf32, #coco.replicated>, tensor<8xf32, #coco.replicated>
}

// -----

// On a mesh, the computations between collectives over an axis become a
// fused kernel; no fused collective is formed (a remark at the mesh).
// CHECK-LABEL: func.func @kernels_on_a_mesh
// CHECK: coco.reduce_scatter sum %arg0 over "dp"
// CHECK-NEXT: coco.fused_kernel
// CHECK: coco.all_gather %{{.*}} over "dp"
// CHECK-NOT: coco.fused_collective
// NOKERNEL-LABEL: func.func @kernels_on_a_mesh
// NOKERNEL-NOT: coco.fused_kernel
// NOKERNEL-NOT: coco.fused_collective
coco.mesh @grid [dp = 2, tp = 2]
func.func @kernels_on_a_mesh(%g: tensor<8x4xf32, #coco.mesh<{dp = #coco.local, tp = #coco.sliced<1>}>>) -> tensor<8x4xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>> {
  %s = coco.reduce_scatter sum %g over "dp" : tensor<8x4xf32, #coco.mesh<{dp = #coco.local, tp = #coco.sliced<1>}>> -> tensor<8x4xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.sliced<1>}>>
  %sq = arith.mulf %s, %s : tensor<8x4xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.sliced<1>}>>
  %y = arith.addf %sq, %s : tensor<8x4xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.sliced<1>}>>
  %r = coco.all_gather %y over "dp" : tensor<8x4xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.sliced<1>}>> -> tensor<8x4xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>>
  return %r : tensor<8x4xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>>
}
