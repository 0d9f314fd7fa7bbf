// DataFrame code outside what coco-bigtest reads: each construct is an
// error that names it, at its line and column in the Python file, with the
// line quoted under it (docs/bigtest.md, "Supported DataFrame API"). One
// function of inputs/dataframe_unsupported.py per construct, chosen with
// --entry.

// RUN: not coco-bigtest import pyspark/inputs/dataframe_unsupported.py --entry missing_schema 2>&1 | FileCheck %s --check-prefix=MISSING-SCHEMA
// MISSING-SCHEMA: coco-bigtest: error: pyspark/inputs/dataframe_unsupported.py:14:20: parameter events is a DataFrame: its schema is the module-level constant EVENTS_SCHEMA (a DDL string or StructType), or the schema the `__main__` block reads it with (spark.read.csv(..., schema=S)); the file has neither
// MISSING-SCHEMA-NEXT: def missing_schema(events: DataFrame) -> DataFrame:

// RUN: not coco-bigtest import pyspark/inputs/dataframe_unsupported.py --entry date_column 2>&1 | FileCheck %s --check-prefix=DATE-COLUMN
// DATE-COLUMN: coco-bigtest: error: pyspark/inputs/dataframe_unsupported.py:8:17: column n has type DATE; supported types are string, bigint (long), int, float, double, boolean
// DATE-COLUMN-NEXT: COUNTS_SCHEMA = "store STRING, n DATE"

// RUN: not coco-bigtest import pyspark/inputs/dataframe_unsupported.py --entry limited 2>&1 | FileCheck %s --check-prefix=LIMITED
// LIMITED: coco-bigtest: error: pyspark/inputs/dataframe_unsupported.py:23:36: limit(): which rows a limit keeps is not supported yet (the output is compared as a multiset)
// LIMITED-NEXT: return sales.orderBy("amount").limit(10)

// RUN: not coco-bigtest import pyspark/inputs/dataframe_unsupported.py --entry condition_join 2>&1 | FileCheck %s --check-prefix=CONDITION-JOIN
// CONDITION-JOIN: coco-bigtest: error: pyspark/inputs/dataframe_unsupported.py:27:18: both sides of the join have a column store: Spark keeps both and a later reference to it is ambiguous; rename one first, or join on="store" where the condition is their equality
// CONDITION-JOIN-NEXT: return sales.join(stores, sales.store == stores.store)

// RUN: not coco-bigtest import pyspark/inputs/dataframe_unsupported.py --entry range_join 2>&1 | FileCheck %s --check-prefix=RANGE-JOIN
// RANGE-JOIN: coco-bigtest: error: pyspark/inputs/dataframe_unsupported.py:84:31: a join condition is an equality of columns, or a & of them (other conditions are not supported yet)
// RANGE-JOIN-NEXT: return sales.join(stores, sales.day < stores.city)

// RUN: not coco-bigtest import pyspark/inputs/dataframe_unsupported.py --entry cross_join 2>&1 | FileCheck %s --check-prefix=CROSS-JOIN
// CROSS-JOIN: coco-bigtest: error: pyspark/inputs/dataframe_unsupported.py:31:40: a cross join is not supported (inner, left, right, full, left_semi and left_anti are)
// CROSS-JOIN-NEXT: return sales.join(stores, "store", "cross")

// RUN: not coco-bigtest import pyspark/inputs/dataframe_unsupported.py --entry double_keys 2>&1 | FileCheck %s --check-prefix=DOUBLE-KEYS
// DOUBLE-KEYS: coco-bigtest: error: pyspark/inputs/dataframe_unsupported.py:35:35: a double column (amount) among several group keys is not supported yet
// DOUBLE-KEYS-NEXT: return sales.groupBy("store", "amount").count()

// RUN: not coco-bigtest import pyspark/inputs/dataframe_unsupported.py --entry double_text 2>&1 | FileCheck %s --check-prefix=DOUBLE-TEXT
// DOUBLE-TEXT: coco-bigtest: error: pyspark/inputs/dataframe_unsupported.py:39:44: a cast from double to string is not supported yet (Spark prints doubles as Java does, not as Python does; format in a UDF)
// DOUBLE-TEXT-NEXT: return sales.withColumn("amount_text", F.col("amount").cast("string"))

// RUN: not coco-bigtest import pyspark/inputs/dataframe_unsupported.py --entry regexp 2>&1 | FileCheck %s --check-prefix=REGEXP
// REGEXP: coco-bigtest: error: pyspark/inputs/dataframe_unsupported.py:43:25: regexp_extract() is not a Column function coco-bigtest reads
// REGEXP-NEXT: return sales.select(F.regexp_extract("day", r"(\d+)", 1))

// RUN: not coco-bigtest import pyspark/inputs/dataframe_unsupported.py --entry subset_duplicates 2>&1 | FileCheck %s --check-prefix=SUBSET-DUPLICATES
// SUBSET-DUPLICATES: coco-bigtest: error: pyspark/inputs/dataframe_unsupported.py:47:18: dropDuplicates() of a subset of the columns keeps an arbitrary row of each group (Spark does not say which); not supported: keep a chosen row with groupBy and a join
// SUBSET-DUPLICATES-NEXT: return sales.dropDuplicates(["store"])

// A SQL string the subset does not hold is refused at the character.
// RUN: not coco-bigtest import pyspark/inputs/dataframe_unsupported.py --entry sql_filter 2>&1 | FileCheck %s --check-prefix=SQL-FILTER
// SQL-FILTER: coco-bigtest: error: pyspark/inputs/dataframe_unsupported.py:51:25: the SQL expression "amount > 0 AND note RLIKE 'x'", at character 21: RLIKE is not supported yet

// RUN: not coco-bigtest import pyspark/inputs/dataframe_unsupported.py --entry pandas 2>&1 | FileCheck %s --check-prefix=PANDAS
// PANDAS: coco-bigtest: error: pyspark/inputs/dataframe_unsupported.py:55:25: scale is a pandas_udf; Python UDFs of scalars (udf) are supported, pandas UDFs are not
// PANDAS-NEXT: return sales.select(scale("amount"))

// RUN: not coco-bigtest import pyspark/inputs/dataframe_unsupported.py --entry unknown_column 2>&1 | FileCheck %s --check-prefix=UNKNOWN-COLUMN
// UNKNOWN-COLUMN: coco-bigtest: error: pyspark/inputs/dataframe_unsupported.py:59:25: no column price here; the DataFrame's columns are store, day, amount, units
// UNKNOWN-COLUMN-NEXT: return sales.select(F.col("price") * 2)

// RUN: not coco-bigtest import pyspark/inputs/dataframe_unsupported.py --entry python_and 2>&1 | FileCheck %s --check-prefix=PYTHON-AND
// PYTHON-AND: coco-bigtest: error: pyspark/inputs/dataframe_unsupported.py:63:25: `and`/`or` of Columns: PySpark refuses a Column's truth; use & and | (with parentheses)
// PYTHON-AND-NEXT: return sales.filter((F.col("amount") > 0) and (F.col("units") > 1))

// Helpers are read at their call; one that calls itself is refused there.
// RUN: not coco-bigtest import pyspark/inputs/dataframe_unsupported.py --entry recursive_helper 2>&1 | FileCheck %s --check-prefix=RECURSIVE
// RECURSIVE: coco-bigtest: error: pyspark/inputs/dataframe_unsupported.py:67:12: again() calls itself: recursive helpers are not supported
// RECURSIVE-NEXT: return again(df.filter(F.col("amount") > 0))

// RUN: not coco-bigtest import pyspark/inputs/dataframe_unsupported.py --entry helper_without_frame 2>&1 | FileCheck %s --check-prefix=HELPER-ACTION
// HELPER-ACTION: coco-bigtest: error: pyspark/inputs/dataframe_unsupported.py:75:12: DataFrame.count() is not supported (see the supported API in docs/bigtest.md)
