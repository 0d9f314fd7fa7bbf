// Python outside the PySpark front end's subset: each construct is an error
// that names it, at its line and column in the Python file, with the line
// quoted (docs/pyspark.md lists the subset). One function of
// inputs/unsupported.py per construct, chosen with --entry.

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry dict_literal 2>&1 | FileCheck %s --check-prefix=DICT-LITERAL
// DICT-LITERAL: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: dict literals are not supported in a UDF

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry list_comprehension 2>&1 | FileCheck %s --check-prefix=LIST-COMPREHENSION
// LIST-COMPREHENSION: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: list comprehensions are not supported in a UDF

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry set_literal 2>&1 | FileCheck %s --check-prefix=SET-LITERAL
// SET-LITERAL: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: set literals are not supported in a UDF

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry while_loop 2>&1 | FileCheck %s --check-prefix=WHILE-LOOP
// WHILE-LOOP: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: nested function definitions are not supported in the job

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry while_in_udf 2>&1 | FileCheck %s --check-prefix=WHILE-IN-UDF
// WHILE-IN-UDF: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: while loops (their trip count cannot be bounded) are not supported in a UDF

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry global_statement 2>&1 | FileCheck %s --check-prefix=GLOBAL-STATEMENT
// GLOBAL-STATEMENT: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: global statements are not supported in a UDF

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry import_in_udf 2>&1 | FileCheck %s --check-prefix=IMPORT-IN-UDF
// IMPORT-IN-UDF: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: imports are not supported in a UDF

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry unknown_method 2>&1 | FileCheck %s --check-prefix=UNKNOWN-METHOD
// UNKNOWN-METHOD: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: str.title() is not supported in a UDF

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry unknown_builtin 2>&1 | FileCheck %s --check-prefix=UNKNOWN-BUILTIN
// UNKNOWN-BUILTIN: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: sorted() is not supported in a UDF

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry unknown_name 2>&1 | FileCheck %s --check-prefix=UNKNOWN-NAME
// UNKNOWN-NAME: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: suffix is not defined here

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry string_ordering 2>&1 | FileCheck %s --check-prefix=STRING-ORDERING
// STRING-ORDERING: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: ordering strings (<, >) is not supported in a UDF

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry mixed_types 2>&1 | FileCheck %s --check-prefix=MIXED-TYPES
// MIXED-TYPES: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: an operation on a str and an int (TypeError in Python

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry bare_except 2>&1 | FileCheck %s --check-prefix=BARE-EXCEPT
// BARE-EXCEPT: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: a bare except is not supported in a UDF

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry try_finally 2>&1 | FileCheck %s --check-prefix=TRY-FINALLY
// TRY-FINALLY: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: try ... else and finally are not supported in a UDF

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry recursion 2>&1 | FileCheck %s --check-prefix=RECURSION
// RECURSION: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: udf_recursive calls itself; recursion is not supported in a UDF

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry keyword_arguments 2>&1 | FileCheck %s --check-prefix=KEYWORD-ARGUMENTS
// KEYWORD-ARGUMENTS: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: keyword arguments are not supported in a UDF call

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry for_over_split 2>&1 | FileCheck %s --check-prefix=FOR-OVER-SPLIT
// FOR-OVER-SPLIT: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: for loops over a split are not supported yet

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry group_by_key 2>&1 | FileCheck %s --check-prefix=GROUP-BY-KEY
// GROUP-BY-KEY: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: groupByKey() is not supported yet

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry sort_by 2>&1 | FileCheck %s --check-prefix=SORT-BY
// SORT-BY: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: sortBy() is not supported yet

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry parallelize_in_job 2>&1 | FileCheck %s --check-prefix=PARALLELIZE-IN-JOB
// PARALLELIZE-IN-JOB: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: the attribute .context of an RDD is not supported

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry tuple_values_reduce 2>&1 | FileCheck %s --check-prefix=TUPLE-VALUES-REDUCE
// TUPLE-VALUES-REDUCE: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: reduceByKey over values of type tuple[int, int] is not supported yet

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry big_int 2>&1 | FileCheck %s --check-prefix=BIG-INT
// BIG-INT: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: the integer 123456789012345678901234567890 is beyond 64 bits

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry negative_split_index 2>&1 | FileCheck %s --check-prefix=NEGATIVE-SPLIT-INDEX
// NEGATIVE-SPLIT-INDEX: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: negative indices into a split are not supported yet

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry class_method 2>&1 | FileCheck %s --check-prefix=CLASS-METHOD
// CLASS-METHOD: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: str.encode() is not supported in a UDF

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry walrus 2>&1 | FileCheck %s --check-prefix=WALRUS
// WALRUS: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: assignment expressions (:=) are not supported in a UDF

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry lambda_in_udf 2>&1 | FileCheck %s --check-prefix=LAMBDA-IN-UDF
// LAMBDA-IN-UDF: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: calling a lambda is not supported in a UDF

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry flat_map_pairs 2>&1 | FileCheck %s --check-prefix=FLAT-MAP-PAIRS
// FLAT-MAP-PAIRS: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: a flatMap UDF returns a split (list of str) here; this one returns a tuple[str, int]

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry unpack_a_split 2>&1 | FileCheck %s --check-prefix=UNPACK-A-SPLIT
// UNPACK-A-SPLIT: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: unpacking a split into variables is not supported yet

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry always_raises 2>&1 | FileCheck %s --check-prefix=ALWAYS-RAISES
// ALWAYS-RAISES: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: this UDF raises on every path; it has no result type

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry print_in_job 2>&1 | FileCheck %s --check-prefix=PRINT-IN-JOB
// PRINT-IN-JOB: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: print() in the job

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry returns_nothing 2>&1 | FileCheck %s --check-prefix=RETURNS-NOTHING
// RETURNS-NOTHING: coco-bigtest: error: pyspark/inputs/unsupported.py:[[LINE:[0-9]+]]:[[COL:[0-9]+]]: a call whose result is dropped
