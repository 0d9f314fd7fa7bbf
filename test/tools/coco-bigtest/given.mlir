// generate --given DIR: the user's own data (here two lines whose words
// fold into one frequent word and leave one rare) already follows some
// paths; generate writes records only for the others, says which it left
// to the given data, and counts them as covered in the report. The
// written data and the given data together cover every feasible path
// (the written data alone misses exactly the given ones).
// --given-histogram does the same with the histogram the paths job wrote
// on a cluster (here: four empty lines).
// RUN: coco-bigtest generate %s -o %t --given tools/coco-bigtest/inputs/given | FileCheck %s
// RUN: FileCheck %s --input-file %t/report.txt --check-prefix=REPORT
// RUN: coco-bigtest coverage %s --data %t | FileCheck %s --check-prefix=COVER
// RUN: coco-bigtest coverage %s --data tools/coco-bigtest/inputs/given | FileCheck %s --check-prefix=GIVEN
// RUN: coco-bigtest generate %s -o %t.h --given-histogram tools/coco-bigtest/inputs/histograms/wordcount.json | FileCheck %s --check-prefix=HIST
// RUN: not coco-bigtest generate %s -o %t.x --given %s.missing 2>&1 | FileCheck %s --check-prefix=MISSING
// --spark measures the given folder on Spark (checked in spark::coverage);
// it needs one.
// RUN: not coco-bigtest generate %s -o %t.s --spark 2>&1 | FileCheck %s --check-prefix=NOGIVEN

// CHECK: wordcount {{.*}} 100.0%
// CHECK: paths the given data follows, which got no new records: paths 2, 3

// REPORT: covered: 7 of 7 paths not shown infeasible (100.0%)
// REPORT: path 2 [sat]
// REPORT: covered by: the given data
// REPORT: path 3 [sat]
// REPORT: covered by: the given data

// GIVEN: covered: 2 of 7 paths not shown infeasible (28.6%)
// COVER: covered: 5 of 7 paths not shown infeasible (71.4%)
// COVER-NEXT: missed path 2 [sat]
// COVER-NEXT: missed path 3 [sat]

// HIST: paths the given data follows, which got no new records: path 0

// MISSING: error: --given: {{.*}}given.mlir.missing{{.*}}

// NOGIVEN: error: the following required arguments were not provided:
// NOGIVEN-NEXT: --given <DIR>

module attributes {df.host = "jvm"} {

func.func @tokens(%line: !df.str) -> !df.list<!df.str> {
  %words = df.split %line " " : !df.list<!df.str>
  return %words : !df.list<!df.str>
}

func.func @pair(%word: !df.str) -> (!df.str, i64) {
  %one = arith.constant 1 : i64
  return %word, %one : !df.str, i64
}

func.func @add(%a: i64, %b: i64) -> i64 {
  %sum = arith.addi %a, %b : i64
  return %sum : i64
}

func.func @frequent(%word: !df.str, %count: i64) -> i1 {
  %threshold = arith.constant 2 : i64
  %keep = arith.cmpi sge, %count, %threshold : i64
  return %keep : i1
}

func.func @wordcount() {
  %lines = df.source "lines" inline ["a b"] delimiter "\t" : !df.dataset<!df.str>
  %words = df.flat_map %lines @tokens : !df.dataset<!df.str> -> !df.dataset<!df.str>
  %pairs = df.map %words @pair : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, i64>>
  %counts = df.reduce_by_key %pairs @add : !df.dataset<tuple<!df.str, i64>>
  %frequent = df.filter %counts @frequent : !df.dataset<tuple<!df.str, i64>>
  df.sink "frequent_words" %frequent : !df.dataset<tuple<!df.str, i64>>
  return
}
}
