// RUN: not coco-opt %s --verify-diagnostics 2>&1 | FileCheck %s
//
// --verify-diagnostics fails, naming both sides, when an expected error is
// missing or an error was not expected.

// CHECK-DAG: tools/coco-opt/verify-diagnostics.mlir:[[@LINE+3]]:6: error: expected error "this message never comes" was not produced
// CHECK-DAG: tools/coco-opt/verify-diagnostics.mlir:[[@LINE+4]]:8: error: unexpected error: 'coco.all_reduce' op expects operand layout #coco.local
func.func @f(%x: tensor<8xf32, #coco.replicated>) {
  // expected-error@+1 {{this message never comes}}
  %y = math.sqrt %x : tensor<8xf32, #coco.replicated>
  %0 = coco.all_reduce sum %x : tensor<8xf32, #coco.replicated> -> tensor<8xf32, #coco.replicated>
  return
}
