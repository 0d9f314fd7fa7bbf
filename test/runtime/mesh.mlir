// Collectives over one axis of a [dp = 2, tp = 2] mesh on the reference
// interpreter, against answers computed with numpy from the same seeded
// inputs (integers, so exact): a data- and tensor-parallel matmul gathered
// over tp, its column sums reduced over dp, and a per-replica gradient
// (local along dp, sliced along tp) all-reduced and reduce-scattered over dp.
// RUN: coco-run %s --backend reference --ranks 4 --seed 3 --input 'x=uniform(0,5)' --input 'w=uniform(0,5)' --input 'g=uniform(-9,10)' --print-values | FileCheck %s
// RUN: not coco-run %s --backend reference --ranks 8 2>&1 | FileCheck %s --check-prefix=SIZE

// numpy: h = x @ w, h.sum(0), g.sum(0) over the two replicas' g.
// CHECK: mesh.result0: i64 [4] #coco.replicated
// CHECK-NEXT: [63, 52, 68, 14]
// CHECK: mesh.result1: i64 [4, 4]
// CHECK-NEXT: [7, 8, 10, 2, 32, 18, 24, 8, 16, 14, 18, 4, 8, 12, 16, 0]
// CHECK: mesh.result2: i64 [2, 4]
// CHECK-NEXT: [-8, 4, -8, -9, -3, -9, 2, -7]
// CHECK: mesh.result3: i64 [2, 4]
// CHECK-NEXT: [-8, 4, -8, -9, -3, -9, 2, -7]
// A slice along the inner axis: each tp rank keeps half of its dp block.
// CHECK: mesh.result4: i64 [4, 4] #coco.sliced<0>
// CHECK-NEXT: [7, 8, 10, 2, 32, 18, 24, 8, 16, 14, 18, 4, 8, 12, 16, 0]

#batch = #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.replicated}>
#cols = #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>
#blocks = #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.sliced<1>}>
#replica_grads = #coco.mesh<{dp = #coco.local, tp = #coco.sliced<1>}>

// SIZE: error: {{.*}}mesh.mlir:[[@LINE+1]]:1: the mesh @grid [dp = 2, tp = 2] spans 4 ranks, but the world has 8; run on 4 ranks
coco.mesh @grid [dp = 2, tp = 2]

func.func @mesh(%x: tensor<4x3xi64, #batch>, %w: tensor<3x4xi64, #cols>, %g: tensor<2x4xi64, #replica_grads>)
    -> (tensor<4xi64, #coco.replicated>, tensor<4x4xi64, #batch>, tensor<2x4xi64, #cols>,
        tensor<2x4xi64, #blocks>, tensor<4x4xi64, #coco.sliced<0>>) {
  %h = coco.matmul %x, %w : tensor<4x3xi64, #batch>, tensor<3x4xi64, #cols> -> tensor<4x4xi64, #blocks>
  %rows = coco.all_gather %h over "tp" : tensor<4x4xi64, #blocks> -> tensor<4x4xi64, #batch>
  %part = coco.reduce_elements sum %rows {dims = array<i64: 0>} : tensor<4x4xi64, #batch> -> tensor<4xi64, #coco.mesh<{dp = #coco.local, tp = #coco.replicated}>>
  %sums = coco.all_reduce sum %part over "dp" : tensor<4xi64, #coco.mesh<{dp = #coco.local, tp = #coco.replicated}>> -> tensor<4xi64, #coco.replicated>
  %gsum = coco.all_reduce sum %g over "dp" : tensor<2x4xi64, #replica_grads> -> tensor<2x4xi64, #cols>
  %gscatter = coco.reduce_scatter sum %g over "dp" : tensor<2x4xi64, #replica_grads> -> tensor<2x4xi64, #blocks>
  %quarters = coco.slice %rows : tensor<4x4xi64, #batch> -> tensor<4x4xi64, #coco.sliced<0>>
  return %sums, %rows, %gsum, %gscatter, %quarters : tensor<4xi64, #coco.replicated>, tensor<4x4xi64, #batch>, tensor<2x4xi64, #cols>, tensor<2x4xi64, #blocks>, tensor<4x4xi64, #coco.sliced<0>>
}
