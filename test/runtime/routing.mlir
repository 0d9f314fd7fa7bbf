// The routing ops on known values, on the interpreter and compiled: argmax
// takes the first largest element and never a NaN (a row with nothing above
// -inf gives 0); max skips NaN and folds from -inf; reductions along one
// dimension keep the others; expand puts operand dimensions where `dims`
// says.
// RUN: coco-run %s --backend reference --print-values | FileCheck %s
// RUN: coco-run %s --backend cpu --ranks 1 --check | FileCheck %s --check-prefix=CPU
// RUN: coco-run %s --backend cpu --ranks 2 --check | FileCheck %s --check-prefix=CPU

// CHECK: routing.result0: i64 [5] #coco.replicated
// CHECK-NEXT: [1, 1, 0, 0, 2]
// CHECK: routing.result1: f32 [5] #coco.replicated
// CHECK-NEXT: [3, 2, -inf, -inf, 5]
// CHECK: routing.result2: f32 [2, 3] #coco.replicated
// CHECK-NEXT: [5, 7, 9, 6, 8, 10]
// CHECK: routing.result3: f32 [3, 2, 2] #coco.replicated
// CHECK-NEXT: [1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4]
// CPU: routing.result0: {{.*}}bitwise equal
// CPU: routing.result1: {{.*}}bitwise equal
// CPU: routing.result2: {{.*}}bitwise equal
// CPU: routing.result3: {{.*}}bitwise equal
func.func @routing() -> (tensor<5xi64, #coco.replicated>, tensor<5xf32, #coco.replicated>,
                         tensor<2x3xf32, #coco.replicated>, tensor<3x2x2xf32, #coco.replicated>) {
  %p = arith.constant dense<[[1.0, 3.0, 3.0], [0x7FC00000, 2.0, 1.0], [0xFF800000, 0xFF800000, 0xFF800000],
                             [0x7FC00000, 0x7FC00000, 0x7FC00000], [-1.0, 0.0, 5.0]]> : tensor<5x3xf32, #coco.replicated>
  %e = coco.argmax %p {dim = 1 : i64} : tensor<5x3xf32, #coco.replicated> -> tensor<5xi64, #coco.replicated>
  %m = coco.reduce_elements max %p {dims = array<i64: 1>} : tensor<5x3xf32, #coco.replicated> -> tensor<5xf32, #coco.replicated>
  // Sum over the middle dimension of [[[1,2,3],[4,5,6]], [[1,2,3],[5,6,7]]] -> [[5,7,9],[6,8,10]].
  %t = arith.constant dense<[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[1.0, 2.0, 3.0], [5.0, 6.0, 7.0]]]> : tensor<2x2x3xf32, #coco.replicated>
  %s = coco.reduce_elements sum %t {dims = array<i64: 1>} : tensor<2x2x3xf32, #coco.replicated> -> tensor<2x3xf32, #coco.replicated>
  // [[1,2],[3,4]] placed in dimensions 1 and 2 of a [3, 2, 2] result.
  %q = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32, #coco.replicated>
  %b = coco.expand %q {dims = array<i64: 1, 2>} : tensor<2x2xf32, #coco.replicated> -> tensor<3x2x2xf32, #coco.replicated>
  return %e, %m, %s, %b : tensor<5xi64, #coco.replicated>, tensor<5xf32, #coco.replicated>,
                          tensor<2x3xf32, #coco.replicated>, tensor<3x2x2xf32, #coco.replicated>
}
