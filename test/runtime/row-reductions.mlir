// Softmax and layer norm rows on the CPU, vectorised across rows
// (kernel/reduction.rs row_reduction, pipelines::with_row_reductions): when
// the row count and the width are multiples of the host's f32 lanes, each
// reduction is tiled lanes x lanes and every lane sums its own row in
// order, so the results are the interpreter's bit for bit, as the scalar
// loops' are (the f32 softmax's exp is a polynomial, within tolerance of
// libm's (kernel/math.rs); in bf16 and f16 the
// rounding hides it). 3-D and 2-D inputs (rows collapsed to one
// dimension), f32, bf16 and f16, rows sliced over ranks, and a layer norm
// of 17 rows, which keeps the scalar loop.
// RUN: coco-run %s --backend cpu --ranks 1 --seed 5 --check --input 's=normal(0,4)' --input 'b=normal(0,4)' | FileCheck %s
// RUN: coco-run %s --backend cpu --ranks 2 --seed 6 --check --input 's=normal(0,4)' --input 'b=normal(0,4)' | FileCheck %s
// RUN: coco-translate %s --emit=kernels --ranks 2 | FileCheck %s --check-prefix=TEXT

// CHECK:      check against the reference interpreter:
// CHECK-NEXT:   rows.result0: {{bitwise equal|largest relative error}}
// CHECK-NEXT:   rows.result1: bitwise equal
// CHECK-NEXT:   rows.result2: bitwise equal
// CHECK-NEXT:   rows.result3: bitwise equal
// CHECK-NEXT:   rows.result4: bitwise equal
// The softmaxes' maximum and sum, the layer norms' sum and variance; not the
// 17-row layer norm's.
// TEXT-COUNT-8: iterator_types = ["parallel", "reduction"], coco.row_reduction}
// TEXT-NOT: coco.row_reduction
func.func @rows(%s: tensor<2x32x48xf32, #coco.sliced<0>>, %b: tensor<32x64xbf16, #coco.replicated>,
                %h: tensor<16x80xf16, #coco.replicated>, %hg: tensor<80xf16, #coco.replicated>, %hb: tensor<80xf16, #coco.replicated>,
                %o: tensor<17x32xf32, #coco.replicated>, %og: tensor<32xf32, #coco.replicated>, %ob: tensor<32xf32, #coco.replicated>,
                %w: tensor<32x64xf32, #coco.sliced<0>>, %wg: tensor<64xf32, #coco.replicated>, %wb: tensor<64xf32, #coco.replicated>)
    -> (tensor<2x32x48xf32, #coco.sliced<0>>, tensor<32x64xbf16, #coco.replicated>,
        tensor<16x80xf16, #coco.replicated>, tensor<17x32xf32, #coco.replicated>, tensor<32x64xf32, #coco.sliced<0>>) {
  %0 = coco.softmax %s : tensor<2x32x48xf32, #coco.sliced<0>>
  %1 = coco.softmax %b : tensor<32x64xbf16, #coco.replicated>
  %2 = coco.layer_norm %h, %hg, %hb eps 1.0e-5 : tensor<16x80xf16, #coco.replicated>, tensor<80xf16, #coco.replicated>, tensor<80xf16, #coco.replicated> -> tensor<16x80xf16, #coco.replicated>
  %3 = coco.layer_norm %o, %og, %ob eps 1.0e-5 : tensor<17x32xf32, #coco.replicated>, tensor<32xf32, #coco.replicated>, tensor<32xf32, #coco.replicated> -> tensor<17x32xf32, #coco.replicated>
  %4 = coco.layer_norm %w, %wg, %wb eps 1.0e-5 : tensor<32x64xf32, #coco.sliced<0>>, tensor<64xf32, #coco.replicated>, tensor<64xf32, #coco.replicated> -> tensor<32x64xf32, #coco.sliced<0>>
  return %0, %1, %2, %3, %4 : tensor<2x32x48xf32, #coco.sliced<0>>, tensor<32x64xbf16, #coco.replicated>, tensor<16x80xf16, #coco.replicated>, tensor<17x32xf32, #coco.replicated>, tensor<32x64xf32, #coco.sliced<0>>
}
