// Ops that every backend runs alike: the exact GeLU (math.erf, libm's
// erff on the CPU, the interpreter's f64 erf rounded), and a transpose of a
// 3-D tensor sliced along dimension 1, which needs no communication (each
// rank transposes its own block; the result is sliced along dimension 2),
// and a ZeRO-style clip whose norm is read out of a 0-d tensor
// (tensor.extract) after the all_reduce that makes every rank's the same.
// RUN: coco-run %s --backend cpu --ranks 2 --seed 3 --check --input 'x=normal(0,2)' | FileCheck %s
// RUN: coco-run %s --backend cpu --ranks 4 --seed 4 --check --input 'x=normal(0,2)' | FileCheck %s
// RUN: coco-run %s --ranks 4 --seed 4 --input 'x=normal(0,2)' | FileCheck %s --check-prefix=INTERP
// The GPU route: erf is libdevice's __nv_erff, linked from --cuda-path, and
// the scalar is read out of its 0-d buffer in every kernel that uses it.
// RUN: coco-translate %s --emit=ptx --ranks 2 --cuda-path %cuda | FileCheck %s --check-prefix=PTX
// RUN: not coco-translate %s --emit=ptx --ranks 2 2>&1 | FileCheck %s --check-prefix=NOLIB
// PTX: .entry
// NOLIB: error: a kernel calls the libdevice function __nv_erff, which coco's built-in PTX does not define

// CHECK:      check against the reference interpreter:
// CHECK-NEXT: ops.result0: {{bitwise equal|largest relative error}}
// CHECK-NEXT: ops.result1: bitwise equal
// CHECK-NEXT: ops.result2: bitwise equal
// INTERP: ops.result0: sum=
// INTERP: ops.result1: sum=
// INTERP: ops.result2: sum=

func.func @ops(%x: tensor<64x32xf32, #coco.sliced<0>>, %k: tensor<4x8x16xf32, #coco.sliced<1>>, %g: tensor<256xf32, #coco.sliced<0>>)
    -> (tensor<64x32xf32, #coco.sliced<0>>, tensor<4x16x8xf32, #coco.sliced<2>>, tensor<256xf32, #coco.sliced<0>>) {
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %rsqrt2 = arith.constant 0.70710678118654752 : f32
  %halfs = tensor.splat %half : tensor<64x32xf32, #coco.sliced<0>>
  %ones = tensor.splat %one : tensor<64x32xf32, #coco.sliced<0>>
  %r = tensor.splat %rsqrt2 : tensor<64x32xf32, #coco.sliced<0>>
  %xs = arith.mulf %x, %r : tensor<64x32xf32, #coco.sliced<0>>
  %e = math.erf %xs : tensor<64x32xf32, #coco.sliced<0>>
  %e1 = arith.addf %e, %ones : tensor<64x32xf32, #coco.sliced<0>>
  %xh = arith.mulf %x, %halfs : tensor<64x32xf32, #coco.sliced<0>>
  %gelu = arith.mulf %xh, %e1 : tensor<64x32xf32, #coco.sliced<0>>
  %kt = coco.transpose %k : tensor<4x8x16xf32, #coco.sliced<1>> -> tensor<4x16x8xf32, #coco.sliced<2>>
  %sq = arith.mulf %g, %g : tensor<256xf32, #coco.sliced<0>>
  %part = coco.reduce_elements sum %sq : tensor<256xf32, #coco.sliced<0>> -> tensor<f32, #coco.local>
  %total = coco.all_reduce sum %part : tensor<f32, #coco.local> -> tensor<f32, #coco.replicated>
  %n2 = tensor.extract %total[] : tensor<f32, #coco.replicated>
  %n = math.sqrt %n2 : f32
  %scale = arith.maximumf %n, %one : f32
  %scales = tensor.splat %scale : tensor<256xf32, #coco.sliced<0>>
  %clipped = arith.divf %g, %scales : tensor<256xf32, #coco.sliced<0>>
  return %gelu, %kt, %clipped : tensor<64x32xf32, #coco.sliced<0>>, tensor<4x16x8xf32, #coco.sliced<2>>, tensor<256xf32, #coco.sliced<0>>
}
