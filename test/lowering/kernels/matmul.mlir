// Stage test of kernel/matmul.rs (--emit=kernels): coco.matmul becomes
// linalg.matmul (2-D) or linalg.batch_matmul (3-D) on the local shapes,
// into a tensor of the accumulation type (zero-filled for loops; a GEMM
// helper writes C = A B, so none for it): f32 for
// f32 with nothing after it, f32 for bf16 and f16 followed by one parallel
// linalg.generic that rounds with arith.truncf; with a helper that op is
// marked coco.gemm_rounding, and the helper, which also takes the rounded
// output, replaces both (it rounds as it stores the last block over k). Under coco-overlap each row
// chunk is a kernel of its own (matmul_chunk), the same for every chunk,
// rounding straight into the output buffer. Float matmuls name the GEMM
// helper that replaces them after bufferization (docs/gemm.md), written
// once before the kernels; integer ones stay loops. coco-tile's sizes
// block the helper: the TILED runs differ only in the tile and so in the
// helper's blocks (42 rows x 16 deep of A packed, 64 columns of B), which
// a 6- and a 14-row register tile both divide.
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry matmul_f32 | FileCheck %s --check-prefix=F32
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry matmul_bf16 | FileCheck %s --check-prefix=BF16
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry matmul_bf16 --mcpu znver4 | FileCheck %s --check-prefix=DOT
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry matmul_bf16 --mcpu znver4 --gemm-arithmetic ordered | FileCheck %s --check-prefix=NODOT
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry matmul_bf16 --mcpu x86-64-v3 | FileCheck %s --check-prefix=AVX2
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry batch_f16 | FileCheck %s --check-prefix=BATCH
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry matmul_i32 | FileCheck %s --check-prefix=I32
// RUN: coco-opt %s --coco-overlap="chunks=2" | coco-translate - --emit=kernels --ranks 2 --entry overlapped | FileCheck %s --check-prefix=CHUNK
// RUN: coco-opt %s --coco-tile="target=cpu matmul-rows=42 matmul-cols=64 matmul-depth=16" | coco-translate - --emit=kernels --entry tiled | FileCheck %s --check-prefix=TILED
// RUN: coco-opt %s --coco-tile="target=cpu" | coco-translate - --emit=kernels --entry tiled | FileCheck %s --check-prefix=DEFAULT

// The weight is sliced by columns: each of 2 ranks multiplies by 16 of 32.
// F32: func.func private @[[GEMM:coco_gemm_8x16x16_f32_f32_.*_fused]](%a: memref<8x16xf32, strided<[?, 1], offset: ?>>, %b: memref<16x16xf32, strided<[?, 1], offset: ?>>, %c: memref<8x16xf32, strided<[?, 1], offset: ?>>)
// F32: vector.fma
// F32: func.func @matmul_f32_k0(%p0: memref<8x16xf32> {{.*}}, %p1: memref<16x16xf32> {{.*}}, %p2: memref<8x16xf32> {{.*}}, %rank: index)
// F32: %[[ACC:.*]] = tensor.empty() : tensor<8x16xf32>
// F32-NEXT: %[[C:.*]] = linalg.matmul {coco.gemm = @[[GEMM]]} ins(%in0, %in1 : tensor<8x16xf32>, tensor<16x16xf32>) outs(%[[ACC]] : tensor<8x16xf32>) -> tensor<8x16xf32>
// F32-NEXT: bufferization.materialize_in_destination %[[C]] in restrict writable %p2
// F32-NOT: linalg.generic
func.func @matmul_f32(%a: tensor<8x16xf32, #coco.replicated>, %b: tensor<16x32xf32, #coco.sliced<1>>) -> tensor<8x32xf32, #coco.sliced<1>> {
  %c = coco.matmul %a, %b : tensor<8x16xf32, #coco.replicated>, tensor<16x32xf32, #coco.sliced<1>> -> tensor<8x32xf32, #coco.sliced<1>>
  return %c : tensor<8x32xf32, #coco.sliced<1>>
}

// BF16-NOT: linalg.fill
// BF16: %[[M:.*]] = linalg.matmul {coco.gemm = @coco_gemm_8x32x16_bf16_f32_{{.*}}} ins(%in0, %in1 : tensor<8x16xbf16>, tensor<16x32xbf16>) outs(%{{.*}} : tensor<8x32xf32>) -> tensor<8x32xf32>
// BF16: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"], coco.gemm_rounding} ins(%[[M]] : tensor<8x32xf32>) outs(%{{.*}} : tensor<8x32xbf16>)
// BF16-NEXT: ^bb0(%a: f32, %b: bf16):
// BF16-NEXT: %r = arith.truncf %a : f32 to bf16
// BF16-NEXT: linalg.yield %r : bf16
// With AVX512-BF16 (znver4) and fused arithmetic, bf16 GEMMs multiply in
// pairs with vdpbf16ps: B packed as bf16, two rows interleaved, k rounded
// up to even; A's pairs read in place (k is even here, so no A packing; the
// runtime test has odd k); ordered arithmetic, or a CPU without it (AVX2
// there, 6 x 16 register tiles), widens to f32 and uses FMAs. Every helper
// here rounds its sums to bf16 as it stores them into %d.
// DOT: func.func private @coco_dpbf16ps(vector<16xf32>, vector<32xbf16>, vector<32xbf16>) -> vector<16xf32>
// DOT: func.func private @coco_gemm_8x32x16_bf16_f32_b14x32x16_r14x32_fused_dot_to_bf16({{.*}}, %d: memref<8x32xbf16, strided<[?, 1], offset: ?>>)
// DOT-NOT: %ap = memref.alloc()
// DOT: vector.shuffle %{{.*}}, %{{.*}} [0, 16, 1, 17, 2, 18,
// DOT: vector.load %a[%{{.*}}, %{{.*}}] : memref<8x16xbf16, strided<[?, 1], offset: ?>>, vector<2xbf16>
// DOT: func.call @coco_dpbf16ps(%s0, %{{.*}}, %{{.*}}) : (vector<16xf32>, vector<32xbf16>, vector<32xbf16>) -> vector<16xf32>
// DOT: arith.truncf %{{.*}} : vector<16xf32> to vector<16xbf16>
// DOT: vector.store %{{.*}}, %d[
// NODOT-NOT: coco_dpbf16ps
// NODOT: func.func private @coco_gemm_8x32x16_bf16_f32_b14x32x16_r14x32_ordered_to_bf16(
// NODOT: arith.extf %{{.*}} : vector<16xbf16> to vector<16xf32>
// AVX2-NOT: coco_dpbf16ps
// AVX2: func.func private @coco_gemm_8x32x16_bf16_f32_b12x32x16_r6x16_fused_to_bf16(
// AVX2: vector.fma %{{.*}} : vector<8xf32>
func.func @matmul_bf16(%a: tensor<8x16xbf16, #coco.replicated>, %b: tensor<16x32xbf16, #coco.replicated>) -> tensor<8x32xbf16, #coco.replicated> {
  %c = coco.matmul %a, %b : tensor<8x16xbf16, #coco.replicated>, tensor<16x32xbf16, #coco.replicated> -> tensor<8x32xbf16, #coco.replicated>
  return %c : tensor<8x32xbf16, #coco.replicated>
}

// Two of the four batches on each rank.
// BATCH: func.func private @coco_gemm_8x8x16_f16_f32_
// BATCH: arith.extf %{{.*}} : vector<{{[0-9]+}}xf16> to vector<{{[0-9]+}}xf32>
// BATCH: func.func private @[[BATCHED:coco_gemm_2x8x8x16_f16_f32_.*]](
// BATCH: memref.subview %a[%t, 0, 0] [1, 8, 16] [1, 1, 1]
// BATCH: func.call @coco_gemm_8x8x16_f16_f32_
// BATCH: %[[M:.*]] = linalg.batch_matmul {coco.gemm = @[[BATCHED]]} ins(%in0, %in1 : tensor<2x8x16xf16>, tensor<2x16x8xf16>) outs(%{{.*}} : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
// BATCH: ins(%[[M]] : tensor<2x8x8xf32>) outs(%{{.*}} : tensor<2x8x8xf16>)
// BATCH: %r = arith.truncf %a : f32 to f16
func.func @batch_f16(%a: tensor<4x8x16xf16, #coco.sliced<0>>, %b: tensor<4x16x8xf16, #coco.sliced<0>>) -> tensor<4x8x8xf16, #coco.sliced<0>> {
  %c = coco.matmul %a, %b : tensor<4x8x16xf16, #coco.sliced<0>>, tensor<4x16x8xf16, #coco.sliced<0>> -> tensor<4x8x8xf16, #coco.sliced<0>>
  return %c : tensor<4x8x8xf16, #coco.sliced<0>>
}

// Rows 8 / 2 chunks, k 64 / 2 ranks; both chunks launch one kernel.
// CHUNK: func.func private @coco_gemm_4x16x32_bf16_f32_
// CHUNK: func.func @overlapped_k0(%p0: memref<4x32xbf16> {{.*}}, %p1: memref<32x16xbf16> {{.*}}, %p2: memref<4x16xbf16> {{.*}}, %rank: index)
// CHUNK: %e = tensor.empty() : tensor<4x16xf32>
// CHUNK-NEXT: %m = linalg.matmul {coco.gemm = @coco_gemm_4x16x32_bf16_f32_{{.*}}} ins(%lhs, %rhs : tensor<4x32xbf16>, tensor<32x16xbf16>) outs(%e : tensor<4x16xf32>)
// CHUNK-NEXT: %d = bufferization.to_tensor %p2 restrict writable
// CHUNK-NEXT: %r = linalg.generic {{.*}} ins(%m : tensor<4x16xf32>) outs(%d : tensor<4x16xbf16>)
// CHUNK: arith.truncf %a : f32 to bf16
// CHUNK-NOT: func.func
func.func @overlapped(%x: tensor<8x64xbf16, #coco.sliced<1>>, %w: tensor<64x16xbf16, #coco.sliced<0>>) -> tensor<8x16xbf16, #coco.replicated> {
  %p = coco.matmul %x, %w : tensor<8x64xbf16, #coco.sliced<1>>, tensor<64x16xbf16, #coco.sliced<0>> -> tensor<8x16xbf16, #coco.local>
  %s = coco.all_reduce sum %p : tensor<8x16xbf16, #coco.local> -> tensor<8x16xbf16, #coco.replicated>
  return %s : tensor<8x16xbf16, #coco.replicated>
}

// Integers accumulate at their own width, wrapping, as the interpreter does
// (through f32, an i32 sum would round): no narrowing generic.
// I32: %[[C:.*]] = arith.constant 0 : i32
// I32: linalg.fill ins(%[[C]] : i32) outs(%{{.*}} : tensor<8x8xi32>)
// I32-NOT: coco.gemm
// I32: linalg.matmul ins({{.*}} : tensor<8x16xi32>, tensor<16x8xi32>) outs(%{{.*}} : tensor<8x8xi32>)
// I32-NOT: linalg.generic

// TILED: func.func private @coco_gemm_84x128x64_f32_f32_b42x64x16_r{{[0-9]+}}x{{[0-9]+}}_fused(
// TILED: %ap = memref.alloc() : memref<672xf32>
// TILED: %bp = memref.alloc() : memref<1024xf32>
// TILED: scf.for %jc = %c0 to %c128 step %c64 {
// TILED: scf.for %pc = %c0 to %c64 step %c16 {
// TILED: scf.for %ic = %c0 to %c84 step %c42 {
// TILED: linalg.matmul {coco.gemm = @coco_gemm_84x128x64_f32_f32_b42x64x16_
// The default blocking, clamped to the matrix: one block of each.
// DEFAULT: func.func private @coco_gemm_84x128x64_f32_f32_b{{[0-9]+}}x128x64_
// DEFAULT: scf.for %jc = %c0 to %c128 step %c128 {
// DEFAULT: scf.for %pc = %c0 to %c64 step %c64 {
func.func @tiled(%a: tensor<84x64xf32, #coco.replicated>, %b: tensor<64x128xf32, #coco.replicated>) -> tensor<84x128xf32, #coco.replicated> {
  %c = coco.matmul %a, %b : tensor<84x64xf32, #coco.replicated>, tensor<64x128xf32, #coco.replicated> -> tensor<84x128xf32, #coco.replicated>
  return %c : tensor<84x128xf32, #coco.replicated>
}
func.func @matmul_i32(%a: tensor<8x16xi32, #coco.replicated>, %b: tensor<16x8xi32, #coco.replicated>) -> tensor<8x8xi32, #coco.replicated> {
  %c = coco.matmul %a, %b : tensor<8x16xi32, #coco.replicated>, tensor<16x8xi32, #coco.replicated> -> tensor<8x8xi32, #coco.replicated>
  return %c : tensor<8x8xi32, #coco.replicated>
}
