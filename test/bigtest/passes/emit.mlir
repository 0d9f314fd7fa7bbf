// bigtest-emit alone, on hand-written `sat` paths whose constraints pin
// each record's value, so the records are known: path 0 (dropped) needs
// -4, path 2 (two records folded by the global reduce) needs 2 and 3, and
// path 1 (one record reduced alone) needs 7, which cannot share a dataset
// with path 2's two records, so it gets test case 1. The `unsat` path 3
// gets no records, and the earlier record ("999") is replaced. Every
// record is checked by running the program in the interpreter. Values the
// paths leave free are then made natural where the program still follows
// the same paths (the 2, where `a + b` and `a * b` agree, becomes 5), and
// a third record of the folded pair (case 2, covering no path at k=2) lets
// the reducer's result be an operand again.
// A `sat` path whose records make the program take another path (path 0 of
// @kept: it passes the filter only for x > 0, but its script says x = -5)
// is a warning on its op, never claimed as covered; a UDF the analysis
// cannot model is an error naming the op, and that program gets no records.
// RUN: not coco-opt %s --split-input-file --pass-pipeline='builtin.module(bigtest-emit)' | FileCheck %s --implicit-check-not=999
// RUN: not coco-opt %s --split-input-file --pass-pipeline='builtin.module(bigtest-emit)' 2>&1 >/dev/null | FileCheck %s --check-prefix=DIAG
// A timeout outside 1..600000 ms is an error naming the pass.
// RUN: not coco-opt %s --split-input-file --pass-pipeline='builtin.module(bigtest-emit{timeout-ms=0})' 2>&1 | FileCheck %s --check-prefix=RANGE

// CHECK: bigtest.jdu_path 3 of @total status unsat
// CHECK-NEXT: bigtest.test_record of @total source "numbers" text "5" covers [2]
// CHECK-NEXT: bigtest.test_record of @total source "numbers" text "3" covers [2]
// CHECK-NEXT: bigtest.test_record of @total source "numbers" text "-4" covers [0]
// CHECK-NEXT: bigtest.test_record of @total case 1 source "numbers" text "7" covers [1]
// CHECK-NEXT: bigtest.test_record of @total case 2 source "numbers" text "5" covers []
// CHECK-NEXT: bigtest.test_record of @total case 2 source "numbers" text "3" covers []
// CHECK-NEXT: bigtest.test_record of @total case 2 source "numbers" text "7" covers []
// CHECK-NEXT: {{^}}}

// RANGE: coco-opt: error: bigtest-emit: option 'timeout-ms' must be between 1 and 600000, found 0

module attributes {df.host = "jvm"} {
func.func @positive(%x: i64) -> i1 {
  %zero = arith.constant 0 : i64
  %ok = arith.cmpi sgt, %x, %zero : i64
  return %ok : i1
}

func.func @add(%a: i64, %b: i64) -> i64 {
  %sum = arith.addi %a, %b : i64
  return %sum : i64
}

func.func @total() {
  %numbers = df.source "numbers" inline ["1"] delimiter "," : !df.dataset<i64>
  %kept = df.filter %numbers @positive : !df.dataset<i64>
  %sum = df.reduce %kept @add : !df.dataset<i64>
  df.sink "out" %sum : !df.dataset<i64>
  return
}

bigtest.jdu_path 0 of @total status sat branches ["source#0", "filter#1=drop"] constraints ["(declare-const numbers.f0 Int)", "(assert (= numbers.f0 (- 4)))"] records [{fields = ["numbers.f0"], source = "numbers"}]
bigtest.jdu_path 1 of @total status sat branches ["source#0", "filter#1=pass", "reduce#2=single", "sink#3"] constraints ["(declare-const numbers.f0 Int)", "(assert (= numbers.f0 7))"] records [{fields = ["numbers.f0"], source = "numbers"}]
bigtest.jdu_path 2 of @total status sat branches ["reduce#2=fold{source#0, filter#1=pass | source#0, filter#1=pass}", "sink#3"] constraints ["(declare-const numbers_0.f0 Int)", "(declare-const numbers_1.f0 Int)", "(assert (= numbers_0.f0 2))", "(assert (= numbers_1.f0 3))"] records [{fields = ["numbers_0.f0"], source = "numbers"}, {fields = ["numbers_1.f0"], source = "numbers"}]
bigtest.jdu_path 3 of @total status unsat branches ["source#0", "filter#1=drop"] constraints ["(declare-const numbers.f0 Int)", "(assert (> numbers.f0 0))", "(assert (< numbers.f0 0))"] records [{fields = ["numbers.f0"], source = "numbers"}]
bigtest.test_record of @total source "numbers" text "999" covers [0]
}

// -----

// CHECK: bigtest.jdu_path 1 of @kept status sat
// CHECK-NEXT: bigtest.test_record of @kept source "numbers" text "0" covers [1]
// CHECK-NEXT: {{^}}}
// DIAG: emit.mlir:[[@LINE+14]]:1: warning: no test data makes @kept follow path 0: no dataset makes the program follow it
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

bigtest.jdu_path 0 of @kept status sat branches ["source#0", "filter#1=pass", "sink#2"] constraints ["(declare-const numbers.f0 Int)", "(assert (= numbers.f0 (- 5)))"] records [{fields = ["numbers.f0"], source = "numbers"}]
bigtest.jdu_path 1 of @kept status sat branches ["source#0", "filter#1=drop"] constraints ["(declare-const numbers.f0 Int)", "(assert (= numbers.f0 0))"] records [{fields = ["numbers.f0"], source = "numbers"}]

// -----

// CHECK-NOT: @priced
// DIAG: emit.mlir:[[@LINE+4]]:8: error: calls @lookup, an external function without a body; BigTest can only analyse functions it can see
func.func private @lookup(%key: !df.str) -> i64

func.func @price(%sku: !df.str) -> (!df.str, i64) {
  %p = func.call @lookup(%sku) : (!df.str) -> i64
  return %sku, %p : !df.str, i64
}

func.func @priced() {
  %skus = df.source "skus" inline ["a"] delimiter "," : !df.dataset<!df.str>
  %priced = df.map %skus @price : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, i64>>
  df.sink "out" %priced : !df.dataset<tuple<!df.str, i64>>
  return
}

bigtest.jdu_path 0 of @priced status sat branches ["source#0", "map#1", "sink#2"] constraints ["(declare-const skus.f0 String)"] records [{fields = ["skus.f0"], source = "skus"}]
