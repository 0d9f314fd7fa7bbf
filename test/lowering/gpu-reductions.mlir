// Reductions on the GPU are trees (kernel/tree_reduction.rs, docs/gpu.md):
// a linalg loop of partial folds with the thread index on x (coalesced),
// then gpu.all_reduce in a block (warp shuffles and shared memory). The
// CPU's kernels keep the interpreter's blocked order (the compiled trials
// check them bitwise). Each function's launches are pinned here, and ptxas
// assembles the module (with libdevice) for sm_80 and sm_90.
// RUN: coco-translate %s --entry whole --emit=plan | FileCheck %s --check-prefix=WHOLE
// RUN: coco-translate %s --entry middle --emit=plan | FileCheck %s --check-prefix=MIDDLE
// RUN: coco-translate %s --entry rows --emit=plan | FileCheck %s --check-prefix=ROWS
// RUN: coco-translate %s --entry middle --emit=ptx --chip sm_80 --cuda-path %cuda --resource-usage -o %t 2>&1 | FileCheck %s --check-prefix=ASM
// RUN: coco-translate %s --entry rows --emit=ptx --cuda-path %cuda --resource-usage -o %t 2>&1 | FileCheck %s --check-prefix=ASM
// RUN: coco-translate %s --entry whole --emit=kernels | FileCheck %s --check-prefix=CPU
// The same trees' indexing, run: --cpu-reductions tree compiles the native
// kernels in the GPU's order (stage 2 as a loop), checked against the
// interpreter (max is exact in any order; the avg and softmax within
// rounding).
// RUN: coco-run %s --entry whole --backend cpu --ranks 1 --seed 3 --check --cpu-reductions tree | FileCheck %s --check-prefix=RUNWHOLE
// RUN: coco-run %s --entry middle --backend cpu --ranks 1 --seed 3 --check --cpu-reductions tree | FileCheck %s --check-prefix=RUNOK
// RUN: coco-run %s --entry rows --backend cpu --ranks 1 --seed 3 --check --cpu-reductions tree --input 'rows.arg0=normal(0,4)' | FileCheck %s --check-prefix=RUNOK

// 1,000,003 elements (prime: the last partials are short): 62,500 partial
// sums of 16 or 17 elements, then 1024 threads fold 61 or 62 partials each.
func.func @whole(%x: tensor<1000003xf32, #coco.replicated>) -> tensor<f32, #coco.replicated> {
  %n = coco.reduce_elements max %x : tensor<1000003xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  return %n : tensor<f32, #coco.replicated>
}

// Reduced along the middle dimension: a row is x[i, :, k].
func.func @middle(%x: tensor<6x300x5xf32, #coco.replicated>) -> tensor<6x5xf32, #coco.replicated> {
  %s = coco.reduce_elements avg %x {dims = array<i64: 1>} : tensor<6x300x5xf32, #coco.replicated> -> tensor<6x5xf32, #coco.replicated>
  return %s : tensor<6x5xf32, #coco.replicated>
}

// Softmax: a max tree and a sum tree per row of 100 (128 threads).
func.func @rows(%x: tensor<3x7x100xf16, #coco.replicated>) -> tensor<3x7x100xf16, #coco.replicated> {
  %y = coco.softmax %x : tensor<3x7x100xf16, #coco.replicated>
  return %y : tensor<3x7x100xf16, #coco.replicated>
}

// WHOLE: computes = ["coco.reduce_elements"]
// WHOLE-NEXT: gpu_scratch = [250000]
// WHOLE: entry = "whole_k0_kernel_0"
// WHOLE-NEXT: grid = [977, 1, 1]
// WHOLE-NEXT: block = [64, 1, 1]
// WHOLE-NEXT: params = [{ kind = "scratch", index = 0 }, { kind = "buffer", index = 0 }]
// WHOLE: entry = "whole_k0_kernel_1"
// WHOLE-NEXT: grid = [1, 1, 1]
// WHOLE-NEXT: block = [1024, 1, 1]
// WHOLE-NEXT: params = [{ kind = "scratch", index = 0 }, { kind = "buffer", index = 1 }]

// 30 rows of 300: 256 threads per row, 2 elements each.
// MIDDLE: computes = ["coco.reduce_elements"]
// MIDDLE: entry = "middle_k0_kernel_0"
// MIDDLE-NEXT: grid = [4, 8, 1]
// MIDDLE-NEXT: block = [64, 4, 1]
// MIDDLE: entry = "middle_k0_kernel_1"
// MIDDLE-NEXT: grid = [30, 1, 1]
// MIDDLE-NEXT: block = [256, 1, 1]

// ROWS: computes = ["coco.softmax"]
// ROWS: grid = [21, 1, 1]
// ROWS-NEXT: block = [128, 1, 1]
// ROWS: grid = [21, 1, 1]
// ROWS-NEXT: block = [128, 1, 1]

// ASM: resource usage on
// ASM: _kernel_{{[0-9]+}} {{[0-9]+}} 0 0 128 0

// The CPU's text has no tree: one loop nest in index order.
// CPU-NOT: gpu.
// CPU: linalg.generic
// CPU-SAME: iterator_types = ["parallel", "reduction"]
// CPU-NOT: gpu.

// RUNWHOLE: check against the reference interpreter:
// RUNWHOLE-NEXT: whole.result0: bitwise equal
// RUNOK: check against the reference interpreter:
// RUNOK-NEXT: .result0: {{bitwise equal|largest relative error .* \(tolerance .*\)}}
