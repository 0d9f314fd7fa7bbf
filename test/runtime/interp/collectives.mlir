// RUN: coco-run %s --backend reference --ranks 4 --inputs runtime/interp/inputs/collectives --print-values | FileCheck %s
//
// Known answers: rank r holds 10r + [1, 2, 3, 4] (scripts/gen_interp_inputs.py).

// CHECK:      collectives.result0: f32 [4] #coco.replicated
// CHECK-NEXT:   [64, 68, 72, 76]
// CHECK:      collectives.result1: f32 [4] #coco.replicated
// CHECK-NEXT:   [31, 32, 33, 34]
// CHECK:      collectives.result2: f32 [4] #coco.replicated
// CHECK-NEXT:   [16, 17, 18, 19]
// CHECK:      collectives.result3: f32 [4] #coco.sliced<0>
// CHECK-NEXT:   [64, 68, 72, 76]
// CHECK:      collectives.result4: f32 [4] #coco.replicated
// CHECK-NEXT:   [64, 68, 72, 76]
// CHECK:      collectives.result5: f32 [4] #coco.replicated
// CHECK-NEXT:   [21, 22, 23, 24]
// CHECK:      collectives.result6: f32 [4] #coco.local
// CHECK-NEXT:   rank 0: [1, 2, 3, 4]
// CHECK-NEXT:   rank 1: [64, 68, 72, 76]
// CHECK-NEXT:   rank 2: [21, 22, 23, 24]
// CHECK-NEXT:   rank 3: [31, 32, 33, 34]
// CHECK:      collectives.result7: f32 [4] #coco.sliced<0>
// CHECK-NEXT:   [1, 2, 3, 4]
func.func @collectives(%x: tensor<4xf32, #coco.local>)
    -> (tensor<4xf32, #coco.replicated>, tensor<4xf32, #coco.replicated>, tensor<4xf32, #coco.replicated>,
        tensor<4xf32, #coco.sliced<0>>, tensor<4xf32, #coco.replicated>, tensor<4xf32, #coco.replicated>,
        tensor<4xf32, #coco.local>, tensor<4xf32, #coco.sliced<0>>) {
  %sum = coco.all_reduce sum %x : tensor<4xf32, #coco.local> -> tensor<4xf32, #coco.replicated>
  %max = coco.all_reduce max %x : tensor<4xf32, #coco.local> -> tensor<4xf32, #coco.replicated>
  %avg = coco.all_reduce avg %x : tensor<4xf32, #coco.local> -> tensor<4xf32, #coco.replicated>
  %rs = coco.reduce_scatter sum %x : tensor<4xf32, #coco.local> -> tensor<4xf32, #coco.sliced<0>>
  %ag = coco.all_gather %rs : tensor<4xf32, #coco.sliced<0>> -> tensor<4xf32, #coco.replicated>
  %bc = coco.broadcast %x root 2 : tensor<4xf32, #coco.local> -> tensor<4xf32, #coco.replicated>
  %rd = coco.reduce sum %x root 1 : tensor<4xf32, #coco.local> -> tensor<4xf32, #coco.local>
  %mine = coco.reduce_scatter min %x : tensor<4xf32, #coco.local> -> tensor<4xf32, #coco.sliced<0>>
  return %sum, %max, %avg, %rs, %ag, %bc, %rd, %mine
    : tensor<4xf32, #coco.replicated>, tensor<4xf32, #coco.replicated>, tensor<4xf32, #coco.replicated>,
      tensor<4xf32, #coco.sliced<0>>, tensor<4xf32, #coco.replicated>, tensor<4xf32, #coco.replicated>,
      tensor<4xf32, #coco.local>, tensor<4xf32, #coco.sliced<0>>
}
