// coco-translate --emit=pyspark writes a df program as one PySpark job:
// each operator its RDD method, each UDF a Python function over coco_df's
// exact semantics. This program also runs in the Spark check
// (test/src/spark.rs) on the cases BigTest generates for it, so what the
// CHECK lines show is also what Spark ran. It covers what the examples do
// not: a float key (compared by bits, as on the JVM), distinct over floats
// and a constant-trip scf.for.
// RUN: coco-translate %s --emit=pyspark | FileCheck %s
// RUN: not coco-translate ../examples/coco/sgd.mlir --emit=pyspark 2>&1 | FileCheck %s --check-prefix=NODF
// RUN: not coco-translate %s --emit=pyspark --entry nope 2>&1 | FileCheck %s --check-prefix=ENTRY

// CHECK: """PySpark job for @readings (pyspark.mlir), written by coco-translate --emit=pyspark.
// CHECK: HOST = "jvm"
// CHECK: def udf_parse(v0):
// CHECK-NEXT: # @parse (tools/coco-translate/pyspark.mlir:[[#]]:1)
// CHECK-NEXT: v1 = split(v0, "|")
// CHECK-NEXT: v2 = get(v1, 0)
// CHECK: v4 = to_float(v3)
// CHECK: def udf_scaled(v0, v1):
// CHECK: v5 = v2
// CHECK-NEXT: v6, = v0,
// CHECK-NEXT: while v5 < v3:
// CHECK: v5 = addi(v5, v4)
// CHECK: v8, = v6,
// CHECK: d0 = read_source(sc, inputs, "readings", None, "\x09", ("str",))
// CHECK: d2 = d1.map(lambda r: (key_of(r), r)).reduceByKey(lambda a, b: a).values()
// CHECK: d5 = d4.map(lambda r: (key_of(r[0]), r)).reduceByKey(lambda a, b: a[:1] + udf_sum(*a[1:], *b[1:])).values()
// CHECK: sinks.append(("per_value", "per_value", d5.map(lambda r: format_record(("f64", "i64"), r))))
// CHECK: SOURCE_FILES = {
// CHECK-NEXT: "readings": "readings.txt",

// NODF: coco-translate: error: ../examples/coco/sgd.mlir: --emit=pyspark exports df programs, and this module has none (a func.func with df.source ops)
// ENTRY: --entry nope: no df program of that name (the programs: @readings)

module attributes {df.host = "jvm"} {

func.func @parse(%line: !df.str) -> (!df.str, f64) {
  %fields = df.split %line "|" : !df.list<!df.str>
  %name = df.get %fields[0] : !df.list<!df.str> -> !df.str
  %text = df.get %fields[1] : !df.list<!df.str> -> !df.str
  %value = df.to_float %text
  return %name, %value : !df.str, f64
}

// Three times the value, by a loop, and one per reading.
func.func @scaled(%value: f64, %name: !df.str) -> (f64, i64) {
  %c0 = arith.constant 0 : i64
  %c3 = arith.constant 3 : i64
  %c1 = arith.constant 1 : i64
  %sum = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %value) -> (f64) : i64 {
    %next = arith.addf %acc, %value : f64
    scf.yield %next : f64
  }
  %one = arith.constant 1 : i64
  return %sum, %one : f64, i64
}

func.func @swap(%name: !df.str, %value: f64) -> (f64, !df.str) {
  return %value, %name : f64, !df.str
}

func.func @sum(%a: i64, %b: i64) -> i64 {
  %s = arith.addi %a, %b : i64
  return %s : i64
}

func.func @readings() {
  %lines = df.source "readings" path "readings.txt" delimiter "\t" : !df.dataset<!df.str>
  %parsed = df.map %lines @parse : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, f64>>
  %unique = df.distinct %parsed : !df.dataset<tuple<!df.str, f64>>
  %keyed = df.map %unique @swap : !df.dataset<tuple<!df.str, f64>> -> !df.dataset<tuple<f64, !df.str>>
  %ones = df.map %keyed @scaled : !df.dataset<tuple<f64, !df.str>> -> !df.dataset<tuple<f64, i64>>
  %per_value = df.reduce_by_key %ones @sum : !df.dataset<tuple<f64, i64>>
  df.sink "per_value" %per_value : !df.dataset<tuple<f64, i64>>
  return
}
}
