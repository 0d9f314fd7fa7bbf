// Deep code (issue 51): a UDF concatenating 70 fields, 60 chained
// operators and 60 nested ifs nest deeper than serde_json's default 128
// levels and are read; an expression of 1,500 terms nests deeper than
// the nesting limit (COCO_MAX_NESTING, 1,000) and is an error at its
// place, not a RecursionError traceback from the parser.

// RUN: coco-bigtest import pyspark/inputs/reader-deep.py | FileCheck %s
// CHECK: func.func @concat70(%arg0: !df.str) -> (!df.str) {
// CHECK: func.func @depth(%arg0: !df.str) -> (i64) {
// CHECK: func.func @filter_140(%arg0: !df.str) -> (i1) {
// CHECK: func.func @deep() {
// CHECK: df.sink "deep_2"

// RUN: not coco-bigtest import pyspark/inputs/reader-long-expression.py 2>&1 | FileCheck %s --check-prefix=LONG
// LONG: pyspark/inputs/reader-long-expression.py:2:32: the code nests more than 1000 levels deep (set COCO_MAX_NESTING to change the limit)

// A long line is quoted around the caret only, cut with `...` on both sides
// (a generated job's one-line chain once filled the terminal with 400 KB).
// RUN: not coco-bigtest import pyspark/inputs/reader-long-line.py 2>&1 | FileCheck %s --check-prefix=WIDE
// WIDE: error: pyspark/inputs/reader-long-line.py:5:202: an operation on a str and an int
// WIDE-NEXT: {{^}}...p(lambda x: x).map(lambda x: x).map(lambda x: x).map(lambda x: x).map(lambda x: x + 1).map(lambda x: x).map(lambda x: x).map(lambda x: x).map(lambda x: x).map(l...{{$}}
// WIDE-NEXT: {{^}}                                                                                   ^{{$}}
