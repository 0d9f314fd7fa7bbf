// A stock job in the style of a warehouse's nightly run, for the check that
// coverage of production-sized data on Spark agrees with the interpreter's
// (test/src/spark_coverage.rs): moves "item,units" are deduplicated
// (distinct), netted per item (reduce_by_key) and matched against the
// stocktake "item,units" (full_outer join); the moves per item are grouped
// to flag busy items (group_by_key), and the largest single move is a
// global reduce over the inbound ones.
// It is also where the paths job's Python is pinned down (JOB): UDFs
// record their decisions, each operator carries records with their paths,
// and a global reduce is handed to the driver, which asks whether its input
// was empty.
// RUN: coco-bigtest generate %s -o %t >/dev/null
// RUN: coco-bigtest coverage %s --data %t | FileCheck %s
// RUN: coco-translate %s --emit=pyspark-paths | FileCheck %s --check-prefix=JOB

// CHECK: covered: {{[0-9]+}} of {{[0-9]+}} paths not shown infeasible (100.0%)

// JOB: """JDU paths of @stock_moves (stock_moves.mlir) on Spark, written by coco-translate --emit=pyspark-paths.
// JOB: def udf_balance(v0, v1, v2):
// JOB: _AT[0] = "@balance:is_present#[[#]]"
// JOB: if v{{[0-9]+}}:
// JOB-NEXT: _TRACE.append("@balance:if#[[#]]=then")
// JOB: else:
// JOB-NEXT: _TRACE.append("@balance:if#[[#]]=else")
// JOB: def build_paths(sc, inputs, k):
// JOB: d0 = source_records(sc, inputs, "moves", ["bolt,5", "bolt,5", "nut,-2"], ",", ("str", "i64"), "source#0")
// JOB: d2 = distinct_rdd(d0, "distinct#2", same, k)
// JOB-NEXT: d3 = live_and_ends(3, fold_rdd(d2, 3, "reduce_by_key#3", udf_add, True, same, k))
// JOB-NEXT: d4 = live_and_ends(4, join_rdd(d1, d3, 4, "join#4", same, True, True, (True,), (True,)))
// JOB-NEXT: d5 = live_and_ends(5, d4.flatMap(map_step(5, "map#5", udf_balance)))
// JOB-NEXT: ends.append(d5.map(sink_step(6, "sink#6")))
// JOB-NEXT: d7 = group_rdd(d2, "group_by_key#7", same, k)
// JOB: out = fold_rdd(d11, 12, "reduce#12", udf_larger, False, same, k)
// JOB: reduces.append((12, out))
// JOB: PROGRAM = "stock_moves"

func.func @add(%a: i64, %b: i64) -> i64 {
  %s = arith.addi %a, %b : i64
  return %s : i64
}

func.func @larger(%a: i64, %b: i64) -> i64 {
  %m = arith.maxsi %a, %b : i64
  return %m : i64
}

func.func @inbound(%item: !df.str, %units: i64) -> i1 {
  %zero = arith.constant 0 : i64
  %in = arith.cmpi sgt, %units, %zero : i64
  return %in : i1
}

func.func @units(%item: !df.str, %units: i64) -> i64 {
  return %units : i64
}

func.func @balance(%item: !df.str, %counted: !df.option<i64>, %moved: !df.option<i64>) -> (!df.str, i64) {
  %zero = arith.constant 0 : i64
  %has_count = df.is_present %counted : !df.option<i64>
  %balance = scf.if %has_count -> (i64) {
    %c = df.value_or %counted, %zero : !df.option<i64>, i64
    %m = df.value_or %moved, %zero : !df.option<i64>, i64
    %d = arith.subi %c, %m : i64
    scf.yield %d : i64
  } else {
    %m = df.value_or %moved, %zero : !df.option<i64>, i64
    %d = arith.subi %zero, %m : i64
    scf.yield %d : i64
  }
  return %item, %balance : !df.str, i64
}

func.func @busy(%item: !df.str, %moves: !df.list<i64>) -> i1 {
  %n = df.size %moves : !df.list<i64>
  %two = arith.constant 2 : i64
  %busy = arith.cmpi sge, %n, %two : i64
  return %busy : i1
}

func.func @stock_moves() {
  %moves = df.source "moves" inline ["bolt,5", "bolt,5", "nut,-2"] delimiter "," : !df.dataset<tuple<!df.str, i64>>
  %counts = df.source "counts" inline ["bolt,3", "washer,4"] delimiter "," : !df.dataset<tuple<!df.str, i64>>
  %unique = df.distinct %moves : !df.dataset<tuple<!df.str, i64>>
  %net = df.reduce_by_key %unique @add : !df.dataset<tuple<!df.str, i64>>
  %joined = df.join full_outer %counts, %net : !df.dataset<tuple<!df.str, i64>>, !df.dataset<tuple<!df.str, i64>> -> !df.dataset<tuple<!df.str, !df.option<i64>, !df.option<i64>>>
  %balances = df.map %joined @balance : !df.dataset<tuple<!df.str, !df.option<i64>, !df.option<i64>>> -> !df.dataset<tuple<!df.str, i64>>
  df.sink "balances" %balances : !df.dataset<tuple<!df.str, i64>>
  %grouped = df.group_by_key %unique : !df.dataset<tuple<!df.str, i64>> -> !df.dataset<tuple<!df.str, !df.list<i64>>>
  %busy = df.filter %grouped @busy : !df.dataset<tuple<!df.str, !df.list<i64>>>
  df.sink "busy" %busy : !df.dataset<tuple<!df.str, !df.list<i64>>>
  %in = df.filter %moves @inbound : !df.dataset<tuple<!df.str, i64>>
  %amounts = df.map %in @units : !df.dataset<tuple<!df.str, i64>> -> !df.dataset<i64>
  %largest = df.reduce %amounts @larger : !df.dataset<i64>
  df.sink "largest" %largest : !df.dataset<i64>
  return
}
