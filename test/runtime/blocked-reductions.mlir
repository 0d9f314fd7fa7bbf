// Whole-tensor float sums, averages, products and norms in the blocked
// order (compiler/dialects/src/coco/summation.rs): the CPU kernels are
// bitwise the interpreter's at sizes around the lane (16) and block (4096)
// boundaries, for f32, f16, bf16 and f64, sliced and replicated, on 1 and 3
// ranks. Values in [-1, 1) make the order visible: an index-order kernel
// differs from the interpreter here (last RUN line), which is what makes
// the bitwise lines a test of the order and not of luck.
// RUN: coco-run %s --backend cpu --ranks 1 --seed 3 --check --input 'a=uniform(-1,1)' --input 'b=uniform(-1,1)' --input 'c=uniform(-1,1)' --input 'd=uniform(-1,1)' --input 'e=uniform(0.999,1.001)' | FileCheck %s
// RUN: coco-run %s --backend cpu --ranks 3 --seed 4 --check --input 'a=uniform(-1,1)' --input 'b=uniform(-1,1)' --input 'c=uniform(-1,1)' --input 'd=uniform(-1,1)' --input 'e=uniform(0.999,1.001)' | FileCheck %s
// RUN: not coco-run %s --backend cpu --ranks 1 --seed 3 --check --cpu-reductions index-order --input 'a=uniform(-1,1)' --input 'b=uniform(-1,1)' --input 'c=uniform(-1,1)' --input 'd=uniform(-1,1)' --input 'e=uniform(0.999,1.001)' | FileCheck %s --check-prefix=SEQ
// RUN: coco-translate %s --emit=kernels --ranks 1 | FileCheck %s --check-prefix=KERNEL

// CHECK: check against the reference interpreter:
// CHECK-COUNT-12: sums.result{{[0-9]+}}: bitwise equal
// SEQ: check against the reference interpreter:
// SEQ-NEXT: sums.result0: largest relative error
// SEQ: sums.result8: FAILED: largest error

// The lanes' loop is innermost and parallel; the partials join pairwise
// through stride-2 slices.
// KERNEL: iterator_types = ["parallel", "reduction", "parallel"]
// KERNEL: tensor.extract_slice {{.*}}[1] [{{[0-9]+}}] [2]

func.func @sums(%a: tensor<12291xf32, #coco.sliced<0>>, %b: tensor<17x3xf16, #coco.replicated>,
                %c: tensor<4096xbf16, #coco.replicated>, %d: tensor<2x4097xf64, #coco.replicated>,
                %e: tensor<8193xf32, #coco.replicated>, %f: tensor<f32, #coco.replicated>)
    -> (tensor<f32, #coco.replicated>, tensor<f32, #coco.replicated>, tensor<f16, #coco.replicated>,
        tensor<f16, #coco.replicated>, tensor<bf16, #coco.replicated>, tensor<bf16, #coco.replicated>,
        tensor<f64, #coco.replicated>, tensor<f64, #coco.replicated>, tensor<f32, #coco.replicated>,
        tensor<f32, #coco.replicated>, tensor<f32, #coco.replicated>, tensor<f32, #coco.replicated>) {
  // 12291 = 3 * 4097 elements: each of 3 ranks holds one block and one
  // element; on one rank, three blocks and three elements.
  %as = coco.reduce_elements sum %a : tensor<12291xf32, #coco.sliced<0>> -> tensor<f32, #coco.local>
  %asum = coco.all_reduce sum %as : tensor<f32, #coco.local> -> tensor<f32, #coco.replicated>
  %sq = arith.mulf %a, %a : tensor<12291xf32, #coco.sliced<0>>
  %ss = coco.reduce_elements sum %sq : tensor<12291xf32, #coco.sliced<0>> -> tensor<f32, #coco.local>
  %ssum = coco.all_reduce sum %ss : tensor<f32, #coco.local> -> tensor<f32, #coco.replicated>
  %bsum = coco.reduce_elements sum %b : tensor<17x3xf16, #coco.replicated> -> tensor<f16, #coco.replicated>
  %bnorm = coco.norm %b : tensor<17x3xf16, #coco.replicated> -> tensor<f16, #coco.replicated>
  %cavg = coco.reduce_elements avg %c : tensor<4096xbf16, #coco.replicated> -> tensor<bf16, #coco.replicated>
  %cnorm = coco.norm %c : tensor<4096xbf16, #coco.replicated> -> tensor<bf16, #coco.replicated>
  %dsum = coco.reduce_elements sum %d {dims = array<i64: 0, 1>} : tensor<2x4097xf64, #coco.replicated> -> tensor<f64, #coco.replicated>
  %dnorm = coco.norm %d : tensor<2x4097xf64, #coco.replicated> -> tensor<f64, #coco.replicated>
  %eprod = coco.reduce_elements prod %e : tensor<8193xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  %emax = coco.reduce_elements max %e : tensor<8193xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  %fsum = coco.reduce_elements sum %f : tensor<f32, #coco.replicated> -> tensor<f32, #coco.replicated>
  return %asum, %ssum, %bsum, %bnorm, %cavg, %cnorm, %dsum, %dnorm, %eprod, %emax, %fsum, %fsum
    : tensor<f32, #coco.replicated>, tensor<f32, #coco.replicated>, tensor<f16, #coco.replicated>,
      tensor<f16, #coco.replicated>, tensor<bf16, #coco.replicated>, tensor<bf16, #coco.replicated>,
      tensor<f64, #coco.replicated>, tensor<f64, #coco.replicated>, tensor<f32, #coco.replicated>,
      tensor<f32, #coco.replicated>, tensor<f32, #coco.replicated>, tensor<f32, #coco.replicated>
}
