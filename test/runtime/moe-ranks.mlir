// The MoE example (examples/coco/moe.mlir) compiled on the world sizes the
// compiled trials do not cover (3 and 8 ranks; they run 1, 2 and 4), with
// Gaussian inputs so that tokens spread over the experts, against
// the interpreter: GEMMs with the interpreter's rounding, so within
// tolerance only by the gate's softmax (its exp is a polynomial on the CPU).
// RUN: coco-run ../examples/coco/moe.mlir --ranks 3 --seed 3 --check --exact-reductions --gemm-arithmetic ordered --input 'x=normal(0,1)' --input 'wg=normal(0,1)' --input 'w1=normal(0,0.3)' --input 'w2=normal(0,0.3)' | FileCheck %s
// RUN: coco-run ../examples/coco/moe.mlir --ranks 8 --seed 3 --check --exact-reductions --gemm-arithmetic ordered --input 'x=normal(0,1)' --input 'wg=normal(0,1)' --input 'w1=normal(0,0.3)' --input 'w2=normal(0,0.3)' | FileCheck %s

// CHECK: moe.result0: {{bitwise equal|largest relative error}}
