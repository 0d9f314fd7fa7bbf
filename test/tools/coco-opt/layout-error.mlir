// RUN: not coco-opt %s 2>&1 | FileCheck %s
//
// A layout violation found after parsing: the error names the op, what was
// expected and what was found, at the op's location; nothing is printed on
// stdout and the exit code is 1.

// CHECK-NOT: module
// CHECK: tools/coco-opt/layout-error.mlir:[[@LINE+3]]:8: error: 'coco.all_gather' op expects operand layout #coco.sliced<d>, found #coco.replicated
// CHECK-NEXT: {{^}}  %0 = coco.all_gather
func.func @f(%x: tensor<8xf32, #coco.replicated>) {
  %0 = coco.all_gather %x : tensor<8xf32, #coco.replicated> -> tensor<8xf32, #coco.replicated>
  return
}
