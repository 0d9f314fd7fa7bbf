// Arithmetic on builtin scalars and non-splat constants on the compiled
// route, bitwise against the interpreter (GEMMs with --gemm-arithmetic
// ordered, the interpreter's rounding). Scalar ops are recomputed by every
// kernel that reads them (as splat constants are), and a free value that a
// collective, an update or the return reads gets a kernel that stores it.
// RUN: coco-run %s --backend cpu --ranks 2 --seed 5 --check --exact-reductions --gemm-arithmetic ordered | FileCheck %s
// RUN: coco-run %s --backend cpu --ranks 1 --seed 6 --check --gemm-arithmetic ordered | FileCheck %s

// CHECK: scalars.result0: {{.*}}bitwise equal
// CHECK: scalars.result1: {{.*}}bitwise equal
// CHECK: scalars.result2: {{.*}}bitwise equal
// CHECK: scalars.result3: {{.*}}bitwise equal
// CHECK: scalars.result4: {{.*}}bitwise equal
// CHECK: scalars.arg3: {{.*}}bitwise equal
func.func @scalars(%x: tensor<8x4xf32, #coco.replicated>, %w: tensor<4x6xf32, #coco.replicated>,
                   %step: f32, %acc: tensor<4xf32, #coco.replicated>, %n: i64)
    -> (tensor<8x6xf32, #coco.replicated>, tensor<8x4xf32, #coco.replicated>, tensor<f32, #coco.replicated>,
        tensor<4xf32, #coco.replicated>, tensor<i64, #coco.replicated>) {
  // Adam's bias correction 1 - beta2^step, clamped by a comparison.
  %beta = arith.constant 0.999 : f32
  %one = arith.constant 1.0 : f32
  %pow = math.powf %beta, %step : f32
  %bc = arith.subf %one, %pow : f32
  %big = arith.cmpf ogt, %bc, %one : f32
  %k = arith.select %big, %one, %bc : f32
  // Into an element-wise kernel, then a matmul.
  %ks = tensor.splat %k : tensor<8x4xf32, #coco.replicated>
  %xs = arith.mulf %x, %ks : tensor<8x4xf32, #coco.replicated>
  %y = coco.matmul %xs, %w : tensor<8x4xf32, #coco.replicated>, tensor<4x6xf32, #coco.replicated> -> tensor<8x6xf32, #coco.replicated>
  // A non-splat constant in element-wise code.
  %c = arith.constant dense<[[1.0, -2.0, 3.5, 0.25], [0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0],
                             [1.0, -2.0, 3.5, 0.25], [0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [-8.0, 9.0, 10.0, 1.0e10]]> : tensor<8x4xf32, #coco.replicated>
  %z = arith.addf %x, %c : tensor<8x4xf32, #coco.replicated>
  // Returned directly: a kernel stores the splat of a scalar result.
  %kt = tensor.splat %bc : tensor<f32, #coco.replicated>
  // An accumulator reset to a constant (non-splat, so not foldable).
  %zeros = arith.constant dense<[0.0, 1.0, 2.0, 3.0]> : tensor<4xf32, #coco.replicated>
  coco.update %acc, %zeros : tensor<4xf32, #coco.replicated>
  // A constant read by a collective: four ranks' worth of [1, 2, 3, 4].
  %local = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32, #coco.local>
  %sum = coco.all_reduce sum %local : tensor<4xf32, #coco.local> -> tensor<4xf32, #coco.replicated>
  // Integer scalars: n * 3 + 1, wrapping.
  %three = arith.constant 3 : i64
  %n3 = arith.muli %n, %three : i64
  %n31 = arith.addi %n3, %three : i64
  %nt = tensor.splat %n31 : tensor<i64, #coco.replicated>
  return %y, %z, %kt, %sum, %nt : tensor<8x6xf32, #coco.replicated>, tensor<8x4xf32, #coco.replicated>, tensor<f32, #coco.replicated>,
                                  tensor<4xf32, #coco.replicated>, tensor<i64, #coco.replicated>
}
