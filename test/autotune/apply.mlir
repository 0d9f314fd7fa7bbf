// RUN: coco-opt ../examples/coco/adam.mlir --coco-autotune --autotune-ranks=256 | FileCheck %s
// RUN: coco-opt ../examples/coco/adam.mlir --coco-autotune=cpu-host --autotune-report 2>&1 >/dev/null | FileCheck %s --check-prefix=CPU
// RUN: not coco-opt ../examples/coco/adam.mlir --coco-autotune=no-such-machine 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not coco-opt ../examples/coco/adam.mlir --coco-autotune=/dev/zero 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not coco-opt ../examples/coco/adam.mlir --coco-autotune=autotune 2>&1 | FileCheck %s --check-prefix=FOLDER
//
// --coco-autotune applies its choice to the program; presets and errors.

// CHECK: coco.fused_collective
// CHECK: coco.reduce_scatter avg
// CHECK-NOT: coco.all_reduce
// CPU: coco-autotune: cpu-host (2-core CPU, MPI over shared memory), 2 ranks
// CPU: // chosen:
// BAD: coco-opt: error: coco-autotune: 'no-such-machine' is neither a preset (v100-cluster, h100-node, cpu-host) nor a readable file
// A device or a folder is no description (/dev/zero once grew to 24 GB).
// DEVICE: coco-opt: error: coco-autotune: '/dev/zero' is neither a preset (v100-cluster, h100-node, cpu-host) nor a readable file: a device is not a regular file
// FOLDER: coco-opt: error: coco-autotune: 'autotune' is neither a preset (v100-cluster, h100-node, cpu-host) nor a readable file: a directory is not a regular file
