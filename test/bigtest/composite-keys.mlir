// Keys of several fields (`keys 2`): sales "day,country,amount" summed per
// day and country, joined (left_outer) with targets "day,country,target" on
// both fields. Same day, other country, and same country, other day are
// other keys (OUT): 2026-12-01/fr sums 5 + 7 and meets its target,
// 2026-12-01/de and 2026-12-02/fr have none. The JDU paths fold two records
// only when both key fields are equal, and a left-only record's key
// differs from every right record's in some field (PATHS); the generated
// data follows every feasible path (COVERAGE). On Spark: spark::examples
// runs the exported job on these records and compares (test/filetests.rs).
// RUN: coco-bigtest run %s | FileCheck %s --check-prefix=OUT
// RUN: coco-opt %s --pass-pipeline='builtin.module(bigtest-jdu-paths,bigtest-solve)' | FileCheck %s --check-prefix=PATHS
// RUN: coco-bigtest generate %s -o %t >/dev/null
// RUN: coco-bigtest coverage %s --data %t | FileCheck %s --check-prefix=COVERAGE

// OUT: sink "met" (3 records):
// OUT-NEXT: 2026-12-01,de,3,false
// OUT-NEXT: 2026-12-01,fr,12,true
// OUT-NEXT: 2026-12-02,fr,4,false

// PATHS: status sat branches ["source#2", "join#3=right-only"]
// PATHS: status sat branches ["join#3=both{source#0, reduce_by_key#1=single | source#2}", "map#4@met:if#5=then", "sink#5"]
// PATHS: status sat branches ["join#3=both{reduce_by_key#1=fold{source#0 | source#0} | source#2}", "map#4@met:if#5=then", "sink#5"]
// PATHS: status sat branches ["source#0", "reduce_by_key#1=single", "join#3=left-only", "map#4@met:if#5=else", "sink#5"]
// PATHS: status sat branches ["reduce_by_key#1=fold{source#0 | source#0}", "join#3=left-only", "map#4@met:if#5=else", "sink#5"]

// COVERAGE: covered: {{[0-9]+}} of {{[0-9]+}} paths not shown infeasible (100.0%)

module attributes {df.host = "python"} {

func.func @add(%a: i64, %b: i64) -> i64 {
  %s = arith.addi %a, %b : i64
  return %s : i64
}

func.func @met(%day: !df.str, %country: !df.str, %total: i64, %target: !df.option<i64>) -> (!df.str, !df.str, i64, i1) {
  %has = df.is_present %target : !df.option<i64>
  %zero = arith.constant 0 : i64
  %t = df.value_or %target, %zero : !df.option<i64>, i64
  %reached = arith.cmpi sge, %total, %t : i64
  %false = arith.constant false
  %met = scf.if %has -> (i1) {
    scf.yield %reached : i1
  } else {
    scf.yield %false : i1
  }
  return %day, %country, %total, %met : !df.str, !df.str, i64, i1
}

func.func @targets_met() {
  %sales = df.source "sales" inline ["2026-12-01,fr,5", "2026-12-01,fr,7", "2026-12-01,de,3", "2026-12-02,fr,4"] delimiter "," : !df.dataset<tuple<!df.str, !df.str, i64>>
  %sums = df.reduce_by_key %sales @add keys 2 : !df.dataset<tuple<!df.str, !df.str, i64>>
  %targets = df.source "targets" inline ["2026-12-01,fr,10", "2026-12-02,de,1"] delimiter "," : !df.dataset<tuple<!df.str, !df.str, i64>>
  %joined = df.join left_outer %sums, %targets keys 2 : !df.dataset<tuple<!df.str, !df.str, i64>>, !df.dataset<tuple<!df.str, !df.str, i64>> -> !df.dataset<tuple<!df.str, !df.str, i64, !df.option<i64>>>
  %met = df.map %joined @met : !df.dataset<tuple<!df.str, !df.str, i64, !df.option<i64>>> -> !df.dataset<tuple<!df.str, !df.str, i64, i1>>
  df.sink "met" %met : !df.dataset<tuple<!df.str, !df.str, i64, i1>>
  return
}
}
