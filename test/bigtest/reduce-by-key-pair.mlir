// reduce_by_key over a value of two fields: records tuple<K, A, B> fold
// with (A, B, A, B) -> (A, B), PySpark's reduceByKey over (k, (sum, count))
// that an average per key is computed from. The Spark check (filetests.rs)
// runs this program's generated cases on Spark as exported.
// RUN: coco-bigtest run %s | FileCheck %s --check-prefix=OUT
// RUN: coco-opt %s --bigtest-jdu-paths | FileCheck %s --check-prefix=PATHS
// RUN: coco-bigtest generate %s -o %t | FileCheck %s --check-prefix=GENERATE

// OUT: sink "sums" (2 records):
// OUT-NEXT: a,7,2
// OUT-NEXT: b,5,1

// PATHS: branches ["source#0", "map#1@parse:to_int#3=fail"]
// PATHS: branches ["source#0", "map#1@parse:get#2=fail"]
// PATHS: branches ["source#0", "map#1@parse:get#1=fail"]
// PATHS: branches ["source#0", "reduce_by_key#2=single", "sink#3"]
// PATHS: branches ["reduce_by_key#2=fold{source#0 | source#0}", "sink#3"]

// GENERATE: sums 5 5 0 0 9 5 100.0%

module {

func.func @parse(%line: !df.str) -> (!df.str, i64, i64) {
  %f = df.split %line "," : !df.list<!df.str>
  %key = df.get %f[0] : !df.list<!df.str> -> !df.str
  %text = df.get %f[1] : !df.list<!df.str> -> !df.str
  %value = df.to_int %text
  %one = arith.constant 1 : i64
  return %key, %value, %one : !df.str, i64, i64
}

func.func @add(%sum_a: i64, %count_a: i64, %sum_b: i64, %count_b: i64) -> (i64, i64) {
  %sum = arith.addi %sum_a, %sum_b : i64
  %count = arith.addi %count_a, %count_b : i64
  return %sum, %count : i64, i64
}

func.func @sums() {
  %lines = df.source "readings" inline ["a,3", "a,4", "b,5"] delimiter "\t" : !df.dataset<!df.str>
  %pairs = df.map %lines @parse : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, i64, i64>>
  %sums = df.reduce_by_key %pairs @add : !df.dataset<tuple<!df.str, i64, i64>>
  df.sink "sums" %sums : !df.dataset<tuple<!df.str, i64, i64>>
  return
}
}
