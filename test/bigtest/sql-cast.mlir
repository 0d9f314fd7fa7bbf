// Spark SQL's cast of a string (ANSI off) is not the host's parse: " 12 "
// and "1.9" are integers, "." is 0, "1_0" and "2147483648" (for int) are
// NULL, "1e3" is a double but not an integer, "YES" is true. The same
// texts on Spark 3.5.3 are the table in bigtest/dataflow/src/sql.rs.
// RUN: coco-bigtest run %s | FileCheck %s
// Both sides of each cast are feasible, and the witness of each side
// takes that side on Spark too (test/pyspark/jobs/frame_casts.py).
// RUN: coco-opt %s --pass-pipeline='builtin.module(bigtest-jdu-paths,bigtest-solve)' | FileCheck %s --check-prefix=PATHS

// CHECK-LABEL: sink "ints" (6 records):
// CHECK-NEXT:   12 ,12
// CHECK-NEXT: .,0
// CHECK-NEXT: 1.9,1
// CHECK-NEXT: 1_0,-1
// CHECK-NEXT: 1e3,-1
// CHECK-NEXT: 2147483648,-1
// CHECK-LABEL: sink "flags" (3 records):
// CHECK-NEXT:   YES ,1
// CHECK-NEXT: 0,0
// CHECK-NEXT: on,-1

// PATHS: status sat branches ["source#0", "map#1@as_int:sql_cast#0=present", "sink#2"]
// PATHS: status sat branches ["source#0", "map#1@as_int:sql_cast#0=absent", "sink#2"]
// PATHS: status sat branches ["source#3", "map#4@as_flag:sql_cast#0=present", "sink#5"]
// PATHS: status sat branches ["source#3", "map#4@as_flag:sql_cast#0=absent", "sink#5"]

module attributes {df.host = "python"} {
func.func @as_int(%text: !df.str) -> (!df.str, i64) {
  %o = df.sql_cast %text to int : !df.option<i64>
  %none = arith.constant -1 : i64
  %n = df.value_or %o, %none : !df.option<i64>, i64
  return %text, %n : !df.str, i64
}

func.func @as_flag(%text: !df.str) -> (!df.str, i64) {
  %o = df.sql_cast %text to boolean : !df.option<i1>
  %present = df.is_present %o : !df.option<i1>
  %false = arith.constant false
  %b = df.value_or %o, %false : !df.option<i1>, i1
  %one = arith.extui %b : i1 to i64
  %none = arith.constant -1 : i64
  %n = arith.select %present, %one, %none : i64
  return %text, %n : !df.str, i64
}

func.func @casts() {
  %texts = df.source "texts" inline [" 12 ", "1.9", ".", "1_0", "2147483648", "1e3"] delimiter "\t" : !df.dataset<!df.str>
  %ints = df.map %texts @as_int : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, i64>>
  df.sink "ints" %ints : !df.dataset<tuple<!df.str, i64>>
  %words = df.source "words" inline [" YES ", "0", "on"] delimiter "\t" : !df.dataset<!df.str>
  %flags = df.map %words @as_flag : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, i64>>
  df.sink "flags" %flags : !df.dataset<tuple<!df.str, i64>>
  return
}
}
