// math.tanh on the CPU is a rational function in f32 (kernel/elementwise.rs,
// rational_tanh), vectorised, instead of libm's tanhf: within --check's
// tolerance of the interpreter's libm tanh over the whole range (inputs of
// standard deviation 6 reach the clamp at ±7.9 and beyond), near zero
// (below 4e-4 the input is returned as it is) and for f16 and bf16 through
// f32. f64 keeps libm.
// RUN: coco-run %s --backend cpu --ranks 2 --seed 11 --check --input 'x=normal(0,6)' --input 'tiny=uniform(-0.001,0.001)' --input 'h=normal(0,3)' --input 'b=normal(0,3)' --input 'd=normal(0,3)' | FileCheck %s
// RUN: coco-translate %s --emit=kernels --ranks 2 | FileCheck %s --check-prefix=TEXT

// CHECK:      check against the reference interpreter:
// CHECK-COUNT-5: tanh.result{{[0-4]}}: {{bitwise equal|largest relative error}}
// TEXT-NOT: "math.tanh"({{.*}}) -> f32
// TEXT: arith.constant 7.90531110763549805 : f32
// TEXT: arith.divf
// TEXT: "math.tanh"({{.*}}) {{.*}} : (f64) -> f64
func.func @tanh(%x: tensor<4096xf32, #coco.sliced<0>>, %tiny: tensor<512xf32, #coco.replicated>,
                %h: tensor<1024xf16, #coco.replicated>, %b: tensor<1024xbf16, #coco.replicated>,
                %d: tensor<256xf64, #coco.replicated>)
    -> (tensor<4096xf32, #coco.sliced<0>>, tensor<512xf32, #coco.replicated>, tensor<1024xf16, #coco.replicated>,
        tensor<1024xbf16, #coco.replicated>, tensor<256xf64, #coco.replicated>) {
  %0 = math.tanh %x : tensor<4096xf32, #coco.sliced<0>>
  %1 = math.tanh %tiny : tensor<512xf32, #coco.replicated>
  %2 = math.tanh %h : tensor<1024xf16, #coco.replicated>
  %3 = math.tanh %b : tensor<1024xbf16, #coco.replicated>
  %4 = math.tanh %d : tensor<256xf64, #coco.replicated>
  return %0, %1, %2, %3, %4 : tensor<4096xf32, #coco.sliced<0>>, tensor<512xf32, #coco.replicated>, tensor<1024xf16, #coco.replicated>, tensor<1024xbf16, #coco.replicated>, tensor<256xf64, #coco.replicated>
}
