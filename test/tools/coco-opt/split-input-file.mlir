// RUN: not coco-opt %s --split-input-file 2>/dev/null | FileCheck %s
//
// A failing chunk makes the run fail, but every valid chunk is still printed,
// separated by the marker.

// CHECK: func.func @first
// CHECK: // -----
// CHECK: func.func @third
func.func @first() {
  return
}

// -----

func.func @second() {
  %0 = arith.constant 1 : i32 : i32
}

// -----

func.func @third() {
  return
}
