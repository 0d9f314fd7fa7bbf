// What coco predicts of a UDF is what Python does, or the construct is
// refused at its line and column: never a guess. The jobs of
// pyspark/jobs/predict-*.py run on Spark with their generated cases in the
// PySpark check (test/src/pyspark_jobs.rs); the refusals are here.

// Exceptions are caught by their bases (Python's built-in hierarchy, and
// the file's `class Negative(BadRecord)`, `class BadRecord(ValueError)`),
// also when a called def raises them: in @classify only the `stop` record
// fails the task; KeyError (LookupError), IndexError (LookupError,
// Exception), ZeroDivisionError (ArithmeticError) and the file's classes
// (ValueError) all go to their handlers.
// RUN: coco-bigtest import pyspark/jobs/predict-exceptions.py | FileCheck %s --check-prefix=EXC
// EXC-LABEL: func.func @classify(
// EXC: df.raise "Negative" loc("pyspark/jobs/predict-exceptions.py":26:9)
// EXC-NOT: df.raise
// EXC: func.func @classified()

// A constant set again under `if DEBUG:` with DEBUG = False, or under
// `if not DEBUG:`, is the value the module leaves: LIMIT 10, SUFFIX "?".
// The file's `def len` is what `len(...)` calls.
// RUN: coco-bigtest import pyspark/jobs/predict-constants.py | FileCheck %s --check-prefix=CONST
// CONST-LABEL: func.func @mark(
// CONST: df.find
// CONST-NOT: df.length
// CONST: arith.constant 10 : i64 loc("pyspark/jobs/predict-constants.py":22:22)
// CONST: df.str_constant "?" loc("pyspark/jobs/predict-constants.py":22:31)

// A product beyond i64 is no value the interpreter predicts: the path that
// needs one gets no data, with the reason (the old interpreter wrapped it
// and predicted a wrong value). Near the limit the values are exact; that
// job runs on Spark (pyspark/jobs/predict-integers.py).
// RUN: coco-bigtest generate pyspark/inputs/predict_beyond_i64.py -o %t/beyond 2>&1 | FileCheck %s --check-prefix=BEYOND
// BEYOND: warning: no test data makes @products follow path 1: {{.*}}: the Python integer {{[0-9]+}} * 1000000000000 is beyond i64, which the df model cannot hold

// Builtins the module rebinds, imports over, or may rebind with `import *`.
// RUN: not coco-bigtest import pyspark/inputs/predict_refusals.py --entry rebound_int 2>&1 | FileCheck %s --check-prefix=INT-FLOAT
// INT-FLOAT: coco-bigtest: error: pyspark/inputs/predict_refusals.py:27:35: int is not Python's builtin int here: at pyspark/inputs/predict_refusals.py:4:1 it is assigned a computed value
// RUN: not coco-bigtest import pyspark/inputs/predict_refusals.py --entry imported_abs 2>&1 | FileCheck %s --check-prefix=IMPORT-AS
// IMPORT-AS: coco-bigtest: error: pyspark/inputs/predict_refusals.py:31:35: abs is not Python's builtin abs here: at pyspark/inputs/predict_refusals.py:2:1 it is imported
// RUN: not coco-bigtest import pyspark/inputs/predict_refusals.py --entry except_rebound 2>&1 | FileCheck %s --check-prefix=EXCEPT-REBOUND
// EXCEPT-REBOUND: coco-bigtest: error: pyspark/inputs/predict_refusals.py:37:12: ValueError is not Python's builtin ValueError here: at pyspark/inputs/predict_refusals.py:5:1 it is assigned a computed value
// RUN: not coco-bigtest import pyspark/inputs/predict_star_import.py 2>&1 | FileCheck %s --check-prefix=STAR
// STAR: coco-bigtest: error: pyspark/inputs/predict_star_import.py:5:35: `from ... import *` at pyspark/inputs/predict_star_import.py:1:1 may rebind the builtin sum

// Module names without one known value.
// RUN: not coco-bigtest import pyspark/inputs/predict_refusals.py --entry limit_under_if 2>&1 | FileCheck %s --check-prefix=UNDER-IF
// UNDER-IF: coco-bigtest: error: pyspark/inputs/predict_refusals.py:46:55: LIMIT is not a constant here: at pyspark/inputs/predict_refusals.py:8:5 it is assigned under an `if` whose test is not a constant
// RUN: not coco-bigtest import pyspark/inputs/predict_refusals.py --entry global_counter 2>&1 | FileCheck %s --check-prefix=GLOBAL
// GLOBAL: coco-bigtest: error: pyspark/inputs/predict_refusals.py:50:55: COUNT is not a constant here: at pyspark/inputs/predict_refusals.py:13:5 it is assigned by the function defined at pyspark/inputs/predict_refusals.py:12:1, which declares it `global`

// Exception classes coco does not model.
// RUN: not coco-bigtest import pyspark/inputs/predict_refusals.py --entry except_rich 2>&1 | FileCheck %s --check-prefix=RICH
// RICH: coco-bigtest: error: pyspark/inputs/predict_refusals.py:60:12: class Rich (at pyspark/inputs/predict_refusals.py:21:1) is not modelled: coco models a file's exception class written `class Rich(Base): pass`, with one exception class as its base
// RUN: not coco-bigtest import pyspark/inputs/predict_refusals.py --entry undefined_class 2>&1 | FileCheck %s --check-prefix=UNDEFINED
// UNDEFINED: coco-bigtest: error: pyspark/inputs/predict_refusals.py:73:11: FooError is neither a built-in exception class nor an exception class of this file
// RUN: not coco-bigtest import pyspark/inputs/predict_refusals.py --entry system_exit 2>&1 | FileCheck %s --check-prefix=SYSTEM-EXIT
// SYSTEM-EXIT: coco-bigtest: error: pyspark/inputs/predict_refusals.py:82:15: raise SystemExit: it is not an Exception: it stops PySpark's Python worker instead of failing the task
