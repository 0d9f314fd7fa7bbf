// DataFrame code of a script: files read with spark.read (a reader chain
// of schema, options and format), the same DataFrame operators as a
// DataFrame function's, and files written with df.write
// (bigtest/pyspark/src/frame/script.rs). The PySpark check runs
// test/pyspark/jobs/frame_script.py on Spark: its tests write each case's
// rows as the CSV the script reads and read back what it writes.
// RUN: coco-bigtest import pyspark/jobs/frame_script.py | FileCheck %s

// Spark reads a file's schema as nullable, and an empty CSV field as NULL:
// the read makes an empty string NULL.
// CHECK: func.func @read_input_0(%arg0: i1, %arg1: i64, %arg2: i1, %arg3: !df.str, %arg4: i1, %arg5: f64)
// CHECK: df.str_eq %arg3,
// CHECK: func.func @read_input_1(%arg0: i1, %arg1: !df.str, %arg2: i1, %arg3: !df.str)
// Each operator is read once, whatever chain it stands in.
// CHECK: func.func @where_25(
// CHECK-NOT: func.func @where_25_1(
// CHECK: func.func @frame_script()
// The INT column's field is kept within 32 bits.
// CHECK: df.source "input_0" {{.*}} int32 [1] : !df.dataset<tuple<i1, i64, i1, !df.str, i1, f64>> loc("pyspark/jobs/frame_script.py":20:10)
// CHECK: df.source "input_1" {{.*}} loc("pyspark/jobs/frame_script.py":21:13)
// CHECK: df.sink "by_country" {{.*}} : !df.dataset<tuple<i1, !df.str, i64, i1, f64>> loc("pyspark/jobs/frame_script.py":30:1)
// CHECK: df.sink "names" {{.*}} : !df.dataset<!df.str> loc("pyspark/jobs/frame_script.py":33:1)

// What is not read is refused where it is written, saying what is.
// RUN: not coco-bigtest import pyspark/inputs/frame_script_no_schema.py 2>&1 | FileCheck %s --check-prefix=NO-SCHEMA
// NO-SCHEMA: coco-bigtest: error: pyspark/inputs/frame_script_no_schema.py:6:23: a CSV read with neither a schema nor a header is not supported yet (Spark names its columns _c0, _c1, ...): give its schema (schema="name STRING, age INT", or a StructType)
// RUN: not coco-bigtest import pyspark/inputs/frame_script_infer.py 2>&1 | FileCheck %s --check-prefix=INFER
// INFER: error: pyspark/inputs/frame_script_infer.py:6:74: a CSV read with inferSchema takes its columns' types from the data, which coco does not model yet: give its schema
// RUN: not coco-bigtest import pyspark/inputs/frame_script_comment.py 2>&1 | FileCheck %s --check-prefix=COMMENT
// COMMENT: error: pyspark/inputs/frame_script_comment.py:4:60: the csv option comment="#" is not supported (coco reads header, sep, quote, escape and options that change no value)
// RUN: not coco-bigtest import pyspark/inputs/frame_script_json.py 2>&1 | FileCheck %s --check-prefix=JSON
// JSON: error: pyspark/inputs/frame_script_json.py:4:19: reading json files is not supported yet: coco generates a script's inputs as CSV or text files
// RUN: not coco-bigtest import pyspark/inputs/frame_script_explain.py 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// EXPLAIN: error: pyspark/inputs/frame_script_explain.py:5:6: DataFrame.explain() in a script is not supported yet: show() the DataFrame, print its count(), or write it (df.write.csv(path)) to have its rows checked
// RUN: not coco-bigtest import pyspark/inputs/frame_script_partition.py 2>&1 | FileCheck %s --check-prefix=PARTITION
// PARTITION: error: pyspark/inputs/frame_script_partition.py:5:12: DataFrameWriter.partitionBy() is not supported: coco checks a written DataFrame as one folder of rows
// RUN: not coco-bigtest import pyspark/inputs/frame_script_text.py 2>&1 | FileCheck %s --check-prefix=TEXT
// TEXT: error: pyspark/inputs/frame_script_text.py:5:12: Spark's text writer takes one string column; this DataFrame has 2 columns (a string, b int)
// RUN: not coco-bigtest import pyspark/inputs/frame_script_create.py 2>&1 | FileCheck %s --check-prefix=CREATE
// CREATE: error: pyspark/inputs/frame_script_create.py:4:30: createDataFrame() of a list or a pandas DataFrame in a script is not supported yet: coco reads a script's DataFrames from files or from RDDs

// A CSV read by its header, without a schema: nullable strings, one per
// name the script gives a column (here city, state, and count, which
// sort() names: a column of the file too, which changes nothing checked).
// RUN: coco-bigtest import pyspark/jobs/frame_header.py | FileCheck %s --check-prefix=HEADER
// HEADER: df.source "input_0" {{.*}} : !df.dataset<tuple<i1, !df.str, i1, !df.str, i1, !df.str>>
// HEADER: df.sink "output_0" {{.*}} : !df.dataset<tuple<i1, !df.str, i64>>

// What a script shows, counts, collects and prints of the schema it reads
// is its output: show() an output whose rows the test prints as Spark's
// table, count() one whose rows it counts, collect() one whose Rows a loop
// prints (test/pyspark/jobs/frame_show.py runs on Spark).
// RUN: coco-bigtest import pyspark/jobs/frame_show.py | FileCheck %s --check-prefix=SHOWN
// SHOWN: df.sink "show_14" {{.*}} loc("pyspark/jobs/frame_show.py":14:23)
// SHOWN: df.sink "show_15"
// SHOWN: df.sink "show_16"
// SHOWN: df.sink "count_17"
// SHOWN: df.sink "count_19"
// SHOWN: df.sink "show_21"
// SHOWN: df.sink "print_23"

// DataFrames of RDDs: createDataFrame(rdd, schema) checks an INT column's
// 32 bits (ValueError past them, as Spark's verifySchema), StringType()
// makes one column, toDF names the fields (test/pyspark/jobs/frame_from_rdd.py
// runs on Spark).
// RUN: coco-bigtest import pyspark/jobs/frame_from_rdd.py | FileCheck %s --check-prefix=FROM-RDD
// FROM-RDD: func.func @rows_14(%arg0: !df.str, %arg1: i64) -> (!df.str, i64)
// FROM-RDD: df.raise "ValueError"
// FROM-RDD: df.map %d1 @rows_14
// FROM-RDD: df.sink "show_15"
// FROM-RDD: df.sink "count_17" {{.*}} : !df.dataset<!df.str>
// FROM-RDD: df.sink "output_2" {{.*}} : !df.dataset<tuple<!df.str, i64>>

// A UDF bound at module level (`label_udf = func.udf(label, StringType())`)
// is called from the script's DataFrame code
// (test/pyspark/jobs/frame_script_udf.py runs on Spark).
// RUN: coco-bigtest import pyspark/jobs/frame_script_udf.py | FileCheck %s --check-prefix=UDF
// UDF: func.func @label_udf(
// UDF: df.sink "show_20"
