// The two upstream routes coco's lowering (issue 4) will drive, verified on
// an element-wise linalg.generic over tensors like the ones coco's
// computations become:
// for the GPU, one-shot bufferization, parallel loops tiled by 256 and
// mapped to blocks and threads, kernel outlining, NVVM, PTX text (no CUDA
// toolkit); for the CPU, one-shot bufferization, loops, the LLVM dialect.
// RUN: coco-opt %s --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},func.func(convert-linalg-to-parallel-loops,scf-parallel-loop-tiling{parallel-loop-tile-sizes=256},gpu-map-parallel-loops,convert-parallel-loops-to-gpu),lower-affine,canonicalize,gpu-kernel-outlining,nvvm-attach-target{chip=sm_90 features=+ptx80},gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,reconcile-unrealized-casts),gpu-to-llvm,reconcile-unrealized-casts,gpu-module-to-binary{format=isa})' | FileCheck %s --check-prefix=GPU
// RUN: coco-opt %s --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},buffer-results-to-out-params,func.func(convert-linalg-to-loops),convert-scf-to-cf,expand-strided-metadata,finalize-memref-to-llvm,convert-arith-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)' | FileCheck %s --check-prefix=CPU

// GPU: llvm.func @scale_add(
// GPU: gpu.launch_func @scale_add_kernel::@scale_add_kernel
// GPU: gpu.binary @scale_add_kernel
// GPU-SAME: .target sm_90
// GPU-SAME: .visible .entry scale_add_kernel(
// GPU-SAME: .maxntid 256, 1, 1
// GPU-SAME: add.rn.f32
// GPU-SAME: mul.rn.f32

// CPU: llvm.func @scale_add(
// CPU-NOT: unrealized_conversion_cast
// CPU-NOT: memref.
// CPU: llvm.fadd
// CPU-NEXT: llvm.fmul
// CPU: llvm.store
// CPU: llvm.return

#map = affine_map<(d0) -> (d0)>
func.func @scale_add(%a: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<1024xf32> {
  %init = tensor.empty() : tensor<1024xf32>
  %r = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<1024xf32>, tensor<1024xf32>) outs(%init : tensor<1024xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    %m = arith.mulf %s, %x : f32
    linalg.yield %m : f32
  } -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}
