// coco.reduce_elements of integers on every backend, bitwise the
// interpreter's: wrapping at the element's width (a sum of i32 that
// overflows wraps), avg toward zero, min and max from the type's extremes,
// over the whole tensor and over one dimension (per-expert token counts);
// a product of 96 factors in [1, 4) wraps too.
// RUN: coco-run %s --backend cpu --ranks 1 --seed 1 --check --input 'ids=uniform(-1000000000,1000000000)' --input 'small=uniform(-3,4)' --input 'f=uniform(1,4)' | FileCheck %s
// RUN: coco-run %s --backend cpu --ranks 3 --seed 2 --check --input 'ids=uniform(-1000000000,1000000000)' --input 'small=uniform(-3,4)' --input 'f=uniform(1,4)' | FileCheck %s
// RUN: coco-translate %s --emit=ptx --ranks 3 | FileCheck %s --check-prefix=PTX

// CHECK: check against the reference interpreter:
// CHECK-COUNT-7: ints.result{{[0-6]}}: bitwise equal
// PTX: .entry

func.func @ints(%ids: tensor<96x4xi64, #coco.sliced<0>>, %small: tensor<96x4xi32, #coco.replicated>, %f: tensor<96x4xi32, #coco.replicated>)
    -> (tensor<4xi64, #coco.replicated>, tensor<i32, #coco.replicated>, tensor<i32, #coco.replicated>,
        tensor<i64, #coco.replicated>, tensor<96xi32, #coco.replicated>, tensor<4xi32, #coco.replicated>,
        tensor<i32, #coco.replicated>) {
  %col = coco.reduce_elements sum %ids {dims = array<i64: 0>} : tensor<96x4xi64, #coco.sliced<0>> -> tensor<4xi64, #coco.local>
  %cols = coco.all_reduce sum %col : tensor<4xi64, #coco.local> -> tensor<4xi64, #coco.replicated>
  %narrow = arith.trunci %ids : tensor<96x4xi64, #coco.sliced<0>> to tensor<96x4xi32, #coco.sliced<0>>
  %wrapped = coco.reduce_elements sum %narrow : tensor<96x4xi32, #coco.sliced<0>> -> tensor<i32, #coco.local>
  %wrap = coco.all_reduce sum %wrapped : tensor<i32, #coco.local> -> tensor<i32, #coco.replicated>
  %lo = coco.reduce_elements min %narrow : tensor<96x4xi32, #coco.sliced<0>> -> tensor<i32, #coco.local>
  %low = coco.all_reduce min %lo : tensor<i32, #coco.local> -> tensor<i32, #coco.replicated>
  %hi = coco.reduce_elements max %ids : tensor<96x4xi64, #coco.sliced<0>> -> tensor<i64, #coco.local>
  %high = coco.all_reduce max %hi : tensor<i64, #coco.local> -> tensor<i64, #coco.replicated>
  %rows = coco.reduce_elements avg %small {dims = array<i64: 1>} : tensor<96x4xi32, #coco.replicated> -> tensor<96xi32, #coco.replicated>
  %prods = coco.reduce_elements prod %f {dims = array<i64: 0>} : tensor<96x4xi32, #coco.replicated> -> tensor<4xi32, #coco.replicated>
  %mean = coco.reduce_elements avg %small : tensor<96x4xi32, #coco.replicated> -> tensor<i32, #coco.replicated>
  return %cols, %wrap, %low, %high, %rows, %prods, %mean
    : tensor<4xi64, #coco.replicated>, tensor<i32, #coco.replicated>, tensor<i32, #coco.replicated>,
      tensor<i64, #coco.replicated>, tensor<96xi32, #coco.replicated>, tensor<4xi32, #coco.replicated>,
      tensor<i32, #coco.replicated>
}
