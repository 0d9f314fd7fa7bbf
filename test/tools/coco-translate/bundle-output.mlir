// A bundle is written whole into a temporary sibling folder and renamed
// into place: `-o -` cannot hold one, an existing -o that is a file or a
// folder of something else is refused (never overwritten or deleted), and
// an old bundle is replaced by the complete new one.
// RUN: not coco-translate ../examples/coco/sgd.mlir --emit=bundle -o - 2>&1 | FileCheck %s --check-prefix=STDOUT
// RUN: coco-translate ../examples/coco/sgd.mlir --emit=plan -o %t.plan
// RUN: not coco-translate ../examples/coco/sgd.mlir --emit=bundle -o %t.plan 2>&1 | FileCheck %s --check-prefix=FILE
// RUN: coco-run ../examples/coco/sgd.mlir --backend reference --outputs %t.outputs >/dev/null
// RUN: not coco-translate ../examples/coco/sgd.mlir --emit=bundle -o %t.outputs 2>&1 | FileCheck %s --check-prefix=FOREIGN
// RUN: coco-translate ../examples/coco/sgd.mlir --emit=bundle --ranks 2 -o %t.bundle
// RUN: coco-translate ../examples/coco/sgd.mlir --emit=bundle --ranks 1 -o %t.bundle
// RUN: not coco-run %t.bundle --ranks 2 2>&1 | FileCheck %s --check-prefix=REPLACED
// RUN: not coco-translate ../examples/coco/sgd.mlir --emit=plan --ranks 18446744073709551615 2>&1 | FileCheck %s --check-prefix=RANKS

// STDOUT: coco-translate: error: --emit=bundle writes a directory: -o - (stdout) cannot hold one; name a directory
// FILE: coco-translate: error: {{.*}}.tmp.plan exists and is not a directory
// FOREIGN: coco-translate: error: {{.*}}.tmp.outputs exists and is not a coco bundle (no plan.toml with format = "coco-bundle"); refusing to replace it: remove it or choose another -o
// REPLACED: coco-run: error: {{.*}}.tmp.bundle was compiled for 1 ranks, not 2
// RANKS: coco-translate: error: --ranks: 18446744073709551615 ranks do not fit in a plan (at most 9223372036854775807)
