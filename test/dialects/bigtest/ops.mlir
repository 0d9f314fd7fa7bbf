// RUN: coco-opt %s | FileCheck %s
// RUN: coco-opt %s | coco-opt | FileCheck %s
// RUN: coco-opt %s --mlir-print-op-generic | coco-opt | FileCheck %s

func.func @positive(%x: i64) -> i1 {
  %zero = arith.constant 0 : i64
  %ok = arith.cmpi sgt, %x, %zero : i64
  return %ok : i1
}

func.func @program() {
  %s = df.source "numbers" inline ["1", "-2"] delimiter "," : !df.dataset<i64>
  %f = df.filter %s @positive : !df.dataset<i64>
  df.sink "out" %f : !df.dataset<i64>
  return
}

// CHECK: bigtest.jdu_path 0 of @program status sat branches ["filter@positive:pass"] constraints ["(> x 0)"]
bigtest.jdu_path 0 of @program status sat branches ["filter@positive:pass"] constraints ["(> x 0)"]
// CHECK: bigtest.jdu_path 1 of @program status unknown
bigtest.jdu_path 1 of @program status unknown branches ["filter@positive:fail"] constraints ["(<= x 0)"]
// CHECK: bigtest.jdu_path 2 of @program status unsolved
bigtest.jdu_path 2 of @program status unsolved branches [] constraints []
// CHECK: bigtest.jdu_path 3 of @program status unsat
bigtest.jdu_path 3 of @program status unsat branches ["filter@positive:pass"] constraints ["(> x 0)", "(< x 0)"]
// CHECK: bigtest.jdu_path 4 of @program status sat branches ["filter@positive:pass"] constraints ["(declare-const numbers_0.f0 Int)", "(assert (> numbers_0.f0 0))"] keys [{op = 1 : i64, term = "numbers_0.f0"}] records [{fields = ["numbers_0.f0"], source = "numbers"}]
bigtest.jdu_path 4 of @program status sat branches ["filter@positive:pass"] constraints ["(declare-const numbers_0.f0 Int)", "(assert (> numbers_0.f0 0))"] keys [{op = 1, term = "numbers_0.f0"}] records [{source = "numbers", fields = ["numbers_0.f0"]}]
// CHECK: bigtest.test_record of @program source "numbers" text "5" covers [0]
bigtest.test_record of @program source "numbers" text "5" covers [0]
// CHECK: bigtest.test_record of @program source "numbers" text "-3" covers [1, 2]
bigtest.test_record of @program source "numbers" text "-3" covers [1, 2]
