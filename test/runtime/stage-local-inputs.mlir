// A #coco.local input of a pipeline stage has one tensor per rank of its
// stage, not of the world: seeded, 4 ranks give stage 0 two (it used to
// draw four and refuse them, on both backends).
// RUN: coco-run %s --backend reference --ranks 4 --seed 2 --list-inputs | FileCheck %s --check-prefix=LIST
// RUN: coco-run %s --backend cpu --ranks 4 --seed 2 --check | FileCheck %s
// RUN: coco-run %s --backend cpu --ranks 8 --seed 3 --check | FileCheck %s

// LIST: a.arg0 (%g): f32 [8] #coco.local
// CHECK: b.result0: bitwise equal

coco.process_group @s0 stage 0 of 2
coco.process_group @s1 stage 1 of 2

func.func @a(%g: tensor<8xf32, #coco.local>) attributes {coco.group = @s0} {
  %r = coco.all_reduce sum %g : tensor<8xf32, #coco.local> -> tensor<8xf32, #coco.replicated>
  coco.send %r to @s1 : tensor<8xf32, #coco.replicated>
  return
}

func.func @b() -> tensor<8xf32, #coco.replicated> attributes {coco.group = @s1} {
  %r = coco.recv from @s0 : tensor<8xf32, #coco.replicated>
  return %r : tensor<8xf32, #coco.replicated>
}
