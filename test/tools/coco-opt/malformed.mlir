// RUN: not coco-opt %s 2>&1 | FileCheck %s
//
// Malformed text: a located error with the source line and a caret, exit 1.

// CHECK: tools/coco-opt/malformed.mlir:[[@LINE+3]]:30: error: expected ':'
// CHECK-NEXT: {{^}}  %0 = coco.all_reduce sum %x tensor<8xf32, #coco.local>
func.func @f(%x: tensor<8xf32, #coco.local>) {
  %0 = coco.all_reduce sum %x tensor<8xf32, #coco.local>
  return
}
