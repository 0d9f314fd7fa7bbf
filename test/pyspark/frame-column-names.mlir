// Spark's column-name rules in DataFrame jobs (issue 51): what the front
// end cannot model is refused with Spark's reason, never read another way.
// What it models (case-insensitive names, backticked dots, issue 52's
// select then groupBy and select("*").where(df.col)) runs on Spark in
// test/pyspark/jobs/frame_column_names.py.

// A dot outside backticks reaches into a struct column.
// RUN: not coco-bigtest import pyspark/inputs/frame-column-refusals.py --entry dotted 2>&1 | FileCheck %s --check-prefix=DOTTED
// DOTTED: frame-column-refusals.py:12:26: Spark reads the column name "a.b" as field b of struct column a (a dot outside backticks reaches into a struct), and struct columns are not supported; a column whose name holds a dot is written in backticks: "`a.b`"

// Two columns differing only in case: any reference to them is ambiguous.
// RUN: not coco-bigtest import pyspark/inputs/frame-column-refusals.py --entry cased 2>&1 | FileCheck %s --check-prefix=CASED
// CASED: frame-column-refusals.py:5:16: columns "name" and "NAME" differ only in case: Spark resolves column names case-insensitively

// DDL strings pyspark 3.5's createDataFrame rejects (a ParseException):
// a no-break space as a separator, a NUL in a name, `"""` as a name.
// RUN: not coco-bigtest import pyspark/inputs/frame-column-refusals.py --entry nbsp 2>&1 | FileCheck %s --check-prefix=NBSP
// NBSP: frame-column-refusals.py:6:15: Spark rejects the schema "name\u{a0}STRING" (a ParseException): the character '\u{a0}' (U+00A0) outside backticks
// RUN: not coco-bigtest import pyspark/inputs/frame-column-refusals.py --entry nul 2>&1 | FileCheck %s --check-prefix=NUL
// NUL: frame-column-refusals.py:7:14: Spark rejects the schema "a\0b STRING" (a ParseException): the character '\0' (U+0000) outside backticks
// RUN: not coco-bigtest import pyspark/inputs/frame-column-refusals.py --entry quotes 2>&1 | FileCheck %s --check-prefix=QUOTES
// QUOTES: frame-column-refusals.py:8:17: Spark rejects the schema "\"\"\" STRING" (a ParseException)
