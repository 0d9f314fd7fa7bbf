// RUN: coco-opt ../examples/coco/adam.mlir --pass-pipeline='builtin.module(coco-verify,coco-optimize{machine=v100-cluster ranks=256},coco-tile)' | FileCheck %s
// RUN: coco-opt ../examples/coco/adam.mlir --coco-optimize | FileCheck %s --check-prefix=FLAG
// RUN: not coco-opt ../examples/coco/adam.mlir --pass-pipeline='builtin.module(coco-optimize{ranks=-1})' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not coco-opt ../examples/coco/adam.mlir --pass-pipeline='builtin.module(coco-optimize{ranks=65537})' 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not coco-opt ../examples/coco/adam.mlir --coco-autotune --autotune-ranks=0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not coco-opt ../examples/coco/adam.mlir --pass-pipeline='builtin.module(func.func(coco-optimize))' 2>&1 | FileCheck %s --check-prefix=NESTED
//
// coco-optimize is the autotuner's choice as a pipeline step: passes before
// it see the original program, passes after it the chosen schedule.

// CHECK: coco.fused_collective
// CHECK: } {coco.tile = array<i64: 1024>}
// FLAG: coco.fused_collective
// BAD: coco-opt: error: coco-optimize: option 'ranks' must be between 0 and 65536, found -1
// HUGE: coco-opt: error: coco-optimize: option 'ranks' must be between 0 and 65536, found 65537
// ZERO: error: invalid value '0' for '--autotune-ranks <N>': 0 is not in 1..=65536
// NESTED: coco-opt: error: coco-optimize: coco-optimize chooses a pipeline with the autotuner and runs only at the top level of a pipeline, `builtin.module(coco-optimize{...})`, not nested under another op
