// --exact-reductions folds an all_reduce by exchanging parts: with fewer
// elements than ranks some ranks own no part, and their empty buffers must
// still be valid MPI arguments. An empty Rust slice points at address 1,
// which Open MPI reads as MPI_IN_PLACE and refused with MPI_ERR_ARG
// (tensor<3xf32> on 4 ranks, a 0-d tensor on 2).
// RUN: coco-run %s --backend cpu --ranks 4 --seed 3 --check --exact-reductions | FileCheck %s
// RUN: coco-run %s --backend cpu --ranks 2 --seed 3 --check --exact-reductions | FileCheck %s
// RUN: coco-run %s --backend cpu --ranks 3 --seed 3 --check --exact-reductions | FileCheck %s

// CHECK: small.result0: {{.*}}bitwise equal
// CHECK: small.result1: {{.*}}bitwise equal
func.func @small(%v: tensor<3xf32, #coco.local>, %s: tensor<f32, #coco.local>) -> (tensor<3xf32, #coco.replicated>, tensor<f32, #coco.replicated>) {
  %sum = coco.all_reduce sum %v : tensor<3xf32, #coco.local> -> tensor<3xf32, #coco.replicated>
  %total = coco.all_reduce sum %s : tensor<f32, #coco.local> -> tensor<f32, #coco.replicated>
  return %sum, %total : tensor<3xf32, #coco.replicated>, tensor<f32, #coco.replicated>
}
