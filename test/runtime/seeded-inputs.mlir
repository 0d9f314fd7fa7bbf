// --input chooses how a seeded input is drawn: by the name --list-inputs
// prints, the argument alone, or the name the source gives it.
// RUN: coco-run %s --backend reference --list-inputs | FileCheck %s --check-prefix=LIST
// RUN: coco-run %s --backend reference --ranks 2 --input lr=0.5 --input f.arg1=2 --input 'arg3=uniform(-3,-2)' --print-values | FileCheck %s --check-prefix=VALUES
// RUN: coco-run %s --backend cpu --ranks 2 --check --input '%lr=0.25' --input 'w=normal(0,0.02)' --input n=7 | FileCheck %s --check-prefix=CPU
// RUN: not coco-run %s --backend reference --input beta=1 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not coco-run %s --backend reference --input n=0.5 2>&1 | FileCheck %s --check-prefix=INTEGER
// RUN: not coco-run %s --backend reference --input 'n=normal(0,1)' 2>&1 | FileCheck %s --check-prefix=NORMAL
// RUN: not coco-run %s --backend reference --input lr=fast 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not coco-run %s --backend reference --input lr=1 --input f.arg0=2 2>&1 | FileCheck %s --check-prefix=TWICE

// LIST: f.arg0 (%lr): f32 [] scalar
// LIST-NEXT: f.arg1 (%x): f32 [4] #coco.replicated
// LIST-NEXT: f.arg2 (%n): i64 [] scalar
// LIST-NEXT: f.arg3 (%w): f32 [8] #coco.local

// 0.5 * 2 in every element; each rank's w in [-3, -2), summed over 2 ranks.
// VALUES: f.result0: f32 [4] #coco.replicated sum=4.000000e0 min=1.000000e0 max=1.000000e0
// VALUES: f.result1: f32 [8] #coco.replicated {{.*}} min=-{{[56]}}.{{[0-9]+}}e0 max=-{{[45]}}.{{[0-9]+}}e0

// CPU: f.result0: {{.*}}bitwise equal
// CPU: f.result1: {{.*}}bitwise equal
// CPU: f.result2: {{.*}}bitwise equal

// UNKNOWN: coco-run: error: --input beta: the program has no such input; its inputs are f.arg0 (%lr), f.arg1 (%x), f.arg2 (%n), f.arg3 (%w)
// INTEGER: coco-run: error: --input n: 0.5 is not an i64 value
// NORMAL: coco-run: error: --input n: normal() needs a float input, not i64
// VALUE: error: invalid value 'lr=fast' for '--input <NAME=VALUE>': 'fast' is not a number; expected a number (1e-3), uniform(LOW,HIGH) or normal(MEAN,STD)
// TWICE: coco-run: error: --input f.arg0: f.arg0 is chosen twice
func.func @f(%lr: f32, %x: tensor<4xf32, #coco.replicated>, %n: i64, %w: tensor<8xf32, #coco.local>)
    -> (tensor<4xf32, #coco.replicated>, tensor<8xf32, #coco.replicated>, tensor<i64, #coco.replicated>) {
  %s = tensor.splat %lr : tensor<4xf32, #coco.replicated>
  %y = arith.mulf %x, %s : tensor<4xf32, #coco.replicated>
  %r = coco.all_reduce sum %w : tensor<8xf32, #coco.local> -> tensor<8xf32, #coco.replicated>
  %nt = tensor.splat %n : tensor<i64, #coco.replicated>
  return %y, %r, %nt : tensor<4xf32, #coco.replicated>, tensor<8xf32, #coco.replicated>, tensor<i64, #coco.replicated>
}
