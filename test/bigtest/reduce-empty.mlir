// A global reduce of an empty dataset fails the job, as Spark's RDD.reduce
// throws ("empty collection"; PySpark: ValueError); it used to yield an
// empty sink and succeed.
// RUN: not coco-bigtest run %s 2>&1 | FileCheck %s

// CHECK: coco-bigtest: error: @best: 1 failures (Spark would abort the job):
// CHECK-NEXT: reduce-empty.mlir:{{[0-9]+}}:{{[0-9]+}}: df.reduce: the dataset is empty (Spark's reduce throws: empty collection)

func.func @high(%score: i64) -> i1 {
  %bar = arith.constant 100 : i64
  %high = arith.cmpi sgt, %score, %bar : i64
  return %high : i1
}

func.func @max(%a: i64, %b: i64) -> i64 {
  %m = arith.maxsi %a, %b : i64
  return %m : i64
}

func.func @best() {
  %scores = df.source "points" inline ["7", "42"] delimiter "," : !df.dataset<i64>
  %high = df.filter %scores @high : !df.dataset<i64>
  %best = df.reduce %high @max : !df.dataset<i64>
  df.sink "best" %best : !df.dataset<i64>
  return
}
