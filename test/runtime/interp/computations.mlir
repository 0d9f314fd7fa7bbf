// RUN: coco-run %s --backend reference --ranks 1 --print-values | FileCheck %s
// RUN: coco-run %s --backend reference --ranks 2 --print-values | FileCheck %s
//
// Known answers that must not depend on the world size: the row-parallel
// matmul (after its all_reduce), casts, layer norm, norm, the dropout mask
// (keyed by global element index) and expand give the same global results on
// 1 and 2 ranks; only the local partial sums differ.

// CHECK:      computations.result0: f32 [2, 2] #coco.local
// CHECK:      computations.result1: f32 [2, 2] #coco.replicated
// CHECK-NEXT:   [19, 22, 43, 50]
// CHECK:      computations.result2: f16 [4] #coco.replicated
// CHECK-NEXT:   [0.0999755859375, 0.333251953125, 1, 65504]
// CHECK:      computations.result3: bf16 [4] #coco.replicated
// CHECK-NEXT:   [0.10009765625, 0.333984375, 1, 65536]
// CHECK:      computations.result4: f32 [2, 4] #coco.replicated
// CHECK-NEXT:   [-1.3416407108306885, -0.4472135901451111, 0.4472135901451111, 1.3416407108306885, -1.3416407108306885, -0.4472135901451111, 0.4472135901451111, 1.3416407108306885]
// CHECK:      computations.result5: f32 [] #coco.replicated
// CHECK-NEXT:   [5]
// CHECK:      computations.result6: f32 [8] #coco.sliced<0>
// CHECK-NEXT:   [2, 0, 2, 2, 0, 2, 0, 0]
// CHECK:      computations.result7: f32 [2, 4] #coco.sliced<1>
// CHECK-NEXT:   [1, 2, 3, 4, 1, 2, 3, 4]
// CHECK:      computations.result8: f32 [3, 2] #coco.replicated
// CHECK-NEXT:   [1, 4, 2, 5, 3, 6]
// CHECK:      computations.result9: f32 [1, 2] #coco.replicated
// CHECK-NEXT:   [0.2689414322376251, 0.7310585975646973]
func.func @computations()
    -> (tensor<2x2xf32, #coco.local>, tensor<2x2xf32, #coco.replicated>, tensor<4xf16, #coco.replicated>,
        tensor<4xbf16, #coco.replicated>, tensor<2x4xf32, #coco.replicated>, tensor<f32, #coco.replicated>,
        tensor<8xf32, #coco.sliced<0>>, tensor<2x4xf32, #coco.sliced<1>>, tensor<3x2xf32, #coco.replicated>,
        tensor<1x2xf32, #coco.replicated>) {
  // [[1, 2], [3, 4]] x [[5, 6], [7, 8]] = [[19, 22], [43, 50]], as a
  // row-parallel matmul (columns of a, rows of b sliced) plus an all_reduce.
  %a = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32, #coco.sliced<1>>
  %b = arith.constant dense<[[5.0, 6.0], [7.0, 8.0]]> : tensor<2x2xf32, #coco.sliced<0>>
  %partial = coco.matmul %a, %b : tensor<2x2xf32, #coco.sliced<1>>, tensor<2x2xf32, #coco.sliced<0>> -> tensor<2x2xf32, #coco.local>
  %c = coco.all_reduce sum %partial : tensor<2x2xf32, #coco.local> -> tensor<2x2xf32, #coco.replicated>

  // Casts round to nearest, ties to even: 65504 is f16's largest finite
  // value; in bf16 (8 significant bits) it rounds up to 65536.
  %x = arith.constant dense<[0.1, 0.3333333, 1.0, 65504.0]> : tensor<4xf32, #coco.replicated>
  %h = coco.cast %x : tensor<4xf32, #coco.replicated> -> tensor<4xf16, #coco.replicated>
  %y = arith.constant dense<[0.1, 0.3333333, 1.0, 65504.0]> : tensor<4xf32, #coco.replicated>
  %bh = coco.cast %y : tensor<4xf32, #coco.replicated> -> tensor<4xbf16, #coco.replicated>

  // Layer norm of [1, 2, 3, 4] per row, gamma 1, beta 0.
  %rows = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]]> : tensor<2x4xf32, #coco.replicated>
  %gamma = arith.constant dense<1.0> : tensor<4xf32, #coco.replicated>
  %beta = arith.constant dense<0.0> : tensor<4xf32, #coco.replicated>
  %ln = coco.layer_norm %rows, %gamma, %beta eps 0.0 : tensor<2x4xf32, #coco.replicated>, tensor<4xf32, #coco.replicated>, tensor<4xf32, #coco.replicated> -> tensor<2x4xf32, #coco.replicated>

  // ||[3, 4]|| = 5.
  %v = arith.constant dense<[3.0, 4.0]> : tensor<2xf32, #coco.replicated>
  %n = coco.norm %v : tensor<2xf32, #coco.replicated> -> tensor<f32, #coco.replicated>

  // Dropout on a sliced tensor: the same mask on any number of ranks.
  %ones = arith.constant dense<1.0> : tensor<8xf32, #coco.sliced<0>>
  %d = coco.dropout %ones prob 0.5 seed 7 : tensor<8xf32, #coco.sliced<0>>

  // A sliced bias broadcast over rows keeps its slice.
  %bias = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32, #coco.sliced<0>>
  %e = coco.expand %bias : tensor<4xf32, #coco.sliced<0>> -> tensor<2x4xf32, #coco.sliced<1>>

  // Transposes: a column-sliced [3, 2] becomes a row-sliced [2, 3], which
  // gathers back to the transpose of the transpose.
  %m = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32, #coco.replicated>
  %mt = coco.transpose %m : tensor<2x3xf32, #coco.replicated> -> tensor<3x2xf32, #coco.replicated>
  %mts = coco.slice %mt : tensor<3x2xf32, #coco.replicated> -> tensor<3x2xf32, #coco.sliced<1>>
  %back = coco.transpose %mts : tensor<3x2xf32, #coco.sliced<1>> -> tensor<2x3xf32, #coco.sliced<0>>
  %full = coco.all_gather %back : tensor<2x3xf32, #coco.sliced<0>> -> tensor<2x3xf32, #coco.replicated>
  %again = coco.transpose %full : tensor<2x3xf32, #coco.replicated> -> tensor<3x2xf32, #coco.replicated>

  // softmax([0, 1]) = [1/(1+e), e/(1+e)].
  %logits = arith.constant dense<[[0.0, 1.0]]> : tensor<1x2xf32, #coco.replicated>
  %soft = coco.softmax %logits : tensor<1x2xf32, #coco.replicated>

  return %partial, %c, %h, %bh, %ln, %n, %d, %e, %again, %soft
    : tensor<2x2xf32, #coco.local>, tensor<2x2xf32, #coco.replicated>, tensor<4xf16, #coco.replicated>,
      tensor<4xbf16, #coco.replicated>, tensor<2x4xf32, #coco.replicated>, tensor<f32, #coco.replicated>,
      tensor<8xf32, #coco.sliced<0>>, tensor<2x4xf32, #coco.sliced<1>>, tensor<3x2xf32, #coco.replicated>,
      tensor<1x2xf32, #coco.replicated>
}
