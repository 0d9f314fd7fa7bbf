// RUN: coco-opt %s | FileCheck %s
// RUN: coco-opt %s | coco-opt | FileCheck %s
// RUN: coco-opt %s --mlir-print-op-generic | coco-opt | FileCheck %s

// A Megatron MLP on a data- x tensor-parallel mesh: the batch is sliced
// over dp, the weights over tp; the row-parallel matmul's partial sums are
// reduced over tp only, the weight gradient over dp only.

#batch = #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.replicated}>
#cols = #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>
#rows = #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<0>}>

// CHECK: coco.mesh @grid [dp = 2, tp = 2]
coco.mesh @grid [dp = 2, tp = 2]

// CHECK-LABEL: func.func @layer
func.func @layer(%x: tensor<8x16xf32, #batch>, %w1: tensor<16x32xf32, #cols>, %w2: tensor<32x16xf32, #rows>)
    -> (tensor<8x16xf32, #batch>, tensor<16x32xf32, #cols>) {
  // CHECK: coco.matmul {{.*}} -> tensor<8x32xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.sliced<1>}>>
  %h = coco.matmul %x, %w1 : tensor<8x16xf32, #batch>, tensor<16x32xf32, #cols> -> tensor<8x32xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.sliced<1>}>>
  %p = coco.matmul %h, %w2 : tensor<8x32xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.sliced<1>}>>, tensor<32x16xf32, #rows> -> tensor<8x16xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.local}>>
  // CHECK: coco.all_reduce sum %{{.*}} over "tp" : tensor<8x16xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.local}>> -> tensor<8x16xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.replicated}>>
  %y = coco.all_reduce sum %p over "tp" : tensor<8x16xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.local}>> -> tensor<8x16xf32, #batch>
  // The weight gradient: x^T h sums over the local batch rows, so it is
  // partial along dp until reduced over dp.
  %xt = coco.transpose %x : tensor<8x16xf32, #batch> -> tensor<16x8xf32, #coco.mesh<{dp = #coco.sliced<1>, tp = #coco.replicated}>>
  %g = coco.matmul %xt, %h : tensor<16x8xf32, #coco.mesh<{dp = #coco.sliced<1>, tp = #coco.replicated}>>, tensor<8x32xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.sliced<1>}>> -> tensor<16x32xf32, #coco.mesh<{dp = #coco.local, tp = #coco.sliced<1>}>>
  // CHECK: coco.all_reduce avg %{{.*}} over "dp"
  %gr = coco.all_reduce avg %g over "dp" : tensor<16x32xf32, #coco.mesh<{dp = #coco.local, tp = #coco.sliced<1>}>> -> tensor<16x32xf32, #cols>
  return %y, %gr : tensor<8x16xf32, #batch>, tensor<16x32xf32, #cols>
}
