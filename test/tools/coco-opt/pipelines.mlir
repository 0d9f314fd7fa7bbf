// RUN: coco-opt %s --canonicalize --cse | FileCheck %s
// RUN: coco-opt %s --pass-pipeline='builtin.module(coco-verify, func.func(canonicalize{max-iterations=4}), cse)' | FileCheck %s
// RUN: coco-opt %s -canonicalize -cse | FileCheck %s
// RUN: not coco-opt %s --pass-pipeline='builtin.module(no-such-pass)' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not coco-opt %s --pass-pipeline='builtin.module(canonicalize{bogus=1})' 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not coco-opt %s --pass-pipeline='builtin.module(coco-verify{strict=1})' 2>&1 | FileCheck %s --check-prefix=COCO-OPTION
// RUN: not coco-opt %s --pass-pipeline='builtin.module(cse' 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not coco-opt %s --pass-pipeline='builtin.module(cse)' --canonicalize 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: not coco-opt %s --pass-pipeline='builtin.module(func.func(coco-split))' 2>&1 | FileCheck %s --check-prefix=NESTED-COCO
// RUN: not coco-opt %s --pass-pipeline='builtin.module(func.func(cse,gpu-kernel-outlining))' 2>&1 | FileCheck %s --check-prefix=NESTED-UPSTREAM
// RUN: not coco-opt %s --affine-loop-invariant-code-motion 2>&1 | FileCheck %s --check-prefix=NOT-NESTED
// RUN: coco-opt %s --pass-pipeline='builtin.module(func.func(affine-loop-invariant-code-motion), any(cse), builtin.module(coco-verify))' | FileCheck %s --check-prefix=ANCHORED
//
// coco ops are Pure where that is true, so upstream canonicalize and CSE
// remove dead gathers and merge identical collectives.

// UNKNOWN: coco-opt: error: invalid pass pipeline 'builtin.module(no-such-pass)': 'no-such-pass' does not refer to a registered pass or pass pipeline
// OPTION: coco-opt: error: invalid pass pipeline {{.*}} no such option bogus
// COCO-OPTION: coco-opt: error: coco-verify: unknown option 'strict' (this pass takes no options)
// SYNTAX: coco-opt: error: invalid pass pipeline 'builtin.module(cse': expected ')' to close 'builtin.module('
// BOTH: coco-opt: error: --pass-pipeline cannot be combined with individual pass flags
//
// MLIR stops the process on a pass added under an op it does not run on;
// coco-opt checks every pass's anchor first.
// NESTED-COCO: coco-opt: error: invalid pass pipeline 'builtin.module(func.func(coco-split))': pass 'coco-split' runs on 'builtin.module' ops, not on 'func.func'; nest it as builtin.module(coco-split)
// NESTED-UPSTREAM: coco-opt: error: invalid pass pipeline {{.*}}: pass 'gpu-kernel-outlining' runs on 'builtin.module' ops, not on 'func.func'; nest it as builtin.module(gpu-kernel-outlining)
// NOT-NESTED: coco-opt: error: invalid pass pipeline 'builtin.module(affine-loop-invariant-code-motion)': pass 'affine-loop-invariant-code-motion' runs on 'func.func' ops, not on 'builtin.module'; nest it as func.func(affine-loop-invariant-code-motion)
// ANCHORED: func.func @dead_and_duplicate

// CHECK-LABEL: func.func @dead_and_duplicate
// CHECK-NEXT: %[[R:.*]] = coco.all_reduce sum %arg0
// CHECK-NOT: coco.all_reduce
// CHECK-NOT: coco.all_gather
// CHECK: arith.addf %[[R]], %[[R]]
func.func @dead_and_duplicate(%g: tensor<8xf32, #coco.local>, %s: tensor<8xf32, #coco.sliced<0>>) -> tensor<8xf32, #coco.replicated> {
  %a = coco.all_reduce sum %g : tensor<8xf32, #coco.local> -> tensor<8xf32, #coco.replicated>
  %b = coco.all_reduce sum %g : tensor<8xf32, #coco.local> -> tensor<8xf32, #coco.replicated>
  %dead = coco.all_gather %s : tensor<8xf32, #coco.sliced<0>> -> tensor<8xf32, #coco.replicated>
  %c = arith.addf %a, %b : tensor<8xf32, #coco.replicated>
  return %c : tensor<8xf32, #coco.replicated>
}

// Side-effecting ops stay: send, recv and update are not Pure.
// CHECK-LABEL: func.func @effects_stay
// CHECK: coco.update
func.func @effects_stay(%p: tensor<8xf32, #coco.replicated>) {
  %n = math.sqrt %p : tensor<8xf32, #coco.replicated>
  coco.update %p, %n : tensor<8xf32, #coco.replicated>
  return
}
