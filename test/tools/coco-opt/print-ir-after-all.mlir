// RUN: coco-opt %s --coco-verify --canonicalize --mlir-print-ir-after-all 2>&1 | FileCheck %s

// CHECK: // -----// IR Dump After coco-verify //----- //
// CHECK: coco.all_gather
// CHECK: // -----// IR Dump After canonicalize //----- //
// CHECK-NOT: coco.all_gather
// CHECK: module
func.func @f(%s: tensor<8xf32, #coco.sliced<0>>) {
  %dead = coco.all_gather %s : tensor<8xf32, #coco.sliced<0>> -> tensor<8xf32, #coco.replicated>
  return
}
