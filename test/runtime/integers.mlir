// Integers are exact and wrap at their width, identically in the reference
// interpreter and in compiled kernels: i64 values past 2^53 (an f64 would
// round 2^53 + 1 to 2^53), overflow wrapping (not saturating), all_reduce
// sum/max/min/prod, an i32 matmul whose products overflow, total division
// (x / 0 = 0, x % 0 = x, MIN / -1 = MIN, MIN % -1 = 0: no SIGFPE), signed
// and unsigned compares, i1 extension, i64 -> f32 rounded once, and fptosi
// saturating (NaN is 0), where LLVM's fptosi is undefined.
// Known answers on 2 ranks (inputs from scripts/gen_interp_inputs.py), then
// the cpu backend checked bitwise against them, and on seeded inputs on 1
// and 3 ranks.
// RUN: coco-run %s --backend reference --ranks 2 --inputs runtime/interp/inputs/integers --print-values | FileCheck %s
// RUN: coco-run %s --backend cpu --ranks 2 --inputs runtime/interp/inputs/integers --check | FileCheck %s --check-prefix=CHECKED
// RUN: coco-run %s --backend cpu --ranks 1 --check | FileCheck %s --check-prefix=CHECKED
// RUN: coco-run %s --backend cpu --ranks 3 --check | FileCheck %s --check-prefix=CHECKED

// CHECK:      integers.result0: i64 [4] #coco.replicated
// CHECK-NEXT:   [9007199254740993, -9223372036854775808, 9223372036854775807, 7]
// CHECK:      integers.result1: i64 [4] #coco.replicated
// CHECK-NEXT:   [9007199254740992, 9223372036854775807, -1, 7]
// CHECK:      integers.result2: i64 [4] #coco.replicated
// CHECK-NEXT:   [1, 1, -9223372036854775808, 0]
// CHECK:      integers.result3: i64 [4] #coco.replicated
// CHECK-NEXT:   [9007199254740992, 9223372036854775807, -9223372036854775808, 0]
// CHECK:      integers.result4: i64 [4] #coco.local
// CHECK-NEXT:   rank 0: [3002399751580330, -9223372036854775807, -9223372036854775808, 0]
// CHECK-NEXT:   rank 1: [0, 0, 0, 0]
// CHECK:      integers.result5: i64 [4] #coco.local
// CHECK-NEXT:   rank 0: [2, 0, 0, 7]
// CHECK-NEXT:   rank 1: [1, 1, -1, 0]
// CHECK:      integers.result6: i64 [4] #coco.local
// CHECK-NEXT:   rank 0: [3002399751580332, 9223372036854775807, -9223372036854775808, 7]
// CHECK-NEXT:   rank 1: [1, 1, -1, 0]
// CHECK:      integers.result7: i64 [4] #coco.local
// CHECK-NEXT:   rank 0: [0, -1, 0, 0]
// CHECK-NEXT:   rank 1: [-1, 0, -1, -1]
// CHECK:      integers.result8: i32 [4] #coco.local
// CHECK-NEXT:   rank 0: [2147483647, 2147483646, 2147483647, -2147483642]
// CHECK-NEXT:   rank 1: [-2147483648, -2147483648, 2147483646, 2147483647]
// CHECK:      integers.result9: i32 [2, 2] #coco.replicated
// CHECK-NEXT:   [196608, -65536, 196605, 196609]
// CHECK:      integers.result10: f32 [4] #coco.local
// CHECK-NEXT:   rank 0: [1152921642045800400,
// CHECK-NEXT:   rank 1: [1152921642045800400,
// CHECK:      integers.result11: i32 [4] #coco.local
// CHECK-NEXT:   rank 0: [2147483647, 2147483647, -2147483648, 28]
// CHECK-NEXT:   rank 1: [4, 4, -4, 0]
// CHECK:      integers.result12: i64 [4] #coco.local
// CHECK-NEXT:   rank 0: [9223372036854775807, 9223372036854775807, -9223372036854775808, 9223372036854775807]
// CHECK-NEXT:   rank 1: [9223372036854775807, 9223372036854775807, -9223372036854775808, 0]

// CHECKED:      check against the reference interpreter:
// CHECKED-NEXT:   integers.result0: bitwise equal
// CHECKED-NEXT:   integers.result1: bitwise equal
// CHECKED-NEXT:   integers.result2: bitwise equal
// CHECKED-NEXT:   integers.result3: bitwise equal
// CHECKED-NEXT:   integers.result4: bitwise equal
// CHECKED-NEXT:   integers.result5: bitwise equal
// CHECKED-NEXT:   integers.result6: bitwise equal
// CHECKED-NEXT:   integers.result7: bitwise equal
// CHECKED-NEXT:   integers.result8: bitwise equal
// CHECKED-NEXT:   integers.result9: bitwise equal
// CHECKED-NEXT:   integers.result10: bitwise equal
// CHECKED-NEXT:   integers.result11: bitwise equal
// CHECKED-NEXT:   integers.result12: bitwise equal
func.func @integers(%x: tensor<4xi64, #coco.local>, %d: tensor<4xi64, #coco.local>,
                    %m: tensor<2x2xi32, #coco.replicated>)
    -> (tensor<4xi64, #coco.replicated>, tensor<4xi64, #coco.replicated>,
        tensor<4xi64, #coco.replicated>, tensor<4xi64, #coco.replicated>,
        tensor<4xi64, #coco.local>, tensor<4xi64, #coco.local>, tensor<4xi64, #coco.local>,
        tensor<4xi64, #coco.local>, tensor<4xi32, #coco.local>,
        tensor<2x2xi32, #coco.replicated>, tensor<4xf32, #coco.local>,
        tensor<4xi32, #coco.local>, tensor<4xi64, #coco.local>) {
  %sum = coco.all_reduce sum %x : tensor<4xi64, #coco.local> -> tensor<4xi64, #coco.replicated>
  %max = coco.all_reduce max %x : tensor<4xi64, #coco.local> -> tensor<4xi64, #coco.replicated>
  %min = coco.all_reduce min %x : tensor<4xi64, #coco.local> -> tensor<4xi64, #coco.replicated>
  %prod = coco.all_reduce prod %x : tensor<4xi64, #coco.local> -> tensor<4xi64, #coco.replicated>
  %q = arith.divsi %x, %d : tensor<4xi64, #coco.local>
  %r = arith.remsi %x, %d : tensor<4xi64, #coco.local>
  %uq = arith.divui %x, %d : tensor<4xi64, #coco.local>
  %ur = arith.remui %x, %d : tensor<4xi64, #coco.local>
  %u = arith.addi %uq, %ur : tensor<4xi64, #coco.local>
  %lt = arith.cmpi slt, %x, %d : tensor<4xi64, #coco.local>
  %ult = arith.cmpi ult, %x, %d : tensor<4xi64, #coco.local>
  %both = arith.xori %lt, %ult : tensor<4xi1, #coco.local>
  %e = arith.extsi %both : tensor<4xi1, #coco.local> to tensor<4xi64, #coco.local>
  %t = arith.trunci %x : tensor<4xi64, #coco.local> to tensor<4xi32, #coco.local>
  %imax = arith.constant dense<2147483647> : tensor<4xi32, #coco.local>
  %w = arith.addi %t, %imax : tensor<4xi32, #coco.local>
  %mm = coco.matmul %m, %m : tensor<2x2xi32, #coco.replicated>, tensor<2x2xi32, #coco.replicated> -> tensor<2x2xi32, #coco.replicated>
  %zero = arith.constant dense<0> : tensor<4xi64, #coco.local>
  %odd = arith.constant dense<1152921573326323713> : tensor<4xi64, #coco.local>
  %z = arith.muli %x, %zero : tensor<4xi64, #coco.local>
  %v = arith.addi %z, %odd : tensor<4xi64, #coco.local>
  %f = arith.sitofp %v : tensor<4xi64, #coco.local> to tensor<4xf32, #coco.local>
  %xf = arith.sitofp %x : tensor<4xi64, #coco.local> to tensor<4xf64, #coco.local>
  %four = arith.constant dense<4.0> : tensor<4xf64, #coco.local>
  %inf = arith.constant dense<0x7FF0000000000000> : tensor<4xf64, #coco.local>
  %x4 = arith.mulf %xf, %four : tensor<4xf64, #coco.local>
  %xinf = arith.mulf %xf, %inf : tensor<4xf64, #coco.local>
  %s32 = arith.fptosi %x4 : tensor<4xf64, #coco.local> to tensor<4xi32, #coco.local>
  %s64 = arith.fptosi %xinf : tensor<4xf64, #coco.local> to tensor<4xi64, #coco.local>
  return %sum, %max, %min, %prod, %q, %r, %u, %e, %w, %mm, %f, %s32, %s64
    : tensor<4xi64, #coco.replicated>, tensor<4xi64, #coco.replicated>,
      tensor<4xi64, #coco.replicated>, tensor<4xi64, #coco.replicated>,
      tensor<4xi64, #coco.local>, tensor<4xi64, #coco.local>, tensor<4xi64, #coco.local>,
      tensor<4xi64, #coco.local>, tensor<4xi32, #coco.local>,
      tensor<2x2xi32, #coco.replicated>, tensor<4xf32, #coco.local>,
      tensor<4xi32, #coco.local>, tensor<4xi64, #coco.local>
}
