// A module of two programs: `generate` writes each program's data to a
// folder of its own (DIR/<program>/), and `coverage --data DIR` reads each
// program's data from there, as `mutate` does.
// RUN: coco-bigtest generate %s -o %t | FileCheck %s
// RUN: coco-bigtest coverage %s --data %t | FileCheck %s --check-prefix=COVERAGE

// CHECK: positive 2 2 0 0
// CHECK: short 2 2 0 0

// COVERAGE: @positive: 2 JDU paths
// COVERAGE-NEXT: covered: 2 of 2 paths not shown infeasible (100.0%)
// COVERAGE: @short: 2 JDU paths
// COVERAGE-NEXT: covered: 2 of 2 paths not shown infeasible (100.0%)

func.func @is_positive(%n: i64) -> i1 {
  %zero = arith.constant 0 : i64
  %positive = arith.cmpi sgt, %n, %zero : i64
  return %positive : i1
}

func.func @positive() {
  %numbers = df.source "numbers" path "numbers.txt" delimiter "\t" : !df.dataset<i64>
  %kept = df.filter %numbers @is_positive : !df.dataset<i64>
  df.sink "kept" %kept path "kept.txt" : !df.dataset<i64>
  return
}

func.func @is_short(%word: !df.str) -> i1 {
  %four = arith.constant 4 : i64
  %length = df.length %word
  %short = arith.cmpi slt, %length, %four : i64
  return %short : i1
}

func.func @short() {
  %words = df.source "words" path "words.txt" delimiter "\t" : !df.dataset<!df.str>
  %kept = df.filter %words @is_short : !df.dataset<!df.str>
  df.sink "kept" %kept path "kept.txt" : !df.dataset<!df.str>
  return
}
