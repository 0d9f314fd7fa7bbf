// Dicts and collections of constants read by UDFs (a lookup table, a
// broadcast of one, stop words):
// d[k] is the key compared with each key in turn and a KeyError where none
// is equal, d.get(k, default) the default there. The PySpark check runs
// test/pyspark/jobs/dict_lookup.py on Spark.
// RUN: coco-bigtest import pyspark/jobs/dict_lookup.py | FileCheck %s
// CHECK-LABEL: func.func @status_name(
// CHECK: arith.cmpi eq, %[[KEY:[0-9]+]], %{{[0-9]+}} : i64 loc("pyspark/jobs/dict_lookup.py":18:13)
// CHECK: df.str_constant "OK" loc("pyspark/jobs/dict_lookup.py":9:16)
// CHECK: arith.cmpi eq, %[[KEY]], %{{[0-9]+}} : i64
// CHECK: df.str_constant "Not Found"
// CHECK: arith.cmpi eq, %[[KEY]], %{{[0-9]+}} : i64
// CHECK: df.str_constant "Server Error"
// CHECK: df.raise "KeyError" loc("pyspark/jobs/dict_lookup.py":18:13)

// s.startswith(("GET", "POST")): any of the prefixes.
// RUN: coco-bigtest import pyspark/jobs/dict_lookup.py | FileCheck %s --check-prefix=PREFIXES
// PREFIXES-LABEL: func.func @filter_24(
// PREFIXES: %[[GET:[0-9]+]] = df.starts_with %arg0, %{{[0-9]+}}
// PREFIXES: %[[POST:[0-9]+]] = df.starts_with %arg0, %{{[0-9]+}}
// PREFIXES: arith.ori %[[GET]], %[[POST]] : i1

// `word not in STOPWORDS` (a module-level set): equal to none of them.
// test/pyspark/jobs/stopwords.py runs on Spark in the PySpark check.
// RUN: coco-bigtest import pyspark/jobs/stopwords.py | FileCheck %s --check-prefix=STOPWORDS
// STOPWORDS-LABEL: func.func @filter_13(
// STOPWORDS: %[[THE:[0-9]+]] = df.str_eq %arg0, %{{[0-9]+}}
// STOPWORDS: %[[A:[0-9]+]] = df.str_eq %arg0, %{{[0-9]+}}
// STOPWORDS: %[[EITHER:[0-9]+]] = arith.ori %[[THE]], %[[A]] : i1
// STOPWORDS: %[[OF:[0-9]+]] = df.str_eq %arg0, %{{[0-9]+}}
// STOPWORDS: %[[ANY:[0-9]+]] = arith.ori %[[EITHER]], %[[OF]] : i1
// STOPWORDS: arith.xori %[[ANY]], %{{[0-9]+}} : i1
// RUN: not coco-bigtest import pyspark/inputs/in_mixed.py 2>&1 | FileCheck %s --check-prefix=IN-MIXED
// IN-MIXED: coco-bigtest: error: pyspark/inputs/in_mixed.py:7:35: `in` of a collection of constants is read when they are all of one type (int, float or str) in a UDF

// A dict the file changes in place is not read as its literal.
// RUN: not coco-bigtest import pyspark/inputs/dict_mutated.py 2>&1 | FileCheck %s --check-prefix=MUTATED
// MUTATED: coco-bigtest: error: pyspark/inputs/dict_mutated.py:8:35: CODES is changed in place by the file (a method such as update() or add() called on it, an item assigned, or passed to a function), so coco cannot tell which entries a UDF sees; a dict or collection a UDF reads is written once, as a literal of constants

// RUN: not coco-bigtest import pyspark/inputs/set_mutated.py 2>&1 | FileCheck %s --check-prefix=SET-MUTATED
// SET-MUTATED: coco-bigtest: error: pyspark/inputs/set_mutated.py:8:79: STOPWORDS is changed in place by the file (a method such as update() or add() called on it

// Keys of two types (200 and "404" are never equal) are refused.
// RUN: not coco-bigtest import pyspark/inputs/dict_mixed_keys.py 2>&1 | FileCheck %s --check-prefix=MIXED
// MIXED: coco-bigtest: error: pyspark/inputs/dict_mixed_keys.py:3:9: a dict read in a UDF has keys of one type (all int or all str)
