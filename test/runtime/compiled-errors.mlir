// Compiled runs fail with one clear line and a non-zero exit: a bundle run
// on another world size, a missing input (named, with the file expected),
// an unknown GPU target or PTX version (LLVM would silently fall back to
// the chip's oldest), a shape the world size does not divide (located),
// a world that does not divide into the pipeline's stages, and the cuda
// backend on a machine without a CUDA driver (this one: GPU execution is
// checked by scripts/gpu-check.sh on a GPU machine).
// RUN: coco-translate ../examples/coco/sgd.mlir --emit=bundle --ranks 2 -o %t.bundle
// RUN: not coco-run %t.bundle --ranks 4 2>&1 | FileCheck %s --check-prefix=WORLD
// RUN: not coco-run %t.bundle --ranks 2 --inputs runtime/interp/inputs/collectives 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not coco-translate ../examples/coco/sgd.mlir --emit=ptx --chip sm_100 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not coco-translate ../examples/coco/sgd.mlir --emit=ptx --ptx-version 999 2>&1 | FileCheck %s --check-prefix=PTX
// RUN: not coco-translate ../examples/coco/sgd.mlir --emit=ptx --chip sm_90 --ptx-version 70 2>&1 | FileCheck %s --check-prefix=PTXCHIP
// RUN: coco-opt ../examples/coco/adam.mlir --coco-autotune=v100-cluster -o %t.adam.mlir
// RUN: not coco-run %t.adam.mlir --ranks 3 2>&1 | FileCheck %s --check-prefix=DIVIDE
// RUN: not coco-translate ../examples/coco/pipeline_stage.mlir --emit=plan --ranks 3 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: not coco-run ../examples/coco/pipeline_stage.mlir --backend cpu --ranks 3 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not coco-run ../examples/coco/pipeline_stage.mlir --backend reference --ranks 3 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not coco-run %s --backend cpu --ranks 2 2>&1 | FileCheck %s --check-prefix=ROOT
// RUN: not coco-run %s --backend reference --ranks 2 2>&1 | FileCheck %s --check-prefix=ROOT
// RUN: not coco-run ../examples/coco/sgd.mlir --backend cuda 2>&1 | FileCheck %s --check-prefix=CUDA

// WORLD: coco-run: error: {{.*}}.bundle was compiled for 2 ranks, not 4 (recompile with coco-translate --ranks 4)
// MISSING: coco-run: error: missing input 'sgd.arg0': expected runtime/interp/inputs/collectives/sgd.arg0.npy (f32 [262144] per rank, local)
// CHIP: coco-translate: error: --chip: unknown chip 'sm_100' (expected one of sm_70, sm_72, sm_75, sm_80, sm_86, sm_87, sm_89, sm_90)
// PTX: coco-translate: error: --ptx-version: unsupported PTX ISA version '999' (expected one of 60, 61, 62, 63, 64, 65, 70, 71, 72, 73, 74, 75, 76, 77, 78, 80, 81, 82, 83, 84, 85: 10 x major + minor, 80 for PTX 8.0)
// PTXCHIP: coco-translate: error: --ptx-version: PTX ISA 7.0 cannot target sm_90, which needs 7.8 or later (--ptx-version 78)
// DIVIDE: coco-run: error: {{.*}}.adam.mlir:2:3: argument 2: dimension 0 of size 262144 is sliced over 3 ranks, which does not divide it
// Both backends report a bad world size or root alike, at the op.
// PIPELINE: coco-translate: error: ../examples/coco/pipeline_stage.mlir:10:1: world size 3 does not divide into the 2 pipeline stages of coco.process_group @stage0
// STAGES: coco-run: error: ../examples/coco/pipeline_stage.mlir:10:1: world size 3 does not divide into the 2 pipeline stages of coco.process_group @stage0 (every stage needs the same number of ranks: run on a multiple of 2)
// ROOT: coco-run: error: runtime/compiled-errors.mlir:36:8: root 5 is not a rank of a group of 2
// CUDA: coco-run: error: no CUDA driver on this machine (libcuda.so.1 does not load); use --backend cpu

func.func @root_out_of_range(%x: tensor<8xf32, #coco.local>) -> tensor<8xf32, #coco.replicated> {
  %y = coco.broadcast %x root 5 : tensor<8xf32, #coco.local> -> tensor<8xf32, #coco.replicated>
  return %y : tensor<8xf32, #coco.replicated>
}
