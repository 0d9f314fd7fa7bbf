// Math on f16 and bf16 in GPU kernels is computed in f32 and rounded back
// (`math-legalize-to-f32` before `convert-gpu-to-nvvm`), as the
// interpreter computes it: libdevice has f32 and f64 functions only, and
// MLIR 19's lowering extended f16 but not bf16, whose math.exp failed in
// LLVM translation with an internal error (found by coco-fault on
// test/runtime/exp.mlir with --emit=plan).
// RUN: coco-translate %s --emit=ptx --ranks 2 | FileCheck %s

// CHECK-LABEL: .visible .entry low_k0_kernel(
// CHECK: cvt.f32.f16
// CHECK: __nv_expf
// CHECK: cvt.rn.f16.f32
// CHECK-LABEL: .visible .entry low_k1_kernel(
// CHECK: cvt.f32.bf16
// CHECK: __nv_expf
// CHECK: cvt.rn.bf16.f32

func.func @low(%h: tensor<1024xf16, #coco.replicated>, %b: tensor<1024xbf16, #coco.replicated>)
    -> (tensor<1024xf16, #coco.replicated>, tensor<1024xbf16, #coco.replicated>) {
  %0 = math.exp %h : tensor<1024xf16, #coco.replicated>
  %1 = math.exp %b : tensor<1024xbf16, #coco.replicated>
  return %0, %1 : tensor<1024xf16, #coco.replicated>, tensor<1024xbf16, #coco.replicated>
}
