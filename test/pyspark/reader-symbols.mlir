// Symbols (issue 51): a UDF's generated name never repeats the program's
// (`def map_2` beside the lambda of line 2), and a non-ASCII name gives
// valid IR: the program's symbol quoted, a UDF's made a plain symbol.

// RUN: coco-bigtest import pyspark/inputs/reader-symbols-map2.py | coco-opt | FileCheck %s
// CHECK: func.func @map_2_1(%arg0: !df.str) -> !df.str {
// CHECK: func.func @map_2_2(%arg0: !df.str) -> !df.str {
// CHECK: func.func @map_2() {
// CHECK: df.map %{{.*}} @map_2_1
// CHECK: df.map %{{.*}} @map_2_2

// RUN: coco-bigtest import pyspark/inputs/reader-symbols-unicode.py | coco-opt | FileCheck %s --check-prefix=UNICODE
// UNICODE: func.func @gr__e(%arg0: !df.str) -> i64 {
// UNICODE: func.func @"\E5\87\A6\E7\90\86"() {
// UNICODE: df.map %{{.*}} @gr__e
