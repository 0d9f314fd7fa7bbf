// Candidates are named after the IR they produce. Mixed precision (f16
// gradients, f32 master weights) reads the reduce_scattered f16 slices
// through coco.cast: computation on slices, RS_C_AG (it was named RS_AG_C).
// A program with no all_reduce is not AR_C.
// RUN: coco-opt %s --coco-autotune=cpu-host --autotune-ranks=4 --autotune-report --split-input-file 2>&1 >/dev/null | FileCheck %s

// CHECK: coco-autotune: cpu-host {{.*}}, 4 ranks
// CHECK: RS_C_AG  [coco-split,coco-reorder,canonicalize,cse]
// CHECK-NOT: RS_AG_C  [coco-split,coco-reorder,canonicalize,cse]
// CHECK: coco-autotune: cpu-host {{.*}}, 4 ranks
// CHECK-NOT: AR_C
// CHECK: chosen: {{.*}}as-written
func.func @mixed(%grad: tensor<4096xf16, #coco.local>, %master: tensor<4096xf32, #coco.replicated>) {
  %g16 = coco.all_reduce avg %grad : tensor<4096xf16, #coco.local> -> tensor<4096xf16, #coco.replicated>
  %g = coco.cast %g16 : tensor<4096xf16, #coco.replicated> -> tensor<4096xf32, #coco.replicated>
  %lr = arith.constant dense<0.01> : tensor<4096xf32, #coco.replicated>
  %step = arith.mulf %lr, %g : tensor<4096xf32, #coco.replicated>
  %new = arith.subf %master, %step : tensor<4096xf32, #coco.replicated>
  coco.update %master, %new : tensor<4096xf32, #coco.replicated>
  return
}

// -----

func.func @no_all_reduce(%x: tensor<4096xf32, #coco.replicated>) -> tensor<4096xf32, #coco.replicated> {
  %y = math.exp %x : tensor<4096xf32, #coco.replicated>
  %z = arith.mulf %y, %x : tensor<4096xf32, #coco.replicated>
  return %z : tensor<4096xf32, #coco.replicated>
}
