// coco.reduce_elements over dimensions of size 1 on the CPU: the loop of
// one iteration that such a dimension gives looked parallel to
// affine-super-vectorize, which vectorised the accumulator's store along
// it into an invalid broadcasting vector.transfer_write ("internal error:
// the CPU pipeline failed"). The CPU pipeline now inlines one-iteration
// loops first. examples/coco/moe_capacity.mlir on 8 ranks (one token
// slot per rank in a [1, 64, 16] sum) failed the same way.
// RUN: coco-run %s --entry unit_sum --backend cpu --ranks 2 --seed 1 --check | FileCheck %s --check-prefix=SUM
// RUN: coco-run %s --entry unit_sum --backend cpu --ranks 4 --seed 2 --check | FileCheck %s --check-prefix=SUM
// RUN: coco-run %s --entry inner_unit --backend cpu --ranks 2 --seed 1 --check | FileCheck %s --check-prefix=INNER
// RUN: coco-run %s --entry inner_unit --backend cpu --ranks 3 --seed 2 --check | FileCheck %s --check-prefix=INNER
// RUN: coco-run %s --entry unit_avg --backend cpu --ranks 2 --seed 1 --check | FileCheck %s --check-prefix=AVG
// RUN: coco-run %s --entry unit_avg --backend cpu --ranks 4 --seed 2 --check | FileCheck %s --check-prefix=AVG
// RUN: coco-run ../examples/coco/moe_capacity.mlir --backend cpu --ranks 8 --seed 3 --check | FileCheck %s --check-prefix=MOE

// SUM: check against the reference interpreter:
// SUM-NEXT: unit_sum.result0: bitwise equal

// INNER: check against the reference interpreter:
// INNER-NEXT: inner_unit.result0: bitwise equal

// AVG: check against the reference interpreter:
// AVG-NEXT: unit_avg.result0: bitwise equal

// MOE: check against the reference interpreter:
// MOE-NEXT: moe_capacity.result0: {{bitwise equal|largest relative error}}

// The brief's case: a sum over the leading dimension of size 1.
func.func @unit_sum(%a: tensor<1x48x16xf32, #coco.sliced<1>>) -> tensor<48x16xf32, #coco.sliced<0>> {
  %r = coco.reduce_elements sum %a {dims = array<i64: 0>} : tensor<1x48x16xf32, #coco.sliced<1>> -> tensor<48x16xf32, #coco.sliced<0>>
  return %r : tensor<48x16xf32, #coco.sliced<0>>
}

// The innermost of several reduced dimensions has size 1.
func.func @inner_unit(%a: tensor<2x1x16xf32, #coco.replicated>) -> tensor<16xf32, #coco.replicated> {
  %r = coco.reduce_elements max %a {dims = array<i64: 0, 1>} : tensor<2x1x16xf32, #coco.replicated> -> tensor<16xf32, #coco.replicated>
  return %r : tensor<16xf32, #coco.replicated>
}

// A trailing dimension of size 1.
func.func @unit_avg(%a: tensor<48x1xf32, #coco.sliced<0>>) -> tensor<48xf32, #coco.sliced<0>> {
  %r = coco.reduce_elements avg %a {dims = array<i64: 1>} : tensor<48x1xf32, #coco.sliced<0>> -> tensor<48xf32, #coco.sliced<0>>
  return %r : tensor<48xf32, #coco.sliced<0>>
}
