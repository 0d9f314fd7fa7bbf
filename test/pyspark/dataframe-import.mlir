// A PySpark DataFrame job read as a df program (docs/bigtest.md,
// "DataFrame jobs"). A row is a record of its columns; a NULL-able column is
// an i1 (present) and the value, which the map after the source sets to
// the type's default where the value is NULL. A filter's NULL condition is
// a branch of its own (it drops the row, as false does), and the column its
// comparison reads is not NULL after it (a map drops its flag); the group
// key's NULL rows are a side of their own (two filters), each side folded
// with the one combining function, and the sides are put back together.
// The text goes through coco-opt and the BigTest passes like any df program.

// RUN: coco-bigtest import pyspark/inputs/paid_per_day.py | FileCheck %s
// RUN: coco-bigtest import pyspark/inputs/paid_per_day.py | coco-opt --pass-pipeline='builtin.module(cse,bigtest-jdu-paths{k=2})' | FileCheck %s --check-prefix=PATHS

// CHECK: module attributes {df.host = "python"} {
// CHECK: func.func @read_orders(%arg0: i1, %arg1: !df.str, %arg2: f64, %arg3: i1, %arg4: !df.str) -> (i1, !df.str, f64, i1, !df.str) {
// CHECK: arith.select %arg0, %arg1, %{{[0-9]+}} : !df.str
// CHECK: func.func @filter_8(
// CHECK: df.str_eq %arg4, %{{[0-9]+}} loc("pyspark/inputs/paid_per_day.py":8:26)
// CHECK-NEXT: cf.cond_br %arg3, ^bb1, ^bb2 loc("pyspark/inputs/paid_per_day.py":8:19)
// CHECK: func.func @not_null_8({{.*}}) -> (i1, !df.str, f64, !df.str) {
// CHECK: func.func @day_present(
// CHECK-NEXT: func.return %arg0 : i1
// CHECK: func.func @day_null(
// CHECK: func.func @key_day({{.*}}) -> (!df.str, f64, !df.str) {
// CHECK: func.func @agg_combine_9(%arg0: i1, %arg1: f64, %arg2: i1, %arg3: f64) -> (i1, f64) {
// CHECK-NEXT: arith.ori %arg0, %arg2 : i1
// CHECK-NEXT: arith.addf %arg1, %arg3 : f64
// CHECK-NOT: func.func @agg_combine_9_1
// CHECK: func.func @paid_per_day() {
// CHECK-NEXT: %d0 = df.source "orders" inline [] delimiter "\t" : !df.dataset<tuple<i1, !df.str, f64, i1, !df.str>> loc("pyspark/inputs/paid_per_day.py":7:18)
// CHECK-NEXT: %d1 = df.map %d0 @read_orders
// CHECK-NEXT: %d2 = df.filter %d1 @filter_8
// CHECK-NEXT: %d3 = df.map %d2 @not_null_8 : !df.dataset<tuple<i1, !df.str, f64, i1, !df.str>> -> !df.dataset<tuple<i1, !df.str, f64, !df.str>>
// CHECK-NEXT: %d4 = df.filter %d3 @day_present
// CHECK-NEXT: %d5 = df.filter %d3 @day_null
// CHECK-NEXT: %d6 = df.map %d4 @key_day
// CHECK-NEXT: %d7 = df.map %d6 @agg_state_9
// CHECK-NEXT: %d8 = df.reduce_by_key %d7 @agg_combine_9 : !df.dataset<tuple<!df.str, i1, f64>>
// CHECK-NEXT: %d9 = df.map %d8 @agg_result_9 : !df.dataset<tuple<!df.str, i1, f64>> -> !df.dataset<tuple<i1, !df.str, i1, f64>>
// CHECK-NEXT: %d10 = df.map %d5 @agg_state_9_1
// CHECK-NEXT: %d11 = df.reduce_by_key %d10 @agg_combine_9 :
// CHECK-NEXT: %d12 = df.map %d11 @agg_result_9_1
// CHECK-NEXT: %d13 = df.union %d9, %d12 : !df.dataset<tuple<i1, !df.str, i1, f64>>
// CHECK-NEXT: df.sink "paid_per_day" %d13 : !df.dataset<tuple<i1, !df.str, i1, f64>> loc("pyspark/inputs/paid_per_day.py":9:5)

// A NULL status drops the row on a path of its own; a NULL day reaches
// the group of NULL days.
// PATHS: bigtest.jdu_path 1 of @paid_per_day status unsolved branches ["source#0", "filter#2@filter_8:cond_br#2=false", "filter#2=drop"]
// PATHS: branches ["source#0", "filter#2@filter_8:cond_br#2=true", "filter#2=pass", "filter#5=pass", "reduce_by_key#11=single", "union#13=rhs", "sink#14"]
