// bigtest-solve alone, on hand-written bigtest.jdu_path ops: each path's
// script goes to Z3 as written, whatever its status was, and the answer
// becomes the status. Path 0 is satisfiable; path 1 was marked `sat` but
// contradicts itself (x <= 0 and x > 5); path 2 raises 2 to an integer
// power, which Z3 gives up on at once ("incomplete (theory arithmetic)"),
// so it is `unknown` without waiting for the timeout; path 3, marked `unknown`,
// has no constraints, so it is `sat`. Nothing else in the op changes, and
// the test records are left alone. Every program of the module is solved
// (the second part: `mod` is the theory's, not the UDF's). A script Z3
// cannot read (a constant never declared, in the last part) is an error
// on its op, which fails the pass, so the command fails (`not`); the
// other parts still print. A timeout outside 1..600000 ms is an error
// naming the pass.
// RUN: not coco-opt %s --split-input-file --pass-pipeline='builtin.module(bigtest-solve)' | FileCheck %s
// RUN: not coco-opt %s --split-input-file --pass-pipeline='builtin.module(bigtest-solve)' 2>&1 >/dev/null | FileCheck %s --check-prefix=SCRIPT
// RUN: not coco-opt %s --split-input-file --pass-pipeline='builtin.module(bigtest-solve{timeout-ms=0})' 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not coco-opt %s --split-input-file --pass-pipeline='builtin.module(bigtest-solve{timeout-ms=600001})' 2>&1 | FileCheck %s --check-prefix=RANGE-HIGH

// CHECK: bigtest.jdu_path 0 of @kept status sat branches ["source#0", "filter#1=pass", "sink#2"] constraints ["(declare-const numbers.f0 Int)", "(assert (> numbers.f0 0))"] records [{fields = ["numbers.f0"], source = "numbers"}]
// CHECK-NEXT: bigtest.jdu_path 1 of @kept status unsat branches ["source#0", "filter#1=drop"] constraints ["(declare-const numbers.f0 Int)", "(assert (not (> numbers.f0 0)))", "(assert (> numbers.f0 5))"]
// CHECK-NEXT: bigtest.jdu_path 2 of @kept status unknown branches ["source#0", "filter#1=pass", "sink#2"]
// CHECK-NEXT: bigtest.jdu_path 3 of @kept status sat branches ["source#0", "filter#1=drop"] constraints []
// CHECK-NEXT: bigtest.test_record of @kept source "numbers" text "4" covers [0]
// CHECK-NEXT: {{^}}}

// RANGE: coco-opt: error: bigtest-solve: option 'timeout-ms' must be between 1 and 600000, found 0
// RANGE-HIGH: coco-opt: error: bigtest-solve: option 'timeout-ms' must be between 1 and 600000, found 600001

module attributes {df.host = "jvm"} {
func.func @positive(%x: i64) -> i1 {
  %zero = arith.constant 0 : i64
  %ok = arith.cmpi sgt, %x, %zero : i64
  return %ok : i1
}

func.func @kept() {
  %numbers = df.source "numbers" inline ["1"] delimiter "," : !df.dataset<i64>
  %kept = df.filter %numbers @positive : !df.dataset<i64>
  df.sink "out" %kept : !df.dataset<i64>
  return
}

bigtest.jdu_path 0 of @kept status unsolved branches ["source#0", "filter#1=pass", "sink#2"] constraints ["(declare-const numbers.f0 Int)", "(assert (> numbers.f0 0))"] records [{fields = ["numbers.f0"], source = "numbers"}]
bigtest.jdu_path 1 of @kept status sat branches ["source#0", "filter#1=drop"] constraints ["(declare-const numbers.f0 Int)", "(assert (not (> numbers.f0 0)))", "(assert (> numbers.f0 5))"] records [{fields = ["numbers.f0"], source = "numbers"}]
bigtest.jdu_path 2 of @kept status unsolved branches ["source#0", "filter#1=pass", "sink#2"] constraints ["(declare-const x Int)", "(assert (= (^ 2 x) 8))"] records []
bigtest.jdu_path 3 of @kept status unknown branches ["source#0", "filter#1=drop"] constraints [] records []
bigtest.test_record of @kept source "numbers" text "4" covers [0]
}

// -----

// CHECK: bigtest.jdu_path 0 of @evens status unsat
// CHECK-NEXT: bigtest.jdu_path 1 of @evens status sat
// CHECK: bigtest.jdu_path 0 of @odds status sat
// CHECK-NEXT: {{^}}}
func.func @even(%x: i64) -> i1 {
  %two = arith.constant 2 : i64
  %zero = arith.constant 0 : i64
  %r = arith.remsi %x, %two : i64
  %ok = arith.cmpi eq, %r, %zero : i64
  return %ok : i1
}

func.func @evens() {
  %numbers = df.source "numbers" inline ["2"] delimiter "," : !df.dataset<i64>
  %kept = df.filter %numbers @even : !df.dataset<i64>
  df.sink "out" %kept : !df.dataset<i64>
  return
}

bigtest.jdu_path 0 of @evens status sat branches ["source#0", "filter#1=pass", "sink#2"] constraints ["(declare-const n Int)", "(assert (= (mod n 2) 0))", "(assert (= (mod n 2) 1))"] records []
bigtest.jdu_path 1 of @evens status unsolved branches ["source#0", "filter#1=drop"] constraints ["(declare-const n Int)", "(assert (= (mod n 2) 1))"] records []

func.func @odds() {
  %numbers = df.source "numbers" inline ["3"] delimiter "," : !df.dataset<i64>
  %kept = df.filter %numbers @even : !df.dataset<i64>
  df.sink "out" %kept : !df.dataset<i64>
  return
}

bigtest.jdu_path 0 of @odds status unknown branches ["source#0", "filter#1=drop"] constraints ["(declare-const n Int)", "(assert (= (mod n 2) 1))"] records []

// -----

// CHECK-NOT: @broken
// SCRIPT: solve.mlir:[[@LINE+13]]:1: error: Z3 cannot read the constraints: line 2 column 11: unknown constant y
// SCRIPT-NOT: error
func.func @positive(%x: i64) -> i1 {
  %zero = arith.constant 0 : i64
  %ok = arith.cmpi sgt, %x, %zero : i64
  return %ok : i1
}
func.func @broken() {
  %numbers = df.source "numbers" inline ["1"] delimiter "," : !df.dataset<i64>
  %kept = df.filter %numbers @positive : !df.dataset<i64>
  df.sink "out" %kept : !df.dataset<i64>
  return
}
bigtest.jdu_path 0 of @broken status unsolved branches ["source#0", "filter#1=drop"] constraints ["(declare-const x Int)", "(assert (= y 0))"] records []
