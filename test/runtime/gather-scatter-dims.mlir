// coco.gather and coco.scatter_add along a dimension other than 0 (`dim`),
// on known values (numpy.take and numpy.add.at, with the clamp and `drop`
// rules of dimension 0), on the interpreter and compiled: a gather along
// dimension 1 from a source sliced along dimension 2 gathers from each
// rank's slice; with indices sliced<0> along dimension 1, the result is
// sliced<1>.
// RUN: coco-run %s --backend reference --ranks 2 --print-values | FileCheck %s
// RUN: coco-run %s --backend cpu --ranks 1 --check | FileCheck %s --check-prefix=CPU
// RUN: coco-run %s --backend cpu --ranks 2 --check | FileCheck %s --check-prefix=CPU
// RUN: coco-translate %s --emit=ptx --ranks 2 | FileCheck %s --check-prefix=PTX
// PTX: .entry

// CHECK: along.result0: f32 [2, 4, 2] #coco.replicated
// CHECK-NEXT: [5, 6, 1, 2, 5, 6, 1, 2, 11, 12, 7, 8, 11, 12, 7, 8]
// CHECK: along.result1: f32 [2, 3, 3] #coco.replicated
// CHECK-NEXT: [2, 0, 1, 4, 0, 3, 6, 0, 5, 8, 0, 7, 10, 0, 9, 12, 0, 11]
// CHECK: along.result2: f32 [2, 2, 2] #coco.sliced<2>
// CHECK-NEXT: [5, 6, 1, 2, 11, 12, 7, 8]
// CHECK: along.result3: f32 [2, 4, 2] #coco.sliced<1>
// CHECK-NEXT: [5, 6, 1, 2, 3, 4, 5, 6, 11, 12, 7, 8, 9, 10, 11, 12]
// CHECK: along.result4: f32 [2, 3] #coco.replicated
// CHECK-NEXT: [3, 0, 3, 107, 100, 111]
// CHECK: along.result5: f32 [1, 2, 2] #coco.replicated
// CHECK-NEXT: [1, 5, 4, 11]
// CPU-COUNT-6: along.result{{[0-5]}}: {{.*}}bitwise equal
func.func @along() -> (tensor<2x4x2xf32, #coco.replicated>, tensor<2x3x3xf32, #coco.replicated>,
                       tensor<2x2x2xf32, #coco.sliced<2>>, tensor<2x4x2xf32, #coco.sliced<1>>,
                       tensor<2x3xf32, #coco.replicated>, tensor<1x2x2xf32, #coco.replicated>) {
  %src = arith.constant dense<[[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [[7.0, 8.0], [9.0, 10.0], [11.0, 12.0]]]> : tensor<2x3x2xf32, #coco.replicated>
  // 2, 0, then 5 and -1 clamped to 2 and 0.
  %idx = arith.constant dense<[2, 0, 5, -1]> : tensor<4xi64, #coco.replicated>
  %g1 = coco.gather %src[%idx] dim 1 : tensor<2x3x2xf32, #coco.replicated>, tensor<4xi64, #coco.replicated> -> tensor<2x4x2xf32, #coco.replicated>
  // Along the last dimension, 2 is past its end: zeros.
  %idx2 = arith.constant dense<[1, 2, 0]> : tensor<3xi64, #coco.replicated>
  %g2 = coco.gather %src[%idx2] dim 2 drop : tensor<2x3x2xf32, #coco.replicated>, tensor<3xi64, #coco.replicated> -> tensor<2x3x3xf32, #coco.replicated>
  %cols = coco.slice %src : tensor<2x3x2xf32, #coco.replicated> -> tensor<2x3x2xf32, #coco.sliced<2>>
  %two = arith.constant dense<[2, 0]> : tensor<2xi64, #coco.replicated>
  %g3 = coco.gather %cols[%two] dim 1 : tensor<2x3x2xf32, #coco.sliced<2>>, tensor<2xi64, #coco.replicated> -> tensor<2x2x2xf32, #coco.sliced<2>>
  %idx4 = arith.constant dense<[2, 0, 1, 2]> : tensor<4xi64, #coco.replicated>
  %mine = coco.slice %idx4 : tensor<4xi64, #coco.replicated> -> tensor<4xi64, #coco.sliced<0>>
  %g4 = coco.gather %src[%mine] dim 1 : tensor<2x3x2xf32, #coco.replicated>, tensor<4xi64, #coco.sliced<0>> -> tensor<2x4x2xf32, #coco.sliced<1>>
  // Columns 2, 2, 0; 3 is past the end and dropped.
  %dest = arith.constant dense<[[0.0, 0.0, 0.0], [100.0, 100.0, 100.0]]> : tensor<2x3xf32, #coco.replicated>
  %sidx = arith.constant dense<[2, 2, 0, 3]> : tensor<4xi64, #coco.replicated>
  %upd = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32, #coco.replicated>
  %s1 = coco.scatter_add %dest[%sidx], %upd dim 1 drop : tensor<2x3xf32, #coco.replicated>, tensor<4xi64, #coco.replicated>, tensor<2x4xf32, #coco.replicated> -> tensor<2x3xf32, #coco.replicated>
  // -3 clamped to 0.
  %zeros = arith.constant dense<0.0> : tensor<1x2x2xf32, #coco.replicated>
  %sidx2 = arith.constant dense<[-3, 1, 1]> : tensor<3xi64, #coco.replicated>
  %upd2 = arith.constant dense<[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]]> : tensor<1x2x3xf32, #coco.replicated>
  %s2 = coco.scatter_add %zeros[%sidx2], %upd2 dim 2 : tensor<1x2x2xf32, #coco.replicated>, tensor<3xi64, #coco.replicated>, tensor<1x2x3xf32, #coco.replicated> -> tensor<1x2x2xf32, #coco.replicated>
  return %g1, %g2, %g3, %g4, %s1, %s2 : tensor<2x4x2xf32, #coco.replicated>, tensor<2x3x3xf32, #coco.replicated>,
                       tensor<2x2x2xf32, #coco.sliced<2>>, tensor<2x4x2xf32, #coco.sliced<1>>,
                       tensor<2x3xf32, #coco.replicated>, tensor<1x2x2xf32, #coco.replicated>
}
