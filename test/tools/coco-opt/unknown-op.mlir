// RUN: not coco-opt %s --split-input-file 2>&1 | FileCheck %s
// RUN: not coco-opt %s --split-input-file --allow-unregistered-dialect | FileCheck %s --check-prefix=ALLOW

// CHECK: tools/coco-opt/unknown-op.mlir:[[@LINE+2]]:3: error: custom op 'coco.all_scatter' is unknown
func.func @custom() {
  coco.all_scatter
  return
}

// -----

// CHECK: tools/coco-opt/unknown-op.mlir:[[@LINE+4]]:15: error: operation being parsed with an unregistered dialect
// The first chunk still fails; the second parses with the flag.
// ALLOW: "mystery.op"() : () -> ()
func.func @generic() {
  "mystery.op"() : () -> ()
  return
}
