// Scala's `.toInt` and Java's Integer.parseInt are 32-bit: `df.to_int int32`
// fails beyond [-2^31, 2^31 - 1], where `df.to_int` (Long.parseLong) reads
// on. The value is widened to i64 either way.
// RUN: not coco-bigtest run %s 2>&1 | FileCheck %s
// The symbolic side keeps a parsed value in the 32-bit range, so a path
// that needs more is infeasible: "big" needs a count over 3e9 (unsat), and
// the rest are satisfiable.
// RUN: coco-opt %s --pass-pipeline='builtin.module(bigtest-jdu-paths,bigtest-solve)' | FileCheck %s --check-prefix=PATHS
// int32 is the JVM's only.
// RUN: not coco-opt %s --pass-pipeline='builtin.module(func.func(cse))' --split-input-file 2>&1 | FileCheck %s --check-prefix=PYTHON

// CHECK: coco-bigtest: error: @counts: 1 failures (Spark would abort the job):
// CHECK-NEXT: map#1 (@parse): "2147483648" is not a 32-bit integer (counts record 1)

// PATHS: status sat branches ["source#0", "map#1@parse:to_int#0=fail"]
// PATHS: status sat branches ["source#0", "filter#2=drop"]
// PATHS: status unsat branches ["source#0", "filter#2=pass", "sink#3"]

// PYTHON: error: 'df.to_int' op int32 is the JVM's Integer.parseInt; Python's int() has no 32-bit form

func.func @parse(%text: !df.str) -> i64 {
  %n = df.to_int %text int32
  return %n : i64
}

func.func @big(%n: i64) -> i1 {
  %bar = arith.constant 3000000000 : i64
  %big = arith.cmpi sgt, %n, %bar : i64
  return %big : i1
}

func.func @counts() {
  %lines = df.source "counts" inline ["2147483647", "2147483648", "-2147483648"] delimiter "\t" : !df.dataset<!df.str>
  %parsed = df.map %lines @parse : !df.dataset<!df.str> -> !df.dataset<i64>
  %big = df.filter %parsed @big : !df.dataset<i64>
  df.sink "big" %big : !df.dataset<i64>
  return
}

// -----

module attributes {df.host = "python"} {
func.func @parse(%text: !df.str) -> i64 {
  %n = df.to_int %text int32
  return %n : i64
}
}
