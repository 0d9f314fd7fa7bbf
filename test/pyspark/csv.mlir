// csv.reader rows: next(csv.reader([line])) in a UDF, and
// mapPartitions(reader) (or `lambda x: reader(x)`) over the lines of a
// file, which reads each line on its own: a map to df.csv_row taken into
// the next operator. The PySpark check runs test/pyspark/jobs/csv_rows.py
// on Spark; pyspark::cpython-text compares the rows with CPython's csv.
// RUN: coco-bigtest import pyspark/jobs/csv_rows.py | FileCheck %s
// CHECK-LABEL: func.func @map_22(
// CHECK: df.csv_row %arg0 : !df.list<!df.str> loc("pyspark/jobs/csv_rows.py":21:53)
// CHECK: df.get %{{[0-9]+}}[2] : !df.list<!df.str> -> !df.str
// CHECK-LABEL: func.func @map_23(
// CHECK: df.csv_row %arg0 : !df.list<!df.str> loc("pyspark/jobs/csv_rows.py":23:52)

// `x[1][1] != "open"` of a leftOuterJoin's absent side is true: the
// present flag and-ed with the values' equality, negated.
// CHECK-LABEL: func.func @filter_24(
// CHECK: %[[PRESENT:[0-9]+]] = df.is_present %arg2
// CHECK: %[[EQ:[0-9]+]] = df.str_eq
// CHECK: %[[BOTH:[0-9]+]] = arith.andi %[[PRESENT]], %[[EQ]] : i1
// CHECK: arith.xori %[[BOTH]], %{{[0-9]+}} : i1

// CHECK-LABEL: func.func @plate_state(
// CHECK: df.csv_row %arg0 : !df.list<!df.str> loc("pyspark/jobs/csv_rows.py":14:11)

// A file read twice (sys.argv[1]) is one source, so both reads see the
// same lines.
// CHECK-LABEL: func.func @csv_rows(
// CHECK: %[[TICKETS:d[0-9]+]] = df.source "input_0"
// CHECK-NOT: df.source "input_2"
// CHECK: df.map %[[TICKETS]] @plate_state

// A dialect, or a list of rows, is refused where it is written.
// RUN: not coco-bigtest import pyspark/inputs/csv_refusals.py --entry tab_separated 2>&1 | FileCheck %s --check-prefix=DIALECT
// DIALECT: coco-bigtest: error: pyspark/inputs/csv_refusals.py:6:40: csv.reader with a dialect or format parameters is not supported in a UDF (the default dialect is)
// RUN: not coco-bigtest import pyspark/inputs/csv_refusals.py --entry rows_of_list 2>&1 | FileCheck %s --check-prefix=LIST
// LIST: coco-bigtest: error: pyspark/inputs/csv_refusals.py:10:40: csv.reader in a UDF is read as next(csv.reader([line])), the row of one line; for the lines of a partition, rdd.mapPartitions(csv.reader)
