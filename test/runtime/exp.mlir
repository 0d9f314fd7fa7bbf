// math.exp and softmax's exp on the CPU are a polynomial in f32
// (kernel/math.rs, Cephes' expf), vectorised, instead of libm's expf:
// within --check's tolerance of the interpreter's libm exp from deep
// underflow (inputs of standard deviation 60 reach below -87.3, where the
// result is zero, and above 88.7, where it is +inf) through tiny inputs,
// for f16 and bf16 through f32, and in a softmax of wide rows. f64 keeps
// libm.
// RUN: coco-run %s --backend cpu --ranks 2 --seed 12 --check --input 'x=normal(0,60)' --input 'tiny=uniform(-0.001,0.001)' --input 'h=normal(0,3)' --input 'b=normal(0,3)' --input 's=normal(0,8)' --input 'd=normal(0,3)' | FileCheck %s
// RUN: coco-translate %s --emit=kernels --ranks 2 | FileCheck %s --check-prefix=TEXT

// CHECK:      check against the reference interpreter:
// CHECK-COUNT-6: exp.result{{[0-5]}}: {{bitwise equal|largest relative error}}
// TEXT: arith.constant 1.44269504088896341 : f32
// TEXT: arith.shli
// TEXT-NOT: math.exp {{.*}} : f32
// TEXT: "math.exp"({{.*}}) {{.*}} : (f64) -> f64
func.func @exp(%x: tensor<4096xf32, #coco.sliced<0>>, %tiny: tensor<512xf32, #coco.replicated>,
               %h: tensor<1024xf16, #coco.replicated>, %b: tensor<1024xbf16, #coco.replicated>,
               %s: tensor<16x300xf32, #coco.replicated>, %d: tensor<256xf64, #coco.replicated>)
    -> (tensor<4096xf32, #coco.sliced<0>>, tensor<512xf32, #coco.replicated>, tensor<1024xf16, #coco.replicated>,
        tensor<1024xbf16, #coco.replicated>, tensor<16x300xf32, #coco.replicated>, tensor<256xf64, #coco.replicated>) {
  %0 = math.exp %x : tensor<4096xf32, #coco.sliced<0>>
  %1 = math.exp %tiny : tensor<512xf32, #coco.replicated>
  %2 = math.exp %h : tensor<1024xf16, #coco.replicated>
  %3 = math.exp %b : tensor<1024xbf16, #coco.replicated>
  %4 = coco.softmax %s : tensor<16x300xf32, #coco.replicated>
  %5 = math.exp %d : tensor<256xf64, #coco.replicated>
  return %0, %1, %2, %3, %4, %5 : tensor<4096xf32, #coco.sliced<0>>, tensor<512xf32, #coco.replicated>, tensor<1024xf16, #coco.replicated>, tensor<1024xbf16, #coco.replicated>, tensor<16x300xf32, #coco.replicated>, tensor<256xf64, #coco.replicated>
}
