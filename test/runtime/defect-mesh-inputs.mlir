// A mesh input local along "dp" is one tensor per position on "dp": the
// file holds [2, 8] on a [dp = 2, tp = 2] mesh (docs/bundle.md, "Meshes").
// --save-inputs wrote that, and the cpu backend read it, but the reference
// interpreter's --inputs asked for [4, 8] (one per rank) and then refused
// that too. Both backends now read the saved files back, and agree.
// RUN: coco-run %s --backend reference --ranks 4 --seed 5 --save-inputs %t.in --print-values | FileCheck %s --check-prefix=SEEDED
// RUN: coco-run %s --backend reference --ranks 4 --inputs %t.in --print-values | FileCheck %s --check-prefix=SEEDED
// RUN: coco-run %s --backend cpu --ranks 4 --inputs %t.in --check --exact-reductions | FileCheck %s
// RUN: coco-run %s --backend cpu --ranks 4 --seed 5 --save-inputs %t.cpu --check --exact-reductions | FileCheck %s
// RUN: coco-run %s --backend reference --ranks 4 --inputs %t.cpu --print-values | FileCheck %s --check-prefix=SEEDED
// RUN: not coco-run %s --backend reference --ranks 4 --inputs runtime/inputs/defect-mesh-inputs 2>&1 | FileCheck %s --check-prefix=SHAPE
// A pipeline stage's local input is one tensor per rank of its stage, read
// back in that shape too.
// RUN: coco-run runtime/stage-local-inputs.mlir --backend reference --ranks 4 --seed 2 --save-inputs %t.stage | FileCheck %s --check-prefix=STAGE
// RUN: coco-run runtime/stage-local-inputs.mlir --backend reference --ranks 4 --inputs %t.stage | FileCheck %s --check-prefix=STAGE
// RUN: coco-run runtime/stage-local-inputs.mlir --backend cpu --ranks 4 --inputs %t.stage --check | FileCheck %s --check-prefix=STAGE

// SEEDED: dp_local.result0: f32 [8] #coco.replicated
// SEEDED-NEXT: [0.1413462907075882, 0.6182195544242859, 0.6849803924560547, 0.8711880445480347, 1.222089409828186, 1.4083325862884521, 0.9351677298545837, 1.1199662685394287]

// CHECK: check against the reference interpreter:
// CHECK-NEXT: dp_local.result0: bitwise equal

// STAGE: b.result0: {{.*}}sum=7.368903e0

// SHAPE: coco-run: error: input 'dp_local.arg0' is #coco.local: {{.*}}dp_local.arg0.npy must have shape [2, 8] (one tensor per position on the mesh's local axes, for #coco.mesh<{dp = #coco.local, tp = #coco.replicated}>), found [4, 8]

coco.mesh @grid [dp = 2, tp = 2]

func.func @dp_local(%g: tensor<8xf32, #coco.mesh<{dp = #coco.local, tp = #coco.replicated}>>) -> tensor<8xf32, #coco.replicated> {
  %r = coco.all_reduce sum %g over "dp" : tensor<8xf32, #coco.mesh<{dp = #coco.local, tp = #coco.replicated}>> -> tensor<8xf32, #coco.replicated>
  return %r : tensor<8xf32, #coco.replicated>
}
