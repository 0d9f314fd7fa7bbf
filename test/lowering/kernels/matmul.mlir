// Stage test of kernel/matmul.rs (--emit=kernels): coco.matmul becomes
// linalg.matmul (2-D) or linalg.batch_matmul (3-D) on the local shapes,
// accumulating into a zero-filled tensor of the accumulation type: f32 for
// f32 with nothing after it, f32 for bf16 and f16 followed by one parallel
// linalg.generic that rounds with arith.truncf. Under coco-overlap each row
// chunk is a kernel of its own (matmul_chunk), the same for every chunk,
// rounding straight into the output buffer.
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry matmul_f32 | FileCheck %s --check-prefix=F32
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry matmul_bf16 | FileCheck %s --check-prefix=BF16
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry batch_f16 | FileCheck %s --check-prefix=BATCH
// RUN: coco-translate %s --emit=kernels --ranks 2 --entry matmul_i32 | FileCheck %s --check-prefix=I32
// RUN: coco-opt %s --coco-overlap="chunks=2" | coco-translate - --emit=kernels --ranks 2 --entry overlapped | FileCheck %s --check-prefix=CHUNK

// The weight is sliced by columns: each of 2 ranks multiplies by 16 of 32.
// F32: func.func @matmul_f32_k0(%p0: memref<8x16xf32> {{.*}}, %p1: memref<16x16xf32> {{.*}}, %p2: memref<8x16xf32> {{.*}}, %rank: index)
// F32: %[[ZERO:.*]] = arith.constant 0.0 : f32
// F32-NEXT: %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<8x16xf32>)
// F32-NEXT: %[[C:.*]] = linalg.matmul ins(%in0, %in1 : tensor<8x16xf32>, tensor<16x16xf32>) outs(%[[ACC]] : tensor<8x16xf32>) -> tensor<8x16xf32>
// F32-NEXT: bufferization.materialize_in_destination %[[C]] in restrict writable %p2
// F32-NOT: linalg.generic
func.func @matmul_f32(%a: tensor<8x16xf32, #coco.replicated>, %b: tensor<16x32xf32, #coco.sliced<1>>) -> tensor<8x32xf32, #coco.sliced<1>> {
  %c = coco.matmul %a, %b : tensor<8x16xf32, #coco.replicated>, tensor<16x32xf32, #coco.sliced<1>> -> tensor<8x32xf32, #coco.sliced<1>>
  return %c : tensor<8x32xf32, #coco.sliced<1>>
}

// BF16: arith.constant 0.0 : f32
// BF16: %[[M:.*]] = linalg.matmul ins(%in0, %in1 : tensor<8x16xbf16>, tensor<16x32xbf16>) outs(%{{.*}} : tensor<8x32xf32>) -> tensor<8x32xf32>
// BF16: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} ins(%[[M]] : tensor<8x32xf32>) outs(%{{.*}} : tensor<8x32xbf16>)
// BF16-NEXT: ^bb0(%a: f32, %b: bf16):
// BF16-NEXT: %r = arith.truncf %a : f32 to bf16
// BF16-NEXT: linalg.yield %r : bf16
func.func @matmul_bf16(%a: tensor<8x16xbf16, #coco.replicated>, %b: tensor<16x32xbf16, #coco.replicated>) -> tensor<8x32xbf16, #coco.replicated> {
  %c = coco.matmul %a, %b : tensor<8x16xbf16, #coco.replicated>, tensor<16x32xbf16, #coco.replicated> -> tensor<8x32xbf16, #coco.replicated>
  return %c : tensor<8x32xbf16, #coco.replicated>
}

// Two of the four batches on each rank.
// BATCH: %[[M:.*]] = linalg.batch_matmul ins(%in0, %in1 : tensor<2x8x16xf16>, tensor<2x16x8xf16>) outs(%{{.*}} : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
// BATCH: ins(%[[M]] : tensor<2x8x8xf32>) outs(%{{.*}} : tensor<2x8x8xf16>)
// BATCH: %r = arith.truncf %a : f32 to f16
func.func @batch_f16(%a: tensor<4x8x16xf16, #coco.sliced<0>>, %b: tensor<4x16x8xf16, #coco.sliced<0>>) -> tensor<4x8x8xf16, #coco.sliced<0>> {
  %c = coco.matmul %a, %b : tensor<4x8x16xf16, #coco.sliced<0>>, tensor<4x16x8xf16, #coco.sliced<0>> -> tensor<4x8x8xf16, #coco.sliced<0>>
  return %c : tensor<4x8x8xf16, #coco.sliced<0>>
}

// Rows 8 / 2 chunks, k 64 / 2 ranks; both chunks launch one kernel.
// CHUNK: func.func @overlapped_k0(%p0: memref<4x32xbf16> {{.*}}, %p1: memref<32x16xbf16> {{.*}}, %p2: memref<4x16xbf16> {{.*}}, %rank: index)
// CHUNK: %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>)
// CHUNK-NEXT: %m = linalg.matmul ins(%lhs, %rhs : tensor<4x32xbf16>, tensor<32x16xbf16>) outs(%f : tensor<4x16xf32>)
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
// I32-NEXT: linalg.matmul ins({{.*}} : tensor<8x16xi32>, tensor<16x8xi32>) outs(%{{.*}} : tensor<8x8xi32>)
// I32-NOT: linalg.generic
func.func @matmul_i32(%a: tensor<8x16xi32, #coco.replicated>, %b: tensor<16x8xi32, #coco.replicated>) -> tensor<8x8xi32, #coco.replicated> {
  %c = coco.matmul %a, %b : tensor<8x16xi32, #coco.replicated>, tensor<16x8xi32, #coco.replicated> -> tensor<8x8xi32, #coco.replicated>
  return %c : tensor<8x8xi32, #coco.replicated>
}
