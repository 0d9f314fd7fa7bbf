// A program declares how its seeded inputs are drawn with
// {coco.input = "..."} on an argument (the forms --input takes); --input
// still overrides it, and --list-inputs shows it. A form the argument's
// type cannot take is an error at the function.
// RUN: coco-run %s --entry f --backend reference --list-inputs | FileCheck %s --check-prefix=LIST
// RUN: coco-run %s --entry f --backend reference --ranks 2 --print-values | FileCheck %s --check-prefix=VALUES
// RUN: coco-run %s --entry f --backend reference --ranks 2 --input 'w=uniform(5,6)' --print-values | FileCheck %s --check-prefix=OVERRIDE
// RUN: coco-run %s --entry f --backend cpu --ranks 2 --check | FileCheck %s --check-prefix=CPU
// RUN: coco-run %s --entry overflow --backend cpu --ranks 2 --check | FileCheck %s --check-prefix=VACUOUS
// RUN: not coco-run %s --entry integer --backend reference 2>&1 | FileCheck %s --check-prefix=INTEGER
// RUN: not coco-run %s --entry syntax --backend reference 2>&1 | FileCheck %s --check-prefix=SYNTAX

// LIST: f.arg0 (%w): f32 [8] #coco.replicated, drawn uniform(-3,-2)
// LIST-NEXT: f.arg1 (%k): f32 [] scalar, drawn 4
// LIST-NEXT: f.arg2 (%x): f32 [8] #coco.replicated
// LIST-NOT: drawn

// w in [-3, -2) times 4: in [-12, -8).
// VALUES: f.result0: f32 [8] #coco.replicated {{.*}} min=-1.{{[0-9]+}}e1 max=-{{[89]}}.{{[0-9]+}}e0
// OVERRIDE: f.result0: f32 [8] #coco.replicated {{.*}} min=2.{{[0-9]+}}e1 max=2.{{[0-9]+}}e1
// CPU: f.result0: bitwise equal
// CPU-NOT: nothing was compared

// Inputs that overflow everywhere agree with the interpreter and prove
// nothing: --check says so rather than just "bitwise equal".
// VACUOUS: overflow.result0: bitwise equal, but every element is NaN or infinite on both sides: nothing was compared

// INTEGER: coco-run: error: {{.*}}declared-inputs.mlir:{{[0-9]+}}:1: {coco.input = "normal(0,1)"} on integer.arg0: normal() needs a float input, not i64
// SYNTAX: coco-run: error: {{.*}}declared-inputs.mlir:{{[0-9]+}}:1: {coco.input = "gauss(0,1)"} on syntax.arg0: 'gauss(0,1)' is not a number; expected a number (1e-3), uniform(LOW,HIGH) or normal(MEAN,STD)

func.func @f(%w: tensor<8xf32, #coco.replicated> {coco.input = "uniform(-3,-2)"},
             %k: f32 {coco.input = "4"},
             %x: tensor<8xf32, #coco.replicated>) -> tensor<8xf32, #coco.replicated> {
  %ks = tensor.splat %k : tensor<8xf32, #coco.replicated>
  %y = arith.mulf %w, %ks : tensor<8xf32, #coco.replicated>
  return %y : tensor<8xf32, #coco.replicated>
}

func.func @integer(%n: tensor<4xi64, #coco.replicated> {coco.input = "normal(0,1)"}) -> tensor<4xi64, #coco.replicated> {
  return %n : tensor<4xi64, #coco.replicated>
}

func.func @syntax(%x: tensor<4xf32, #coco.replicated> {coco.input = "gauss(0,1)"}) -> tensor<4xf32, #coco.replicated> {
  return %x : tensor<4xf32, #coco.replicated>
}

func.func @overflow(%x: tensor<8xf32, #coco.replicated> {coco.input = "3e38"}) -> tensor<8xf32, #coco.replicated> {
  %y = arith.addf %x, %x : tensor<8xf32, #coco.replicated>
  return %y : tensor<8xf32, #coco.replicated>
}
