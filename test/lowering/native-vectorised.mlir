// Element-wise kernels on the CPU are vectorised at the host's f32 lanes
// (pipelines::cpu_to_llvm: linalg to affine loops, affine-super-vectorize):
// 16 lanes for znver4 (AVX-512), 8 for x86-64-v3 (AVX2). bf16 products are
// whole bf16 vectors (LLVM computes each in f32 and rounds it, as the
// interpreter does; its own loop vectorizer had left such loops scalar).
// 1000 is no multiple of 16, so loads and stores are masked. f64's tanh has
// no vector form and stays a libm call per lane.
// RUN: coco-translate %s --emit=llvm-ir --mcpu znver4 | FileCheck %s --check-prefix=AVX512
// RUN: coco-translate %s --emit=llvm-ir --mcpu x86-64-v3 | FileCheck %s --check-prefix=AVX2

// AVX512: define void @scale_k0(
// AVX512: @llvm.masked.load.v16bf16
// AVX512: fmul <16 x bfloat>
// AVX512: @llvm.masked.store.v16bf16
// AVX512: define void @scale_k1(
// AVX512: call double @tanh(double
// AVX2: define void @scale_k0(
// AVX2: fmul <8 x bfloat>
func.func @scale(%x: tensor<1000xbf16, #coco.replicated>, %y: tensor<1000xbf16, #coco.replicated>,
                 %d: tensor<24xf64, #coco.replicated>)
    -> (tensor<1000xbf16, #coco.replicated>, tensor<24xf64, #coco.replicated>) {
  %0 = arith.mulf %x, %y : tensor<1000xbf16, #coco.replicated>
  %1 = math.tanh %d : tensor<24xf64, #coco.replicated>
  return %0, %1 : tensor<1000xbf16, #coco.replicated>, tensor<24xf64, #coco.replicated>
}
