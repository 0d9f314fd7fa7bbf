// Bundles whose plan.toml was edited by hand (runtime/inputs/bundles/*, the
// plan of examples/coco/sgd.mlir for 2 ranks with one field changed) are
// refused when the plan is read, before any memory is touched, with the
// file and the place in it: a launch that passes the scalar learning rate
// where its kernel reads and writes 262144 floats (it crashed with SIGSEGV),
// an output written outside the output directory, a stage larger than the
// world (it tripped an assertion), a shape whose size overflows, and a plan
// of the previous format version. The compiler refuses to name files after
// a function whose name is no plain file name.
// RUN: not coco-run runtime/inputs/bundles/scalar-for-buffer --ranks 2 2>&1 | FileCheck %s --check-prefix=SCALAR
// RUN: not coco-run runtime/inputs/bundles/output-escape --ranks 2 2>&1 | FileCheck %s --check-prefix=ESCAPE
// RUN: not coco-run runtime/inputs/bundles/stage-past-world --ranks 1 2>&1 | FileCheck %s --check-prefix=WORLD
// RUN: not coco-run runtime/inputs/bundles/huge-shape --ranks 2 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not coco-run runtime/inputs/bundles/version-2 --ranks 2 2>&1 | FileCheck %s --check-prefix=VERSION
// RUN: not coco-translate %s --emit=plan --ranks 2 2>&1 | FileCheck %s --check-prefix=NAME

// SCALAR: coco-run: error: runtime/inputs/bundles/scalar-for-buffer/plan.toml: stage 0 (@sgd), step 4 (launch): kernel 'sgd_k3': argument 0 is buffer 'arg3', f32[] (4 bytes), where the kernel takes f32[262144] (1048576 bytes)
// ESCAPE: coco-run: error: runtime/inputs/bundles/output-escape/plan.toml: stage 0 (@sgd): buffer 'arg1': output '../../sgd.arg1' is not a plain file name (it contains '/')
// WORLD: coco-run: error: runtime/inputs/bundles/stage-past-world/plan.toml: stage 0 (@sgd) runs ranks 0 .. 2, but the plan has 1 ranks
// HUGE: coco-run: error: runtime/inputs/bundles/huge-shape/plan.toml: stage 0 (@sgd): buffer 't1' (f32[4611686018427387904, 4]) is larger than one allocation can be
// VERSION: coco-run: error: runtime/inputs/bundles/version-2/plan.toml: plan format version 2; this executor reads version 4: recompile the bundle with this release's coco-translate --emit=bundle
// NAME: coco-translate: error: {{.*}}bundle-validation.mlir:[[@LINE+1]]:1: @../escape names the program's input and output files, but '../escape' is not a plain file name (it contains '/')
func.func @"../escape"(%x: tensor<4xf32, #coco.local>) -> tensor<4xf32, #coco.replicated> {
  %s = coco.all_reduce sum %x : tensor<4xf32, #coco.local> -> tensor<4xf32, #coco.replicated>
  return %s : tensor<4xf32, #coco.replicated>
}
