// Programs on a [dp = 2, tp = 2] mesh, compiled: every collective over one
// axis (each row of ranks along it a group of its own, with a root along
// the axis), input and output files cut into blocks along both axes and
// stacked per position on a local axis, and a rank's block of a slice or a
// dropout mask from its coordinates, checked bitwise against the reference
// interpreter (integers and f32 with rank-order reductions).
// RUN: coco-run %s --entry axes --backend cpu --ranks 4 --seed 3 --check --exact-reductions | FileCheck %s
// RUN: coco-run %s --entry roots --backend cpu --ranks 4 --seed 3 --check --exact-reductions | FileCheck %s --check-prefix=ROOTS
// RUN: coco-run %s --entry norms --backend reference --ranks 4 --seed 3 --print-values | FileCheck %s --check-prefix=NORMS
// RUN: coco-opt %s --coco-partial-reduce -o %t.partial.mlir
// RUN: coco-run %t.partial.mlir --entry norms --backend reference --ranks 4 --seed 3 --print-values | FileCheck %s --check-prefix=NORMS
// RUN: coco-run %t.partial.mlir --entry norms --backend cpu --ranks 4 --seed 3 --check --exact-reductions | FileCheck %s --check-prefix=PARTIAL
// RUN: coco-translate %s --entry sliced --emit=ptx --ranks 4 | FileCheck %s --check-prefix=PTX
// RUN: coco-translate %s --entry axes --emit=plan --ranks 4 | FileCheck %s --check-prefix=PLAN
// RUN: coco-run %s --entry sliced --backend cpu --ranks 4 --seed 3 --check | FileCheck %s --check-prefix=SLICED
// RUN: not coco-run %s --entry axes --backend cpu --ranks 8 2>&1 | FileCheck %s --check-prefix=SIZE

// CHECK: check against the reference interpreter:
// CHECK-NEXT: axes.result0: bitwise equal
// CHECK-NEXT: axes.result1: bitwise equal
// CHECK-NEXT: axes.result2: bitwise equal
// CHECK-NEXT: axes.result3: bitwise equal
// CHECK-NEXT: axes.result4: bitwise equal
// CHECK-NEXT: axes.arg2: bitwise equal

// ROOTS: check against the reference interpreter:
// ROOTS-NEXT: roots.result0: bitwise equal
// ROOTS-NEXT: roots.result1: bitwise equal

// SLICED: check against the reference interpreter:
// SLICED-NEXT: sliced.result0: bitwise equal
// SLICED-NEXT: sliced.result1: bitwise equal
// SLICED-NEXT: sliced.result2: bitwise equal
// SLICED-NEXT: sliced.result3: bitwise equal
// SLICED-NEXT: sliced.result4: bitwise equal

// Every kernel compiles for the GPU too (the compiled:: trials check each
// has replayable launches: the coordinates are computed on the device).
// PTX-COUNT-5: .entry

// Integer sums and maxima from slices are exact: the same values before and
// after coco-partial-reduce.
// NORMS: norms.result0: i64 [] #coco.replicated
// NORMS-NEXT: [786]
// NORMS: norms.result1: i64 [] #coco.mesh<{dp = #coco.local, tp = #coco.replicated}>
// NORMS-NEXT: rank 0: [47]
// NORMS-NEXT: rank 1: [45]
// PARTIAL: norms.result0: bitwise equal
// PARTIAL: norms.result1: bitwise equal
// PARTIAL: norms.result2: bitwise equal

// PLAN: mesh = [{ name = "dp", size = 2 }, { name = "tp", size = 2 }]
// PLAN: axes = ["sliced-0", "replicated"]
// PLAN: axes = ["local", "sliced-1"]
// PLAN: op = "all_gather"
// PLAN: axis = "tp"
// PLAN: op = "all_reduce"
// PLAN: axis = "dp"

#batch = #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.replicated}>
#cols = #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>
#blocks = #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.sliced<1>}>
#replica_grads = #coco.mesh<{dp = #coco.local, tp = #coco.sliced<1>}>
#per_replica = #coco.mesh<{dp = #coco.local, tp = #coco.replicated}>
#tp_rows = #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<0>}>
#per_replica_tp = #coco.mesh<{dp = #coco.local, tp = #coco.local}>

// SIZE: error: {{.*}}mesh-compiled.mlir:[[@LINE+1]]:1: the mesh @grid [dp = 2, tp = 2] spans 4 ranks, but the world has 8; run on 4 ranks
coco.mesh @grid [dp = 2, tp = 2]

// A data- and tensor-parallel matmul gathered over tp; its column sums
// reduced over dp; a per-replica gradient all-reduced, reduce-scattered and
// averaged over dp; an all_to_all over tp that moves the split from
// columns to rows.
func.func @axes(%x: tensor<4x3xi64, #batch> {coco.input = "uniform(0,5)"},
                %w: tensor<3x4xi64, #cols> {coco.input = "uniform(0,5)"},
                %g: tensor<2x4xf32, #replica_grads> {coco.input = "normal(0,1)"})
    -> (tensor<4xi64, #coco.replicated>, tensor<4x4xi64, #batch>, tensor<2x4xf32, #cols>,
        tensor<2x4xf32, #blocks>, tensor<2x4xf32, #tp_rows>) {
  %h = coco.matmul %x, %w : tensor<4x3xi64, #batch>, tensor<3x4xi64, #cols> -> tensor<4x4xi64, #blocks>
  %rows = coco.all_gather %h over "tp" : tensor<4x4xi64, #blocks> -> tensor<4x4xi64, #batch>
  %part = coco.reduce_elements sum %rows {dims = array<i64: 0>} : tensor<4x4xi64, #batch> -> tensor<4xi64, #per_replica>
  %sums = coco.all_reduce sum %part over "dp" : tensor<4xi64, #per_replica> -> tensor<4xi64, #coco.replicated>
  %gavg = coco.all_reduce avg %g over "dp" : tensor<2x4xf32, #replica_grads> -> tensor<2x4xf32, #cols>
  %gscatter = coco.reduce_scatter sum %g over "dp" : tensor<2x4xf32, #replica_grads> -> tensor<2x4xf32, #blocks>
  %swapped = coco.all_to_all %gavg over "tp" : tensor<2x4xf32, #cols> -> tensor<2x4xf32, #tp_rows>
  %two = arith.constant 2.0 : f32
  %twos = tensor.splat %two : tensor<2x4xf32, #replica_grads>
  %scaled = arith.mulf %g, %twos : tensor<2x4xf32, #replica_grads>
  coco.update %g, %scaled : tensor<2x4xf32, #replica_grads>
  return %sums, %rows, %gavg, %gscatter, %swapped : tensor<4xi64, #coco.replicated>, tensor<4x4xi64, #batch>, tensor<2x4xf32, #cols>, tensor<2x4xf32, #blocks>, tensor<2x4xf32, #tp_rows>
}

// A root is a coordinate along the axis: tp rank 1 of each dp row.
func.func @roots(%v: tensor<3x2xf32, #per_replica_tp> {coco.input = "normal(0,1)"})
    -> (tensor<3x2xf32, #per_replica>, tensor<3x2xf32, #per_replica_tp>) {
  %b = coco.broadcast %v root 1 over "tp" : tensor<3x2xf32, #per_replica_tp> -> tensor<3x2xf32, #per_replica>
  %r = coco.reduce sum %v root 1 over "tp" : tensor<3x2xf32, #per_replica_tp> -> tensor<3x2xf32, #per_replica_tp>
  return %b, %r : tensor<3x2xf32, #per_replica>, tensor<3x2xf32, #per_replica_tp>
}

// A rank's block from its coordinates: slices that refine a replicated or
// partly sliced operand along one or both dimensions (dimension 0 over dp
// then tp), and dropout, whose counters are global element indices.
func.func @sliced(%x: tensor<4x4xi64, #batch> {coco.input = "uniform(0,9)"},
                  %r: tensor<4x8xf32, #coco.replicated> {coco.input = "normal(0,1)"})
    -> (tensor<4x4xi64, #coco.sliced<0>>, tensor<4x4xi64, #blocks>, tensor<4x8xf32, #blocks>,
        tensor<4x8xf32, #cols>, tensor<4x8xf32, #blocks>) {
  %quarters = coco.slice %x : tensor<4x4xi64, #batch> -> tensor<4x4xi64, #coco.sliced<0>>
  %tiles = coco.slice %x : tensor<4x4xi64, #batch> -> tensor<4x4xi64, #blocks>
  %rtiles = coco.slice %r : tensor<4x8xf32, #coco.replicated> -> tensor<4x8xf32, #blocks>
  %rcols = coco.slice %r : tensor<4x8xf32, #coco.replicated> -> tensor<4x8xf32, #cols>
  %dropped = coco.dropout %rtiles prob 0.5 seed 7 : tensor<4x8xf32, #blocks>
  return %quarters, %tiles, %rtiles, %rcols, %dropped : tensor<4x4xi64, #coco.sliced<0>>, tensor<4x4xi64, #blocks>, tensor<4x8xf32, #blocks>, tensor<4x8xf32, #cols>, tensor<4x8xf32, #blocks>
}

// Reductions of gathered values, which coco-partial-reduce computes from
// the slices and an all_reduce over the gathered axis.
func.func @norms(%s: tensor<8x4xi64, #batch> {coco.input = "uniform(0,50)"},
                 %t: tensor<8x4xi64, #coco.sliced<0>> {coco.input = "uniform(0,50)"},
                 %f: tensor<8x4xf32, #batch> {coco.input = "normal(0,1)"})
    -> (tensor<i64, #coco.replicated>, tensor<i64, #per_replica>, tensor<f32, #coco.replicated>) {
  %g = coco.all_gather %s over "dp" : tensor<8x4xi64, #batch> -> tensor<8x4xi64, #coco.replicated>
  %sum = coco.reduce_elements sum %g : tensor<8x4xi64, #coco.replicated> -> tensor<i64, #coco.replicated>
  %h = coco.all_gather %t over "tp" : tensor<8x4xi64, #coco.sliced<0>> -> tensor<8x4xi64, #batch>
  %max = coco.reduce_elements max %h : tensor<8x4xi64, #batch> -> tensor<i64, #per_replica>
  %fg = coco.all_gather %f over "dp" : tensor<8x4xf32, #batch> -> tensor<8x4xf32, #coco.replicated>
  %n = coco.norm %fg : tensor<8x4xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  return %sum, %max, %n : tensor<i64, #coco.replicated>, tensor<i64, #per_replica>, tensor<f32, #coco.replicated>
}
