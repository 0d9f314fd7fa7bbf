// A source's `int32` fields hold 32-bit integers (a DataFrame's INT
// column): a record beyond that is no record (RUN), and the JDU paths keep
// generated values within it, so a path that needs more is infeasible
// ("big" needs units over 3e9 on the paths below).
// RUN: not coco-bigtest run %s 2>&1 | FileCheck %s
// RUN: coco-opt %s --pass-pipeline='builtin.module(bigtest-jdu-paths,bigtest-solve)' | FileCheck %s --check-prefix=PATHS

// CHECK: coco-bigtest: error: {{.*}}: source "items" record 1 ("bolt,3000000000") has field #1 "3000000000", which is not a 32-bit integer (an INT)

// PATHS: status sat branches ["source#0", "filter#1=drop"]
// PATHS: status unsat branches ["source#0", "filter#1=pass", "sink#2"]

func.func @big(%sku: !df.str, %units: i64) -> i1 {
  %bar = arith.constant 3000000000 : i64
  %big = arith.cmpi sgt, %units, %bar : i64
  return %big : i1
}

func.func @items() {
  %items = df.source "items" inline ["nut,5", "bolt,3000000000"] delimiter "," int32 [1] : !df.dataset<tuple<!df.str, i64>>
  %big = df.filter %items @big : !df.dataset<tuple<!df.str, i64>>
  df.sink "big" %big : !df.dataset<tuple<!df.str, i64>>
  return
}

