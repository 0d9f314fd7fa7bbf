// Mesh axis names that need quoting (a quote, a space, a newline) survive
// the passes that build placements from them, the plan (TOML strings) and
// the executor's per-axis communicators: split over such an axis, compiled,
// bitwise against the interpreter.
// RUN: coco-opt %s --coco-split -o %t.split.mlir
// RUN: coco-run %t.split.mlir --backend cpu --ranks 4 --seed 2 --check --exact-reductions | FileCheck %s
// RUN: coco-translate %t.split.mlir --emit=plan --ranks 4 | FileCheck %s --check-prefix=PLAN

// CHECK: odd.result0: bitwise equal
// PLAN: mesh = [{ name = 'd"p x', size = 2 }, { name = """
// PLAN: op = "reduce_scatter"
// PLAN: axis = 'd"p x'
coco.mesh @grid ["d\"p x" = 2, "t\np" = 2]
func.func @odd(%g: tensor<8x4xf32, #coco.mesh<{"d\"p x" = #coco.local, "t\np" = #coco.sliced<1>}>> {coco.input = "normal(0,1)"}) -> tensor<8x4xf32, #coco.mesh<{"d\"p x" = #coco.replicated, "t\np" = #coco.sliced<1>}>> {
  %r = coco.all_reduce sum %g over "d\"p x" : tensor<8x4xf32, #coco.mesh<{"d\"p x" = #coco.local, "t\np" = #coco.sliced<1>}>> -> tensor<8x4xf32, #coco.mesh<{"d\"p x" = #coco.replicated, "t\np" = #coco.sliced<1>}>>
  return %r : tensor<8x4xf32, #coco.mesh<{"d\"p x" = #coco.replicated, "t\np" = #coco.sliced<1>}>>
}
