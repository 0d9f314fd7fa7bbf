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

// RUN: not coco-bigtest import pyspark/inputs/driver_two_prints.py 2>&1 | FileCheck %s --check-prefix=TWO-PRINTS
// TWO-PRINTS: coco-bigtest: error: pyspark/inputs/driver_two_prints.py:6:1: a loop over collected records is read when its body is one print(...)

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
