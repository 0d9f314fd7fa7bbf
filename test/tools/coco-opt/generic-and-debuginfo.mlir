// RUN: coco-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: coco-opt %s --mlir-print-debuginfo | FileCheck %s --check-prefix=DEBUG

// GENERIC: "coco.all_reduce"(%arg0) <{kind = 0 : i32}> : (tensor<8xf32, #coco.local>) -> tensor<8xf32, #coco.replicated>
// DEBUG: coco.all_reduce sum %arg0 : tensor<8xf32, #coco.local> -> tensor<8xf32, #coco.replicated> loc(#[[LOC:.*]])
// DEBUG: #[[LOC]] = loc("tools/coco-opt/generic-and-debuginfo.mlir":[[@LINE+2]]:8)
func.func @f(%x: tensor<8xf32, #coco.local>) -> tensor<8xf32, #coco.replicated> {
  %0 = coco.all_reduce sum %x : tensor<8xf32, #coco.local> -> tensor<8xf32, #coco.replicated>
  return %0 : tensor<8xf32, #coco.replicated>
}
