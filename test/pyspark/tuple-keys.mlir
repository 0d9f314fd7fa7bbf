// Tuple keys (`((state, plate), 1)`): reduceByKey and leftOuterJoin over
// them are df's reduce_by_key and join with `keys 2`, the key the first two
// fields of the flattened record. The PySpark check runs
// test/pyspark/jobs/pair_keys.py on Spark.
// RUN: coco-bigtest import pyspark/jobs/pair_keys.py | FileCheck %s
// CHECK: df.reduce_by_key %{{d[0-9]+}} @add keys 2 : !df.dataset<tuple<!df.str, !df.str, i64>> loc("pyspark/jobs/pair_keys.py":11:47)
// CHECK: df.join left_outer %{{d[0-9]+}}, %{{d[0-9]+}} keys 2 : !df.dataset<tuple<!df.str, !df.str, i64>>, !df.dataset<tuple<!df.str, !df.str, i64>> -> !df.dataset<tuple<!df.str, !df.str, i64, !df.option<i64>>> loc("pyspark/jobs/pair_keys.py":13:14)
