// A script's driver code: read, not run. The tests pass the arguments the
// code reads, so a usage check is decided; prints of collected records are
// outputs (test/pyspark/jobs/script_printed.py runs them on Spark). What the
// driver does beyond that is a located error naming the construct.

// RUN: coco-bigtest import pyspark/jobs/script_printed.py | FileCheck %s
// CHECK: func.func @script_printed()
// CHECK: df.source "input_0" {{.*}} loc("pyspark/jobs/script_printed.py":17:9)
// CHECK: df.sink "print_25"
// CHECK: df.sink "print_28"
// CHECK: df.sink "print_31"
// CHECK: df.sink "print_33"
// CHECK: df.sink "print_35" {{.*}} : !df.dataset<tuple<i64, !df.str, i64>>
// CHECK: df.sink "print_37"
// CHECK: df.sink "print_39"
// CHECK: df.sink "count_40" {{.*}} loc("pyspark/jobs/script_printed.py":40:5)
// CHECK: df.sink "count_41" {{.*}} loc("pyspark/jobs/script_printed.py":41:57)

// RUN: not coco-bigtest import pyspark/inputs/driver_exit.py 2>&1 | FileCheck %s --check-prefix=EXIT
// EXIT: coco-bigtest: error: pyspark/inputs/driver_exit.py:8:9: the script exits here when given the one argument its code reads (sys.argv[1]), which is what the generated tests pass

// RUN: not coco-bigtest import pyspark/inputs/driver_if_data.py 2>&1 | FileCheck %s --check-prefix=IF-DATA
// IF-DATA: coco-bigtest: error: pyspark/inputs/driver_if_data.py:7:4: an `if` of the driver code is read when constants and len(sys.argv) decide it; this test depends on something else

// RUN: not coco-bigtest import pyspark/inputs/driver_print_first.py 2>&1 | FileCheck %s --check-prefix=PRINT-FIRST
// PRINT-FIRST: coco-bigtest: error: pyspark/inputs/driver_print_first.py:7:17: .first() in a printed value is not supported (an RDD's count() is)

// A loop body of several statements is run by the test, for each record.
// RUN: coco-bigtest import pyspark/inputs/driver_two_prints.py | FileCheck %s --check-prefix=TWO-PRINTS
// TWO-PRINTS: df.sink "print_6"
// RUN: not coco-bigtest import pyspark/inputs/script_loop_while.py 2>&1 | FileCheck %s --check-prefix=LOOP-WHILE
// LOOP-WHILE: coco-bigtest: error: pyspark/inputs/script_loop_while.py:7:5: a `while` loop in a loop over collected records is not supported (assignments, if/else, print and continue are)

// A record holding a split is no dataset: the map, filter or flatMap that
// reads it takes its function in (test/pyspark/jobs/script_records.py runs
// on Spark); anything else reading it is an error naming the way out.
// RUN: coco-bigtest import pyspark/jobs/script_records.py | FileCheck %s --check-prefix=RECORDS
// RECORDS: df.source "input_0" {{.*}} loc("pyspark/jobs/script_records.py":12:9)
// RECORDS-NEXT: df.filter %d0 @filter_14 : !df.dataset<!df.str>
// RECORDS-NEXT: df.filter %d1 @filter_15 : !df.dataset<!df.str>
// RECORDS-NEXT: df.map %d2 @map_16 : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, i64>>
// RECORDS: df.sink "print_29" {{.*}} : !df.dataset<tuple<!df.str, i64, !df.str, i64>>
// RECORDS: df.sink "print_32" {{.*}} : !df.dataset<tuple<!df.str, i64, !df.str, i64>>
// RUN: not coco-bigtest import pyspark/inputs/script_list_collect.py 2>&1 | FileCheck %s --check-prefix=LIST-COLLECT
// LIST-COLLECT: coco-bigtest: error: pyspark/inputs/script_list_collect.py:6:39: the records this function makes hold a list (a split), and collect() reads them; coco follows such records only into a map, flatMap or filter

// RUN: not coco-bigtest import pyspark/inputs/driver_row_field.py 2>&1 | FileCheck %s --check-prefix=ROW-FIELD
// ROW-FIELD: coco-bigtest: error: pyspark/inputs/driver_row_field.py:6:42: the rows of spark.read.text(...).rdd are read through .map(lambda r: r[0]) (or r.value), as Spark's examples do; sc.textFile(path) gives the lines themselves

// RUN: not coco-bigtest import pyspark/inputs/driver_operator.py 2>&1 | FileCheck %s --check-prefix=OPERATOR
// OPERATOR: coco-bigtest: error: pyspark/inputs/driver_operator.py:8:34: operator.xor is not supported as a function (add, sub, mul, truediv, floordiv, mod, pow, concat, the comparisons, neg, not_, truth, abs and itemgetter are)

// RUN: not coco-bigtest import pyspark/inputs/driver_print_end.py 2>&1 | FileCheck %s --check-prefix=END
// END: coco-bigtest: error: pyspark/inputs/driver_print_end.py:7:21: print(..., end=...) other than a line break is not supported: each print is a line of the output

// take(), top() and takeOrdered() give any n records (the first n in a
// sort's order): a test reads them where a script prints them.
// RUN: not coco-bigtest import pyspark/inputs/take_returned.py 2>&1 | FileCheck %s --check-prefix=TAKE
// TAKE: coco-bigtest: error: pyspark/inputs/take_returned.py:2:5: the records of take(), top() and takeOrdered() are read where a script prints them (`for x in rdd.take(5): print(x)`); return or save the RDD itself

// argparse: positionals are the files the test passes, options keep their
// defaults (test/pyspark/jobs/script_args.py runs on Spark).
// RUN: not coco-bigtest import pyspark/inputs/driver_nargs.py 2>&1 | FileCheck %s --check-prefix=NARGS
// NARGS: coco-bigtest: error: pyspark/inputs/driver_nargs.py:6:31: add_argument's nargs is not supported (help, metavar, dest, type, default, action and required=False are)

// Spark runs a lambda when an action runs, with the values its names hold
// then: a name a script binds again is no constant for a lambda to read.
// RUN: not coco-bigtest import pyspark/inputs/driver_rebound.py 2>&1 | FileCheck %s --check-prefix=REBOUND
// REBOUND: coco-bigtest: error: pyspark/inputs/driver_rebound.py:7:46: limit is not a constant here: at pyspark/inputs/driver_rebound.py:8:1 it is bound again in the script, whose actions may run between its bindings

// An operator coco does not read names the rewrite that would get the job
// in, where there is one. (mapPartitions(csv.reader) is read:
// test/pyspark/csv.mlir.)
// RUN: not coco-bigtest import pyspark/inputs/script_map_partitions.py 2>&1 | FileCheck %s --check-prefix=MAP-PARTITIONS
// MAP-PARTITIONS: coco-bigtest: error: pyspark/inputs/script_map_partitions.py:6:33: RDD.mapPartitions() is not supported: coco reads per-record operators; a function that handles each record on its own is a map or flatMap of one record (`mapPartitions(lambda it: (f(x) for x in it))` is `map(f)`; `mapPartitions(csv.reader)` is read, as each line's row)
// RUN: not coco-bigtest import pyspark/inputs/script_whole_files.py 2>&1 | FileCheck %s --check-prefix=WHOLE-FILES
// WHOLE-FILES: coco-bigtest: error: pyspark/inputs/script_whole_files.py:6:9: SparkContext.wholeTextFiles() is not supported in the job: coco generates lines of text (sc.textFile); records that are whole files have no rewrite yet
// A def of the driver's own values (a compiled pattern) is named as such,
// with where its code stopped being RDD code.
// RUN: not coco-bigtest import pyspark/inputs/driver_function.py 2>&1 | FileCheck %s --check-prefix=DRIVER-FUNCTION
// DRIVER-FUNCTION: coco-bigtest: error: pyspark/inputs/driver_function.py:14:15: request_pattern() computes a value of the driver (it is given no RDD and calls no RDD operator): coco reads a def the script calls as RDD code and does not run the driver's own functions, and request_pattern's code is not RDD code (pyspark/inputs/driver_function.py:9:12: re is not an RDD or the SparkContext here)
