// A flatMap whose function builds its list element by element (a generator
// def that yields in a `for` loop, a list comprehension, a generator
// expression) is read as a flat_map over the list the loop iterates, each
// element carrying the values of the record it reads, a filter per `if`,
// and a map that makes the element (bigtest/pyspark/src/elements.rs). The
// PySpark check runs test/pyspark/jobs/generators.py on Spark.
// RUN: coco-bigtest import pyspark/jobs/generators.py | FileCheck %s
// A generator passed by name that yields the loop's element: no map.
// CHECK: %d1 = df.flat_map %d0 @words : !df.dataset<!df.str> -> !df.dataset<!df.str>
// CHECK-NEXT: df.map %d1 @map_32
// A comprehension with an `if`.
// CHECK: %d4 = df.flat_map %d0 @flat_map_33 : !df.dataset<!df.str> -> !df.dataset<!df.str>
// CHECK-NEXT: %d5 = df.filter %d4 @flat_map_33_if
// CHECK-NEXT: %d6 = df.map %d5 @flat_map_33_element : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, i64>>
// pagerank's shape: a lambda calling a generator def over a group's values;
// each element carries the def's `weight` and `count` (what the yielded
// value reads), and the division happens per element, as in Python.
// CHECK: %d8 = df.flat_map %d7 @flat_map_34 : !df.dataset<tuple<!df.str, !df.list<i64>>> -> !df.dataset<tuple<f64, i64, i64>>
// CHECK-NEXT: %d9 = df.filter %d8 @flat_map_34_if
// CHECK-NEXT: %d10 = df.map %d9 @flat_map_34_element : !df.dataset<tuple<f64, i64, i64>> -> !df.dataset<tuple<i64, f64>>
// The driver loop `for _ in range(int(sys.argv[2]))`, unrolled: the tests
// pass 2, so its body's operators appear twice.
// CHECK: %d11 = df.map %d3 @map_values_36
// CHECK-NEXT: %d12 = df.filter %d11 @filter_36 :
// CHECK-NEXT: %d13 = df.map %d12 @map_values_36_1
// CHECK-NEXT: %d14 = df.filter %d13 @filter_36_1 :
// A generator expression.
// CHECK: %d15 = df.flat_map %d0 @flat_map_37
// CHECK-NEXT: %d16 = df.map %d15 @flat_map_37_element
// CHECK: df.sink "print_39" %d14

// The generated module passes the loop's count on the command line.
// RUN: coco-bigtest generate pyspark/jobs/generators.py -o %t/generators --pytest %t/test_generators.py | FileCheck %s --check-prefix=WRITTEN
// WRITTEN: pytest module written to
// RUN: FileCheck %s --check-prefix=ARGS --input-file=%t/test_generators.py
// ARGS: ARGC = 2
// ARGS: ARGUMENTS = {2: "2"}

// range(start, stop, step) of constants: each trip its own operators.
// RUN: coco-bigtest import pyspark/inputs/driver_loop_steps.py | FileCheck %s --check-prefix=STEPS
// STEPS: df.filter %d0 @filter_8 :
// STEPS-NEXT: df.filter %d1 @filter_8_1 :
// STEPS-NEXT: df.filter %d2 @filter_8_2 :
// STEPS-NEXT: df.sink

// Each `if` of a comprehension is a filter of its own: Python tests the
// second only on what the first kept.
// RUN: coco-bigtest import pyspark/inputs/generator_refusals.py --entry kept | FileCheck %s --check-prefix=KEPT
// KEPT: df.flat_map %d0 @flat_map_58
// KEPT-NEXT: df.filter %d1 @flat_map_58_if :
// KEPT-NEXT: df.filter %d2 @flat_map_58_if_1 :
// KEPT-NEXT: df.map %d3 @flat_map_58_element

// What is not read is refused where it is written, saying what is.
// RUN: not coco-bigtest import pyspark/inputs/generator_refusals.py --entry printed 2>&1 | FileCheck %s --check-prefix=PRINTED
// PRINTED: coco-bigtest: error: pyspark/inputs/generator_refusals.py:3:5: the generator pairs_then_print is read when it is plain assignments, then `for x in xs: yield e` (its body one `yield`, under one `if` at most) as its last statement; this statement is not a plain assignment to one name
// RUN: not coco-bigtest import pyspark/inputs/generator_refusals.py --entry doubled 2>&1 | FileCheck %s --check-prefix=DOUBLED
// DOUBLED: error: pyspark/inputs/generator_refusals.py:9:5: {{.*}}; the loop's body is not one `yield`
// RUN: not coco-bigtest import pyspark/inputs/generator_refusals.py --entry trailing 2>&1 | FileCheck %s --check-prefix=TRAILING
// TRAILING: error: pyspark/inputs/generator_refusals.py:15:5: {{.*}}; statements after the loop are not read
// RUN: not coco-bigtest import pyspark/inputs/generator_refusals.py --entry unpacking 2>&1 | FileCheck %s --check-prefix=UNPACKING
// UNPACKING: error: pyspark/inputs/generator_refusals.py:21:9: {{.*}}; the loop's target is not one name
// RUN: not coco-bigtest import pyspark/inputs/generator_refusals.py --entry nested 2>&1 | FileCheck %s --check-prefix=NESTED
// NESTED: error: pyspark/inputs/generator_refusals.py:42:39: a comprehension with several `for`s in a flatMap is not read yet; flatMap over the outer one and again over the inner
// RUN: not coco-bigtest import pyspark/inputs/generator_refusals.py --entry tuple_target 2>&1 | FileCheck %s --check-prefix=TUPLE-TARGET
// TUPLE-TARGET: error: pyspark/inputs/generator_refusals.py:46:46: a comprehension in a flatMap is read when its target is one name
// RUN: not coco-bigtest import pyspark/inputs/generator_refusals.py --entry list_elements 2>&1 | FileCheck %s --check-prefix=LIST-ELEMENTS
// LIST-ELEMENTS: error: pyspark/inputs/generator_refusals.py:50:40: each element this flatMap makes holds a list, and coco's records hold no lists
// RUN: not coco-bigtest import pyspark/inputs/generator_refusals.py --entry over_a_string 2>&1 | FileCheck %s --check-prefix=OVER-STRING
// OVER-STRING: error: pyspark/inputs/generator_refusals.py:54:26: the loop of this flatMap function iterates over str; coco follows a loop over a list (a split, a group's values)

// A driver loop runs a known number of times, at most 16.
// RUN: not coco-bigtest import pyspark/inputs/driver_loops.py 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: error: pyspark/inputs/driver_loops.py:7:16: a loop of the driver is read over range(n), n a constant or int(sys.argv[N]) (the tests pass 2); this bound is a call of .count()
// RUN: not coco-bigtest import pyspark/inputs/driver_loop_many.py 2>&1 | FileCheck %s --check-prefix=MANY
// MANY: error: pyspark/inputs/driver_loop_many.py:7:10: this loop of the driver runs more than 16 times; coco unrolls a driver loop, each trip its own operators, up to 16 trips
// RUN: not coco-bigtest generate pyspark/inputs/driver_loop_argv_file.py -o %t/argv-file --pytest %t/test_argv_file.py 2>&1 | FileCheck %s --check-prefix=ARGV-FILE
// ARGV-FILE: error: --pytest: the script reads sys.argv[1] both as a file and as a number; a test cannot pass it both

// A generator called from a lambda runs in the lambda's scope here: one
// argument per parameter, and no module-level name it reads may be the
// lambda's parameter.
// RUN: not coco-bigtest import pyspark/inputs/generator_refusals.py --entry shadowing 2>&1 | FileCheck %s --check-prefix=SHADOWING
// SHADOWING: error: pyspark/inputs/generator_refusals.py:70:40: the generator scaled is read in a flatMap when it reads no module-level name that is also the lambda's parameter (SCALE here): name one of them differently
// RUN: not coco-bigtest import pyspark/inputs/generator_refusals.py --entry too_few 2>&1 | FileCheck %s --check-prefix=TOO-FEW
// TOO-FEW: error: pyspark/inputs/generator_refusals.py:79:39: the generator pair_of is read in a flatMap when called with one positional argument per parameter (2 here)
