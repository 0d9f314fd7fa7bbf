// A PySpark job read as a df program: one df function per UDF (lambdas
// named after their operator and line), the function under test as the
// program (its parameter a source, its result a sink), every op at its
// Python line and column. The text goes through coco-opt and the BigTest
// passes like any df program.

// RUN: coco-bigtest import pyspark/inputs/word_count.py | FileCheck %s
// RUN: coco-bigtest import pyspark/inputs/word_count.py | coco-opt --pass-pipeline='builtin.module(cse,bigtest-jdu-paths{k=2})' | FileCheck %s --check-prefix=PATHS
// RUN: coco-bigtest run pyspark/inputs/word_count.py --data pyspark/inputs/word_count | FileCheck %s --check-prefix=RUN-OUT

// CHECK: module attributes {df.host = "python"} {
// CHECK: func.func @flat_map_8(%arg0: !df.str) -> (!df.list<!df.str>) {
// CHECK-NEXT: df.split %arg0 : !df.list<!df.str> loc("pyspark/inputs/word_count.py":8:45)
// CHECK: func.func @filter_9(%arg0: !df.str) -> (i1) {
// CHECK-NEXT: df.length %arg0 loc("pyspark/inputs/word_count.py":9:40)
// CHECK: arith.cmpi sge
// CHECK: func.func @map_10(%arg0: !df.str) -> (!df.str, i64) {
// CHECK-NEXT: df.lower %arg0 loc("pyspark/inputs/word_count.py":10:42)
// CHECK: func.func @reduce_by_key_10(%arg0: i64, %arg1: i64) -> (i64) {
// CHECK-NEXT: arith.addi %arg0, %arg1 : i64
// CHECK: func.func @word_count() {
// CHECK-NEXT: %d0 = df.source "lines" inline [] delimiter "\t" : !df.dataset<!df.str> loc("pyspark/inputs/word_count.py":6:16)
// CHECK-NEXT: %d1 = df.flat_map %d0 @flat_map_8 : !df.dataset<!df.str> -> !df.dataset<!df.str> loc("pyspark/inputs/word_count.py":8:19)
// CHECK-NEXT: %d2 = df.filter %d1 @filter_9
// CHECK-NEXT: %d3 = df.map %d2 @map_10
// CHECK-NEXT: %d4 = df.reduce_by_key %d3 @reduce_by_key_10 : !df.dataset<tuple<!df.str, i64>> loc("pyspark/inputs/word_count.py":10:55)
// CHECK-NEXT: df.sink "word_count" %d4 : !df.dataset<tuple<!df.str, i64>>

// PATHS: bigtest.jdu_path 0 of @word_count status unsolved branches ["source#0", "flat_map#1=empty"]
// PATHS: bigtest.jdu_path 1 of @word_count status unsolved branches ["source#0", "flat_map#1=elem0", "filter#2=drop"]

// RUN-OUT: sink "word_count" (3 records):
// RUN-OUT-NEXT: fox,1
// RUN-OUT-NEXT: quick,1
// RUN-OUT-NEXT: the,2
