// bf16 programs compile, load and match the reference interpreter bit for
// bit: kernels.so rounds to bf16 with integer ops, so it needs no
// __truncsfbf2 / __truncdfbf2 from the C runtime (which libgcc before GCC 13
// lacks: the bundle would fail to load with "undefined symbol"). Element-wise
// code, f32 and f64 casts to bf16 (f64 rounded once), a matmul accumulated
// in f32, softmax and an all_reduce of bf16 values. result5 is
// 1 + 2^-8 + 2^-30 in f64: through f32 it would become the tie 1 + 2^-8 and
// round to even (1.0); rounded once it is 1 + 2^-7.
// RUN: coco-run %s --backend cpu --ranks 1 --check | FileCheck %s
// RUN: coco-run %s --backend cpu --ranks 2 --check | FileCheck %s
// RUN: coco-run %s --backend reference --print-values | FileCheck %s --check-prefix=VALUES

// CHECK:      check against the reference interpreter:
// CHECK-NEXT:   bf16.result0: bitwise equal
// CHECK-NEXT:   bf16.result1: bitwise equal
// CHECK-NEXT:   bf16.result2: bitwise equal
// CHECK-NEXT:   bf16.result3: bitwise equal
// CHECK-NEXT:   bf16.result4: bitwise equal
// CHECK-NEXT:   bf16.result5: bitwise equal
// VALUES:      bf16.result5: bf16 [4] #coco.replicated
// VALUES-NEXT:   [1.0078125, 1.0078125, 1.0078125, 1.0078125]
func.func @bf16(%x: tensor<64xbf16, #coco.local>, %w: tensor<8x8xbf16, #coco.replicated>,
                %a: tensor<64xf32, #coco.replicated>, %b: tensor<64xf64, #coco.replicated>,
                %c: tensor<4xf64, #coco.replicated>)
    -> (tensor<64xbf16, #coco.replicated>, tensor<8x8xbf16, #coco.replicated>,
        tensor<8x8xbf16, #coco.replicated>, tensor<64xbf16, #coco.replicated>,
        tensor<64xbf16, #coco.replicated>, tensor<4xbf16, #coco.replicated>) {
  %s = coco.all_reduce sum %x : tensor<64xbf16, #coco.local> -> tensor<64xbf16, #coco.replicated>
  %k = arith.constant dense<1.7> : tensor<64xbf16, #coco.replicated>
  %y = arith.mulf %s, %k : tensor<64xbf16, #coco.replicated>
  %m = coco.matmul %w, %w : tensor<8x8xbf16, #coco.replicated>, tensor<8x8xbf16, #coco.replicated> -> tensor<8x8xbf16, #coco.replicated>
  %sm = coco.softmax %w : tensor<8x8xbf16, #coco.replicated>
  %third = arith.constant dense<0.333333333> : tensor<64xf32, #coco.replicated>
  %af = arith.mulf %a, %third : tensor<64xf32, #coco.replicated>
  %ab = coco.cast %af : tensor<64xf32, #coco.replicated> -> tensor<64xbf16, #coco.replicated>
  %seventh = arith.constant dense<0.142857142857142857> : tensor<64xf64, #coco.replicated>
  %bf = arith.mulf %b, %seventh : tensor<64xf64, #coco.replicated>
  %bb = coco.cast %bf : tensor<64xf64, #coco.replicated> -> tensor<64xbf16, #coco.replicated>
  %zero = arith.constant dense<0.0> : tensor<4xf64, #coco.replicated>
  %tie = arith.constant dense<1.0039062509313226> : tensor<4xf64, #coco.replicated>
  %cz = arith.mulf %c, %zero : tensor<4xf64, #coco.replicated>
  %ct = arith.addf %cz, %tie : tensor<4xf64, #coco.replicated>
  %cb = coco.cast %ct : tensor<4xf64, #coco.replicated> -> tensor<4xbf16, #coco.replicated>
  return %y, %m, %sm, %ab, %bb, %cb
    : tensor<64xbf16, #coco.replicated>, tensor<8x8xbf16, #coco.replicated>,
      tensor<8x8xbf16, #coco.replicated>, tensor<64xbf16, #coco.replicated>,
      tensor<64xbf16, #coco.replicated>, tensor<4xbf16, #coco.replicated>
}
