// Every piece of bigtest-jdu-paths' work is bounded by an option, and going
// past one is an error on the dataset op naming the limit and how to raise
// it (coco-bigtest adds the flag that sets it): a df.get index into a split
// of input text (max-index; piece i is two solver variables, so
// get[4294967296] once allocated gigabytes), the operations of one UDF path
// (fuel; a constant loop runs to the end within it) and the paths
// (max-paths). A constant loop of 5000 trips accumulating a sum is
// enumerated quickly: large terms are named by a fresh variable, not copied
// into every later value (that was quadratic in the trip count).
// (fuel=20000 keeps the test fast; the default is 100000.)
// RUN: not coco-opt %s --split-input-file --pass-pipeline='builtin.module(bigtest-jdu-paths{fuel=20000})' 2>&1 | FileCheck %s
// RUN: not coco-bigtest generate ../examples/bigtest/wordcount.mlir -o %t --max-paths 3 2>&1 | FileCheck %s --check-prefix=PATHS
// RUN: not coco-bigtest generate %s -o %t --max-index 1000001 2>&1 | FileCheck %s --check-prefix=FLAG

// CHECK-NOT: error
// CHECK: bigtest.jdu_path 0 of @sums status unsolved
// CHECK-SAME: branches ["source#0", "map#1@sum:for#3=iter"
func.func @sum(%x: i64) -> i64 {
  %c0 = arith.constant 0 : index
  %n = arith.constant 5000 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (i64) {
    %next = arith.addi %acc, %x : i64
    scf.yield %next : i64
  }
  return %r : i64
}
func.func @sums() {
  %a = df.source "a" inline ["1"] delimiter "," : !df.dataset<i64>
  %m = df.map %a @sum : !df.dataset<i64> -> !df.dataset<i64>
  df.sink "out" %m : !df.dataset<i64>
  return
}

// -----

// CHECK: limits.mlir:[[@LINE+11]]:8: error: in UDF @far: @far:get#1: index 4294967296 is beyond max-index=1000; raise it with bigtest-jdu-paths{max-index=N}
// PATHS: wordcount.mlir:33:12: error: more than max-paths=3 record combinations at k=2; lower k or raise it with bigtest-jdu-paths{max-paths=N}
// PATHS: note: coco-bigtest sets max-paths with --max-paths N
// FLAG: coco-bigtest: error: --max-index must be between 0 and 1000000, found 1000001
func.func @far(%line: !df.str) -> !df.str {
  %fields = df.split %line " " : !df.list<!df.str>
  %x = df.get %fields[4294967296] : !df.list<!df.str> -> !df.str
  return %x : !df.str
}
func.func @gets() {
  %a = df.source "a" inline ["x"] delimiter "," : !df.dataset<!df.str>
  %m = df.map %a @far : !df.dataset<!df.str> -> !df.dataset<!df.str>
  df.sink "out" %m : !df.dataset<!df.str>
  return
}

// -----

// CHECK: limits.mlir:[[@LINE+14]]:8: error: in UDF @spin: @spin runs more than fuel=20000 operations on one path (a loop too long to unroll?); raise it with bigtest-jdu-paths{fuel=N}
func.func @spin(%x: i64) -> i64 {
  %c0 = arith.constant 0 : index
  %n = arith.constant 1000000000 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (i64) {
    %one = arith.constant 1 : i64
    %next = arith.addi %acc, %one : i64
    scf.yield %next : i64
  }
  return %r : i64
}
func.func @spins() {
  %a = df.source "a" inline ["1"] delimiter "," : !df.dataset<i64>
  %m = df.map %a @spin : !df.dataset<i64> -> !df.dataset<i64>
  df.sink "out" %m : !df.dataset<i64>
  return
}
