// The upstream half of the GPU path that coco's lowering (issue 4) builds on:
// a gpu.launch over memrefs is outlined, given an NVVM target, lowered to
// NVVM and serialised to PTX text by gpu-module-to-binary{format=isa}, all
// inside coco-opt and with no CUDA toolkit. If an MLIR upgrade breaks any
// step, this test says which before the coco lowering does.
// RUN: coco-opt %s --pass-pipeline='builtin.module(gpu-kernel-outlining,nvvm-attach-target{chip=sm_90 features=+ptx80},gpu.module(convert-gpu-to-nvvm,reconcile-unrealized-casts),gpu-to-llvm,reconcile-unrealized-casts,gpu-module-to-binary{format=isa})' | FileCheck %s --check-prefix=SM90
// RUN: coco-opt %s --pass-pipeline='builtin.module(gpu-kernel-outlining,nvvm-attach-target{chip=sm_70 features=+ptx70},gpu.module(convert-gpu-to-nvvm,reconcile-unrealized-casts),gpu-to-llvm,reconcile-unrealized-casts,gpu-module-to-binary{format=isa})' | FileCheck %s --check-prefix=SM70

// SM90: gpu.launch_func @add_kernel::@add_kernel
// SM90: gpu.binary @add_kernel
// SM90-SAME: #gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">
// SM90-SAME: .version 8.0
// SM90-SAME: .target sm_90
// SM90-SAME: .visible .entry add_kernel(
// SM90-SAME: ld.global.f32
// SM90-SAME: add.rn.f32
// SM90-SAME: st.global.f32

// SM70: .version 7.0
// SM70-SAME: .target sm_70
// SM70-SAME: .visible .entry add_kernel(

func.func @add(%a: memref<1024xf32>, %b: memref<1024xf32>, %c: memref<1024xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %base = arith.muli %bx, %c256 : index
    %i = arith.addi %base, %tx : index
    %x = memref.load %a[%i] : memref<1024xf32>
    %y = memref.load %b[%i] : memref<1024xf32>
    %s = arith.addf %x, %y : f32
    memref.store %s, %c[%i] : memref<1024xf32>
    gpu.terminator
  }
  return
}
