// Spark SQL written as strings (a filter's condition, selectExpr, F.expr)
// is read as the Column code a job would write for it
// (bigtest/pyspark/src/frame/sql_text.rs), and a reference through the
// DataFrame a filtered one came from resolves on it, as in Spark. The
// PySpark check runs test/pyspark/jobs/frame_sql_strings.py on Spark.
// RUN: coco-bigtest import pyspark/jobs/frame_sql_strings.py | FileCheck %s

// `filter("status IN ('COMPLETE', 'CLOSED')")`: a string comparison each.
// CHECK: func.func @filter_16(
// CHECK: df.str_constant "COMPLETE"
// CHECK: df.str_constant "CLOSED"
// `orders["order_id"]` on `orders.filter(...)`: the join's key.
// CHECK: df.join inner {{.*}} loc("pyspark/jobs/frame_sql_strings.py":17:6)
// `BETWEEN 10 AND 1000.5 AND NOT order_date IS NULL`, then the F.expr.
// CHECK: df.filter {{.*}} @where_18
// CHECK: df.filter {{.*}} @where_20
// CHECK: df.sink "daily"

// RUN: not coco-bigtest import pyspark/inputs/frame_sql_decimal.py 2>&1 | FileCheck %s --check-prefix=DECIMAL
// DECIMAL: coco-bigtest: error: pyspark/inputs/frame_sql_decimal.py:7:19: the SQL expression "amount * 1.5 AS scaled", at character 10: 1.5 is a DECIMAL literal in Spark SQL, which coco reads only where it is compared; write 1.5D for a DOUBLE
// RUN: not coco-bigtest import pyspark/inputs/frame_sql_unnamed.py 2>&1 | FileCheck %s --check-prefix=UNNAMED
// UNNAMED: error: pyspark/inputs/frame_sql_unnamed.py:7:19: selectExpr("amount * 2"): Spark names such a column after its SQL text; give it a name (`... AS name`)
// RUN: not coco-bigtest import pyspark/inputs/frame_sql_like.py 2>&1 | FileCheck %s --check-prefix=LIKE
// LIKE: error: pyspark/inputs/frame_sql_like.py:7:15: the SQL expression "status LIKE 'C%'", at character 8: LIKE is not supported yet
