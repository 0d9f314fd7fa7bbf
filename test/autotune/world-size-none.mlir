// A program none of whose schedules can run on the planned rank count:
// the autotuner says so, with the first reason, instead of choosing one.
// RUN: not coco-opt %s --coco-autotune=cpu-host --autotune-ranks=3 2>&1 | FileCheck %s

// CHECK: error: {{.*}}no schedule of this program runs on 3 ranks (autotune/world-size-none.mlir:[[#@LINE+1]]:1: argument 0: dimension 0 of size 8 is sliced over 3 ranks, which does not divide it)
func.func @sliced(%x: tensor<8xf32, #coco.sliced<0>>) -> tensor<8xf32, #coco.replicated> {
  %g = coco.all_gather %x : tensor<8xf32, #coco.sliced<0>> -> tensor<8xf32, #coco.replicated>
  return %g : tensor<8xf32, #coco.replicated>
}
