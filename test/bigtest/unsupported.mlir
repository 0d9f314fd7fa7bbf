// Constructs the analysis does not model are errors naming the op, never a
// guessed answer: a UDF calling a function without a body, and a while loop.
// RUN: not coco-opt %s --split-input-file --bigtest-jdu-paths 2>&1 | FileCheck %s

// CHECK: error: calls @lookup, an external function without a body; BigTest can only analyse functions it can see
func.func private @lookup(%key: !df.str) -> i64

func.func @price(%sku: !df.str) -> (!df.str, i64) {
  %p = func.call @lookup(%sku) : (!df.str) -> i64
  return %sku, %p : !df.str, i64
}

func.func @prices() {
  %skus = df.source "skus" inline ["a"] delimiter "," : !df.dataset<!df.str>
  %priced = df.map %skus @price : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, i64>>
  df.sink "out" %priced : !df.dataset<tuple<!df.str, i64>>
  return
}

// -----

// CHECK: error: 'scf.while' is a loop whose trip count BigTest cannot bound; use scf.for with bounds
func.func @halve(%n: i64) -> i64 {
  %two = arith.constant 2 : i64
  %zero = arith.constant 0 : i64
  %r = scf.while (%x = %n) : (i64) -> i64 {
    %more = arith.cmpi sgt, %x, %zero : i64
    scf.condition(%more) %x : i64
  } do {
  ^bb0(%x: i64):
    %h = arith.divsi %x, %two : i64
    scf.yield %h : i64
  }
  return %r : i64
}

func.func @halves() {
  %xs = df.source "xs" inline ["8"] delimiter "," : !df.dataset<i64>
  %hs = df.map %xs @halve : !df.dataset<i64> -> !df.dataset<i64>
  df.sink "out" %hs : !df.dataset<i64>
  return
}
