// bigtest-jdu-paths alone, on a small program: a map whose UDF branches
// (scf.if: a negative amount becomes 0), then a sum per key. Every path
// is `unsolved` (solving is bigtest-solve's work) and carries its SMT-LIB
// script, the keys it groups on and the source records it reads.
//
// At k=1 there are 4 paths: each UDF branch with its key alone (`single`)
// and each folded as one record. At k=2 the folds take two records with
// the same key (`(= sales_0.f0 sales_1.f0)`), one per pair of branches:
// 2 singles + 4 folds = 6. Earlier results of the program (the `stale` path
// and its record below) are replaced. A loop whose trip count comes from
// the data is unrolled k times; the longer paths are a warning, not an
// error.
// RUN: coco-opt %s --split-input-file --pass-pipeline='builtin.module(bigtest-jdu-paths{k=1})' 2>&1 | FileCheck %s --check-prefix=K1 --implicit-check-not=stale
// RUN: coco-opt %s --split-input-file --pass-pipeline='builtin.module(bigtest-jdu-paths{k=2})' 2>/dev/null | FileCheck %s --check-prefix=K2 --implicit-check-not=stale
// Going past a bound is an error on the dataset op where it happens (the
// sink here: 6 paths), and the program gets no paths; out-of-range and
// unknown options are errors naming the pass before anything runs.
// RUN: not coco-opt %s --split-input-file --pass-pipeline='builtin.module(bigtest-jdu-paths{k=2 max-paths=5})' 2>&1 | FileCheck %s --check-prefix=MAX-PATHS
// RUN: not coco-opt %s --split-input-file --pass-pipeline='builtin.module(bigtest-jdu-paths{k=9})' 2>&1 | FileCheck %s --check-prefix=K9
// RUN: not coco-opt %s --split-input-file --pass-pipeline='builtin.module(bigtest-jdu-paths{max-index=-1})' 2>&1 | FileCheck %s --check-prefix=INDEX
// RUN: not coco-opt %s --split-input-file --pass-pipeline='builtin.module(bigtest-jdu-paths{depth=2})' 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// K1: bigtest.jdu_path 0 of @totals status unsolved branches ["source#0", "map#1@clamp:if#2=then", "reduce_by_key#2=single", "sink#3"]
// K1-SAME: constraints ["(declare-const sales.f0 String)", "(declare-const sales.f1 Int)",
// K1-SAME: "(assert (< sales.f1 0))"]
// K1-SAME: keys [{op = 2 : i64, term = "sales.f0"}] records [{fields = ["sales.f0", "sales.f1"], source = "sales"}]
// K1-NEXT: bigtest.jdu_path 1 of @totals status unsolved branches ["source#0", "map#1@clamp:if#2=else", "reduce_by_key#2=single", "sink#3"]
// K1-SAME: "(assert (not (< sales.f1 0)))"]
// K1-NEXT: bigtest.jdu_path 2 of @totals status unsolved branches ["reduce_by_key#2=fold{source#0, map#1@clamp:if#2=then}", "sink#3"]
// K1-SAME: "(assert (< sales_0.f1 0))"]
// K1-SAME: keys [{op = 2 : i64, term = "sales_0.f0"}] records [{fields = ["sales_0.f0", "sales_0.f1"], source = "sales"}]
// K1-NEXT: bigtest.jdu_path 3 of @totals status unsolved branches ["reduce_by_key#2=fold{source#0, map#1@clamp:if#2=else}", "sink#3"]
// K1-NEXT: {{^}}}

// K2: bigtest.jdu_path 0 of @totals status unsolved branches ["source#0", "map#1@clamp:if#2=then", "reduce_by_key#2=single", "sink#3"]
// K2-NEXT: bigtest.jdu_path 1 of @totals status unsolved branches ["source#0", "map#1@clamp:if#2=else", "reduce_by_key#2=single", "sink#3"]
// K2-NEXT: bigtest.jdu_path 2 of @totals status unsolved branches ["reduce_by_key#2=fold{source#0, map#1@clamp:if#2=then | source#0, map#1@clamp:if#2=then}", "sink#3"]
// K2-SAME: constraints ["(declare-const sales_0.f0 String)", "(declare-const sales_0.f1 Int)", "(declare-const sales_1.f0 String)", "(declare-const sales_1.f1 Int)",
// K2-SAME: "(assert (< sales_0.f1 0))",
// K2-SAME: "(assert (< sales_1.f1 0))", "(assert (= sales_0.f0 sales_1.f0))"]
// K2-SAME: keys [{op = 2 : i64, term = "sales_0.f0"}] records [{fields = ["sales_0.f0", "sales_0.f1"], source = "sales"}, {fields = ["sales_1.f0", "sales_1.f1"], source = "sales"}]
// K2-NEXT: bigtest.jdu_path 3 of @totals status unsolved branches ["reduce_by_key#2=fold{source#0, map#1@clamp:if#2=then | source#0, map#1@clamp:if#2=else}", "sink#3"]
// K2-NEXT: bigtest.jdu_path 4 of @totals status unsolved branches ["reduce_by_key#2=fold{source#0, map#1@clamp:if#2=else | source#0, map#1@clamp:if#2=then}", "sink#3"]
// K2-NEXT: bigtest.jdu_path 5 of @totals status unsolved branches ["reduce_by_key#2=fold{source#0, map#1@clamp:if#2=else | source#0, map#1@clamp:if#2=else}", "sink#3"]
// K2-NEXT: {{^}}}

// MAX-PATHS-NOT: of @totals
// MAX-PATHS: bigtest.jdu_path 2 of @triangles status unsolved
// MAX-PATHS-NOT: of @totals
// MAX-PATHS: jdu-paths.mlir:[[@LINE+26]]:3: error: more than max-paths=5 JDU paths; lower k (now 2) or raise it with bigtest-jdu-paths{max-paths=N}
// K9: coco-opt: error: bigtest-jdu-paths: option 'k' must be between 1 and 8, found 9
// INDEX: coco-opt: error: bigtest-jdu-paths: option 'max-index' must be between 0 and 1000000, found -1
// UNKNOWN: coco-opt: error: bigtest-jdu-paths: unknown option 'depth' (options: k, fuel, max-index, max-paths)

module attributes {df.host = "jvm"} {
func.func @clamp(%key: !df.str, %amount: i64) -> (!df.str, i64) {
  %zero = arith.constant 0 : i64
  %negative = arith.cmpi slt, %amount, %zero : i64
  %kept = scf.if %negative -> (i64) {
    scf.yield %zero : i64
  } else {
    scf.yield %amount : i64
  }
  return %key, %kept : !df.str, i64
}

func.func @add(%a: i64, %b: i64) -> i64 {
  %sum = arith.addi %a, %b : i64
  return %sum : i64
}

func.func @totals() {
  %sales = df.source "sales" inline ["a,1"] delimiter "," : !df.dataset<tuple<!df.str, i64>>
  %clamped = df.map %sales @clamp : !df.dataset<tuple<!df.str, i64>> -> !df.dataset<tuple<!df.str, i64>>
  %totals = df.reduce_by_key %clamped @add : !df.dataset<tuple<!df.str, i64>>
  df.sink "totals" %totals : !df.dataset<tuple<!df.str, i64>>
  return
}

bigtest.jdu_path 0 of @totals status sat branches ["stale"] constraints []
bigtest.test_record of @totals source "sales" text "stale,1" covers [0]
}

// -----

// The loop runs n times: at k=1 the paths are no trip (n <= 0) and one
// trip (0 < n <= 1); the rest loop more than k times.
// K1: bigtest.jdu_path 0 of @triangles status unsolved branches ["source#0", "map#1@triangle:for#4=iter", "map#1@triangle:for#4=exit", "sink#2"]
// K1-SAME: "(assert (< 0 ns.f0))", "(assert (not (< 1 ns.f0)))"]
// K1-NEXT: bigtest.jdu_path 1 of @triangles status unsolved branches ["source#0", "map#1@triangle:for#4=exit", "sink#2"]
// K1-SAME: "(assert (not (< 0 ns.f0)))"]
// K1-NEXT: {{^}}}
// K2: bigtest.jdu_path 0 of @triangles status unsolved branches ["source#0", "map#1@triangle:for#4=iter", "map#1@triangle:for#4=iter", "map#1@triangle:for#4=exit", "sink#2"]
// K2-NEXT: bigtest.jdu_path 1 of @triangles status unsolved branches ["source#0", "map#1@triangle:for#4=iter", "map#1@triangle:for#4=exit", "sink#2"]
// K2-NEXT: bigtest.jdu_path 2 of @triangles status unsolved branches ["source#0", "map#1@triangle:for#4=exit", "sink#2"]
// K2-NEXT: {{^}}}
// K1: jdu-paths.mlir:[[@LINE+16]]:11: warning: 1 path(s) of @triangle loop more than k=1 times and are not enumerated; raise k to include them
func.func @triangle(%n: i64) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %bound = arith.index_cast %n : i64 to index
  %sum = scf.for %i = %c0 to %bound step %c1 iter_args(%acc = %zero) -> (i64) {
    %iv = arith.index_cast %i : index to i64
    %next = arith.addi %acc, %iv : i64
    scf.yield %next : i64
  }
  return %sum : i64
}

func.func @triangles() {
  %ns = df.source "ns" inline ["3"] delimiter "," : !df.dataset<i64>
  %sums = df.map %ns @triangle : !df.dataset<i64> -> !df.dataset<i64>
  df.sink "sums" %sums : !df.dataset<i64>
  return
}
