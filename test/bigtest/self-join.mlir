// Joins whose sides read one source (a "diamond"): a source record reaches
// both sides, so a join may match a record with itself. The enumerator
// gives such a path two witnesses in one script, chosen by a Bool
// constant `coco.itself.N`: the sides' records are the same records
// (`when`), or different ones (`unless`); records only one witness reads
// carry the guard.
//
// @latest_and_count: per user the latest time and the number of events,
// joined. One event of a user follows both{single | single} (path 4), two
// follow both{fold | fold} (path 7): both covered by the records-matched-
// with-themselves witness. Every event reaches both sides with its user,
// which rules out the other six: a user on one side only (paths 0-3: an
// unmatched record's own source records, enumerated down the other side,
// would arrive there with its key), or alone on one side and folded on
// the other (paths 5, 6: the other side's records would arrive at the
// single record's group). All eight are decided, none left to the solver's
// luck, and the generated data covers both feasible ones.
//
// @early_and_late: a user's late events joined with its early ones. No
// event is both, so path 4 needs the other witness (two records): with
// only the first, it was reported infeasible.
//
// RUN: coco-opt %s --bigtest-jdu-paths | FileCheck %s
// RUN: coco-bigtest generate %s -o %t 2>&1 >/dev/null | FileCheck %s --check-prefix=WARN --allow-empty
// RUN: coco-bigtest coverage %s --data %t | FileCheck %s --check-prefix=COVERAGE

// CHECK: bigtest.jdu_path 0 of @latest_and_count {{.*}} branches ["source#0", "reduce_by_key#1=single", "join#4=left-only"] constraints [{{.*}}"(assert false)"
// CHECK: bigtest.jdu_path 4 of @latest_and_count {{.*}} branches ["join#4=both{source#0, reduce_by_key#1=single | source#0, reduce_by_key#3=single}", "sink#5"]
// CHECK-SAME: (declare-const coco.itself.4 Bool)
// CHECK-SAME: records [{fields = ["events.f0", "events.f1"], source = "events", when = "coco.itself.4"}, {fields = ["events_l.f0", "events_l.f1"], source = "events", unless = "coco.itself.4"}, {fields = ["events_r.f0", "events_r.f1"], source = "events", unless = "coco.itself.4"}]
// CHECK: bigtest.jdu_path 7 of @latest_and_count {{.*}} branches ["join#4=both{reduce_by_key#1=fold{source#0 | source#0} | reduce_by_key#3=fold{source#0 | source#0}}", "sink#5"]
// CHECK-SAME: records [{fields = ["events_0.f0", "events_0.f1"], source = "events", when = "coco.itself.7"}, {fields = ["events_1.f0", "events_1.f1"], source = "events", when = "coco.itself.7"}, {fields = ["events_l_0.f0", "events_l_0.f1"], source = "events", unless = "coco.itself.7"}, {fields = ["events_l_1.f0", "events_l_1.f1"], source = "events", unless = "coco.itself.7"}, {fields = ["events_r_0.f0", "events_r_0.f1"], source = "events", unless = "coco.itself.7"}, {fields = ["events_r_1.f0", "events_r_1.f1"], source = "events", unless = "coco.itself.7"}]
// CHECK: bigtest.jdu_path 4 of @early_and_late {{.*}} branches ["join#3=both{source#0, filter#1=pass | source#0, filter#2=pass}", "sink#4"]

// WARN-NOT: warning

// COVERAGE: @latest_and_count: 8 JDU paths at k=2 (2 feasible, 6 infeasible, 0 unknown)
// COVERAGE-NEXT: covered: 2 of 2 paths not shown infeasible (100.0%); 0 records fail in the program
// COVERAGE: @early_and_late: 5 JDU paths at k=2 (5 feasible, 0 infeasible, 0 unknown)
// COVERAGE-NEXT: covered: 5 of 5 paths not shown infeasible (100.0%)

module attributes {df.host = "python"} {

func.func @max(%a: i64, %b: i64) -> i64 {
  %m = arith.maxsi %a, %b : i64
  return %m : i64
}

func.func @one(%user: !df.str, %time: i64) -> (!df.str, i64) {
  %one = arith.constant 1 : i64
  return %user, %one : !df.str, i64
}

func.func @add(%a: i64, %b: i64) -> i64 {
  %s = arith.addi %a, %b : i64
  return %s : i64
}

func.func @latest_and_count() {
  %events = df.source "events" inline ["ann,5", "bob,7", "ann,9"] delimiter "," : !df.dataset<tuple<!df.str, i64>>
  %latest = df.reduce_by_key %events @max : !df.dataset<tuple<!df.str, i64>>
  %ones = df.map %events @one : !df.dataset<tuple<!df.str, i64>> -> !df.dataset<tuple<!df.str, i64>>
  %counts = df.reduce_by_key %ones @add : !df.dataset<tuple<!df.str, i64>>
  %report = df.join inner %latest, %counts : !df.dataset<tuple<!df.str, i64>>, !df.dataset<tuple<!df.str, i64>> -> !df.dataset<tuple<!df.str, i64, i64>>
  df.sink "report" %report : !df.dataset<tuple<!df.str, i64, i64>>
  return
}

func.func @late(%user: !df.str, %time: i64) -> i1 {
  %ten = arith.constant 10 : i64
  %late = arith.cmpi sgt, %time, %ten : i64
  return %late : i1
}

func.func @early(%user: !df.str, %time: i64) -> i1 {
  %five = arith.constant 5 : i64
  %early = arith.cmpi slt, %time, %five : i64
  return %early : i1
}

func.func @early_and_late() {
  %events = df.source "events" inline ["ann,3", "ann,12"] delimiter "," : !df.dataset<tuple<!df.str, i64>>
  %late = df.filter %events @late : !df.dataset<tuple<!df.str, i64>>
  %early = df.filter %events @early : !df.dataset<tuple<!df.str, i64>>
  %both = df.join inner %late, %early : !df.dataset<tuple<!df.str, i64>>, !df.dataset<tuple<!df.str, i64>> -> !df.dataset<tuple<!df.str, i64, i64>>
  df.sink "both" %both : !df.dataset<tuple<!df.str, i64, i64>>
  return
}
}
