// coco.gather and coco.scatter_add on known values, on the interpreter and
// compiled: indices are clamped to the rows; repeated indices accumulate in
// index order; a gather with sliced indices gathers each rank's rows; with
// `drop`, an index outside the rows reads zeros and adds nothing (an MoE's
// tokens past an expert's capacity).
// RUN: coco-run %s --backend reference --ranks 2 --print-values | FileCheck %s
// RUN: coco-run %s --backend cpu --ranks 1 --check | FileCheck %s --check-prefix=CPU
// RUN: coco-run %s --backend cpu --ranks 2 --check | FileCheck %s --check-prefix=CPU
// RUN: coco-translate %s --emit=ptx --ranks 2 | FileCheck %s --check-prefix=PTX
// PTX: .entry

// CHECK: indexed.result0: f32 [4, 2] #coco.replicated
// CHECK-NEXT: [5, 6, 1, 2, 1, 2, 5, 6]
// CHECK: indexed.result1: f32 [3, 2] #coco.replicated
// CHECK-NEXT: [7, 8, 14, 16, 5.5, 6.5]
// CHECK: indexed.result2: f32 [4, 2] #coco.sliced<0>
// CHECK-NEXT: [5, 6, 1, 2, 1, 2, 5, 6]
// CHECK: indexed.result3: f32 [4, 2] #coco.replicated
// CHECK-NEXT: [5, 6, 1, 2, 0, 0, 0, 0]
// CHECK: indexed.result4: f32 [3, 2] #coco.replicated
// CHECK-NEXT: [7, 8, 14, 16, 0.5, 0.5]
// CPU: indexed.result0: {{.*}}bitwise equal
// CPU: indexed.result1: {{.*}}bitwise equal
// CPU: indexed.result2: {{.*}}bitwise equal
// CPU: indexed.result3: {{.*}}bitwise equal
// CPU: indexed.result4: {{.*}}bitwise equal
func.func @indexed() -> (tensor<4x2xf32, #coco.replicated>, tensor<3x2xf32, #coco.replicated>, tensor<4x2xf32, #coco.sliced<0>>,
                         tensor<4x2xf32, #coco.replicated>, tensor<3x2xf32, #coco.replicated>) {
  %src = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32, #coco.replicated>
  // 2, 0, then -5 and 9 clamped to 0 and 2.
  %idx = arith.constant dense<[2, 0, -5, 9]> : tensor<4xi64, #coco.replicated>
  %g = coco.gather %src[%idx] : tensor<3x2xf32, #coco.replicated>, tensor<4xi64, #coco.replicated> -> tensor<4x2xf32, #coco.replicated>
  %dest = arith.constant dense<[[0.0, 0.0], [10.0, 10.0], [0.5, 0.5]]> : tensor<3x2xf32, #coco.replicated>
  // Rows 1, 1, 2 (7 clamped) and 0.
  %sidx = arith.constant dense<[1, 1, 7, 0]> : tensor<4xi64, #coco.replicated>
  %upd = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32, #coco.replicated>
  %s = coco.scatter_add %dest[%sidx], %upd : tensor<3x2xf32, #coco.replicated>, tensor<4xi64, #coco.replicated>, tensor<4x2xf32, #coco.replicated> -> tensor<3x2xf32, #coco.replicated>
  %mine = coco.slice %idx : tensor<4xi64, #coco.replicated> -> tensor<4xi64, #coco.sliced<0>>
  %gs = coco.gather %src[%mine] : tensor<3x2xf32, #coco.replicated>, tensor<4xi64, #coco.sliced<0>> -> tensor<4x2xf32, #coco.sliced<0>>
  %gd = coco.gather %src[%idx] drop : tensor<3x2xf32, #coco.replicated>, tensor<4xi64, #coco.replicated> -> tensor<4x2xf32, #coco.replicated>
  %sd = coco.scatter_add %dest[%sidx], %upd drop : tensor<3x2xf32, #coco.replicated>, tensor<4xi64, #coco.replicated>, tensor<4x2xf32, #coco.replicated> -> tensor<3x2xf32, #coco.replicated>
  return %g, %s, %gs, %gd, %sd : tensor<4x2xf32, #coco.replicated>, tensor<3x2xf32, #coco.replicated>, tensor<4x2xf32, #coco.sliced<0>>,
                                 tensor<4x2xf32, #coco.replicated>, tensor<3x2xf32, #coco.replicated>
}
