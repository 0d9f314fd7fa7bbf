// The world size is checked against a limit before any work (seeded inputs
// are built per rank, and every rank is a process); the limit is raised by
// --max-ranks or COCO_MAX_RANKS. --ranks 0, overflowing --ranks and
// --repeat 0 are errors, as is --repeat on the reference backend.
// RUN: not coco-run ../examples/coco/sgd.mlir --ranks 100000 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: not coco-run ../examples/coco/sgd.mlir --ranks 18446744073709551615 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not coco-run ../examples/coco/sgd.mlir --backend reference --ranks 3 --max-ranks 2 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: not coco-run ../examples/coco/sgd.mlir --ranks 0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not coco-run ../examples/coco/sgd.mlir --repeat 0 2>&1 | FileCheck %s --check-prefix=REPEAT
// RUN: not coco-run ../examples/coco/sgd.mlir --backend reference --repeat 2 2>&1 | FileCheck %s --check-prefix=REFERENCE

// LIMIT: coco-run: error: --ranks 100000: more than the world-size limit of {{[0-9]+}} ranks on this machine (raise it with --max-ranks N or COCO_MAX_RANKS=N)
// HUGE: coco-run: error: --ranks 18446744073709551615: more than the world-size limit of {{[0-9]+}} ranks
// FLAG: coco-run: error: --ranks 3: more than the world-size limit of 2 ranks on this machine
// ZERO: coco-run: error: --ranks 0: a job needs at least 1 rank
// REPEAT: error: invalid value '0' for '--repeat <N>': 0 is not in 1..
// REFERENCE: coco-run: error: --check, --exact-reductions, --timing and --repeat apply to the cpu and cuda backends
