// GPU GEMMs (gemm/gpu.rs, docs/gpu.md "GPU GEMMs"): each float matmul is one
// gpu.launch of 256-thread blocks, a BM x BN tile of C per block from BK-deep
// tiles of A and B staged in shared memory, TM x TN sums per thread in
// registers, 16-byte global loads where rows allow and the buffer is
// aligned. coco.tile sets BM, BN and BK (rounded to multiples of 16 up to
// 128, depth up to 32), and the launches and shared memory follow it.
// Shapes cover every edge: rows, columns and depths no tile divides (130 x
// 75 x 200), k of 1, a batch (blockIdx.z), bf16 and f16 (f32 sums, rounded
// as stored), f64, vector loads of f32, bf16, f16 and f64 rows, and a
// matrix sliced by columns across ranks.
// RUN: coco-translate %s --emit=plan | FileCheck %s --check-prefix=PLAN
// RUN: coco-translate %s --emit=ptx --chip sm_80 --cuda-path %cuda --resource-usage -o %t.ptx 2>&1 | FileCheck %s --check-prefix=ASM
// RUN: coco-translate %s --emit=ptx --chip sm_90 --cuda-path %cuda --resource-usage -o %t.ptx 2>&1 | FileCheck %s --check-prefix=ASM
// RUN: coco-translate %s --emit=ptx | FileCheck %s --check-prefix=PTX
// The same kernels' indexing, run: --gemm gpu-tiles compiles the native
// kernels as the GPU's loops (blocks, then threads, one phase between
// barriers at a time), checked against the interpreter: bit for bit with
// ordered arithmetic (every sum in the interpreter's order), within
// tolerance with fused multiply-adds (the GPU's default, fma.rn).
// RUN: coco-run %s --backend cpu --ranks 1 --seed 4 --check --gemm gpu-tiles --gemm-arithmetic ordered | FileCheck %s --check-prefix=ORDERED
// RUN: coco-run %s --backend cpu --ranks 3 --seed 5 --check --gemm gpu-tiles --gemm-arithmetic ordered | FileCheck %s --check-prefix=ORDERED
// RUN: coco-run %s --backend cpu --ranks 3 --seed 6 --check --gemm gpu-tiles | FileCheck %s --check-prefix=FUSED
// RUN: coco-translate %s --emit=kernels --gemm gpu-tiles | FileCheck %s --check-prefix=EMULATED

// Default 64 x 64 tiles: 4 x 3 blocks; 128 x 128: 2 x 2; [16, 40, 3] is
// 16 x 48 x 3: 5 x 9; the batch of 3 on z.
// PLAN:      entry = "tiles_k0_kernel"
// PLAN-NEXT: grid = [4, 3, 1]
// PLAN-NEXT: block = [256, 1, 1]
// PLAN:      entry = "tiles_k1_kernel"
// PLAN-NEXT: grid = [2, 2, 1]
// PLAN:      entry = "tiles_k2_kernel"
// PLAN-NEXT: grid = [5, 9, 1]
// PLAN:      entry = "tiles_k3_kernel"
// PLAN-NEXT: grid = [2, 2, 3]
// PLAN:      entry = "tiles_k4_kernel"
// PLAN-NEXT: grid = [1, 1, 1]
// PLAN:      entry = "tiles_k5_kernel"
// PLAN-NEXT: grid = [1, 1, 1]
// PLAN:      entry = "tiles_k6_kernel"
// PLAN-NEXT: grid = [3, 3, 1]

// No spills; shared memory is BK x (BM + BN) sums: 8 x 128 x 4 bytes by
// default, 32 x 256 x 4 for [128, 128, 32], 3 x 64 x 4 for [16, 48, 3],
// 8 x 128 x 8 for f64.
// ASM:      kernel registers spill stores spill loads shared bytes stack bytes
// ASM-NEXT: tiles_k0_kernel {{[0-9]+}} 0 0 4096 0
// ASM-NEXT: tiles_k1_kernel {{[0-9]+}} 0 0 32768 0
// ASM-NEXT: tiles_k2_kernel {{[0-9]+}} 0 0 768 0
// ASM-NEXT: tiles_k3_kernel {{[0-9]+}} 0 0 4096 0
// ASM-NEXT: tiles_k4_kernel {{[0-9]+}} 0 0 4096 0
// ASM-NEXT: tiles_k5_kernel {{[0-9]+}} 0 0 8192 0
// ASM-NEXT: tiles_k6_kernel {{[0-9]+}} 0 0 6144 0

// The first kernel: B's rows (200 f32) are read 16 bytes at a time, A's
// (75) one element at a time, both through shared memory between
// barriers, and the sums are fused multiply-adds.
// PTX-LABEL: .entry tiles_k0_kernel
// PTX:       ld.global.v4.f32
// PTX:       bar.sync
// PTX:       ld.shared
// PTX:       fma.rn.f32
// PTX:       bar.sync
// PTX-LABEL: .entry tiles_k1_kernel

// ORDERED:      check against the reference interpreter:
// ORDERED-NEXT:   tiles.result0: bitwise equal
// ORDERED-NEXT:   tiles.result1: bitwise equal
// ORDERED-NEXT:   tiles.result2: bitwise equal
// ORDERED-NEXT:   tiles.result3: bitwise equal
// ORDERED-NEXT:   tiles.result4: bitwise equal
// ORDERED-NEXT:   tiles.result5: bitwise equal
// ORDERED-NEXT:   tiles.result6: bitwise equal

// FUSED:      check against the reference interpreter:
// FUSED-COUNT-7: tiles.result{{[0-9]}}: {{bitwise equal|largest relative error}}

// The emulation's shared tiles and saved sums follow coco.tile: [128, 128,
// 32] is 32 x 128 of A and of B and 8 x 8 sums for each of 256 threads.
// EMULATED-LABEL: func.func @tiles_k1(
// EMULATED-DAG:   memref.alloc() : memref<32x128xf32>
// EMULATED-DAG:   memref.alloc() : memref<256x8x8xf32>
// EMULATED-LABEL: func.func @tiles_k2(
// EMULATED-DAG:   memref.alloc() : memref<3x16xf32>
// EMULATED-DAG:   memref.alloc() : memref<3x48xf32>
// EMULATED-DAG:   memref.alloc() : memref<256x1x3xf32>
func.func @tiles(%a: tensor<130x75xf32, #coco.replicated>, %b: tensor<75x200xf32, #coco.replicated>,
                 %c: tensor<3x70x24xbf16, #coco.sliced<0>>, %d: tensor<3x24x96xbf16, #coco.sliced<0>>,
                 %e: tensor<33x1xf16, #coco.replicated>, %f: tensor<1x40xf16, #coco.replicated>,
                 %g: tensor<33x18xf64, #coco.replicated>, %h: tensor<18x6xf64, #coco.replicated>,
                 %x: tensor<96x64xf32, #coco.replicated>, %y: tensor<64x132xf32, #coco.sliced<1>>)
    -> (tensor<130x200xf32, #coco.replicated>, tensor<130x200xf32, #coco.replicated>,
        tensor<130x200xf32, #coco.replicated>, tensor<3x70x96xbf16, #coco.sliced<0>>,
        tensor<33x40xf16, #coco.replicated>, tensor<33x6xf64, #coco.replicated>,
        tensor<96x132xf32, #coco.sliced<1>>) {
  %r0 = coco.matmul %a, %b : tensor<130x75xf32, #coco.replicated>, tensor<75x200xf32, #coco.replicated> -> tensor<130x200xf32, #coco.replicated>
  %r1 = coco.matmul %a, %b {coco.tile = array<i64: 128, 128, 32>} : tensor<130x75xf32, #coco.replicated>, tensor<75x200xf32, #coco.replicated> -> tensor<130x200xf32, #coco.replicated>
  %r2 = coco.matmul %a, %b {coco.tile = array<i64: 16, 40, 3>} : tensor<130x75xf32, #coco.replicated>, tensor<75x200xf32, #coco.replicated> -> tensor<130x200xf32, #coco.replicated>
  %r3 = coco.matmul %c, %d : tensor<3x70x24xbf16, #coco.sliced<0>>, tensor<3x24x96xbf16, #coco.sliced<0>> -> tensor<3x70x96xbf16, #coco.sliced<0>>
  %r4 = coco.matmul %e, %f : tensor<33x1xf16, #coco.replicated>, tensor<1x40xf16, #coco.replicated> -> tensor<33x40xf16, #coco.replicated>
  %r5 = coco.matmul %g, %h : tensor<33x18xf64, #coco.replicated>, tensor<18x6xf64, #coco.replicated> -> tensor<33x6xf64, #coco.replicated>
  %r6 = coco.matmul %x, %y {coco.tile = array<i64: 32, 64, 16>} : tensor<96x64xf32, #coco.replicated>, tensor<64x132xf32, #coco.sliced<1>> -> tensor<96x132xf32, #coco.sliced<1>>
  return %r0, %r1, %r2, %r3, %r4, %r5, %r6 : tensor<130x200xf32, #coco.replicated>, tensor<130x200xf32, #coco.replicated>, tensor<130x200xf32, #coco.replicated>, tensor<3x70x96xbf16, #coco.sliced<0>>, tensor<33x40xf16, #coco.replicated>, tensor<33x6xf64, #coco.replicated>, tensor<96x132xf32, #coco.sliced<1>>
}
