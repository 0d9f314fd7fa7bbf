// Python's len() of a split (df.size): the number of pieces, exact up to
// MAX_SIZED_PIECES (12) and "more" past it, described on links that a later
// df.get of the same string's split pins (so "len > 2 but piece 2 is
// missing" is shown infeasible, not left to the solver's word equations).
// @request keeps the URL of a three-piece request ("GET /a HTTP/1.0") and
// marks anything else; @long passes lines of more than two words, whose
// third word @third reads: its failing get is infeasible. The PySpark check
// runs test/pyspark/jobs/split_len.py, the same job in PySpark, on Spark.
// RUN: coco-bigtest run %s | FileCheck %s --check-prefix=OUT
// RUN: coco-opt %s --bigtest-jdu-paths | FileCheck %s --check-prefix=PATHS
// RUN: coco-bigtest generate %s -o %t | FileCheck %s --check-prefix=GENERATE
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t/report.txt

// OUT: sink "urls" (4 records):
// OUT-NEXT: /a
// OUT-NEXT: invalid
// OUT-NEXT: invalid
// OUT-NEXT: invalid
// OUT: sink "third" (2 records):
// OUT-NEXT: HTTP/1.0
// OUT-NEXT: c

// PATHS: branches ["source#0", "map#1@request:cond_br#{{[0-9]+}}=true", "sink#4"]
// PATHS: branches ["source#0", "map#1@request:cond_br#{{[0-9]+}}=false", "sink#4"]
// PATHS: branches ["source#0", "filter#2=pass", "map#3@third:get#1=fail"]

// Two of the paths are infeasible: piece 1 of a three-piece split always
// exists, and so does piece 2 of a line of more than two words.
// GENERATE: lines 6 4 2 0
// GENERATE-SAME: 100.0%
// REPORT: path 0 [unsat]
// REPORT-NEXT: source#0
// REPORT-NEXT: map#1@request:cond_br#4=true
// REPORT-NEXT: map#1@request:get#5=fail
// REPORT: path 4 [unsat]
// REPORT-NEXT: source#0
// REPORT-NEXT: filter#2=pass
// REPORT-NEXT: map#3@third:get#1=fail

module attributes {df.host = "python"} {

func.func @request(%line: !df.str) -> !df.str {
  %parts = df.split %line " " : !df.list<!df.str>
  %n = df.size %parts : !df.list<!df.str>
  %three = arith.constant 3 : i64
  %is_request = arith.cmpi eq, %n, %three : i64
  cf.cond_br %is_request, ^url, ^other
^url:
  %url = df.get %parts[1] : !df.list<!df.str> -> !df.str
  cf.br ^done(%url : !df.str)
^other:
  %invalid = df.str_constant "invalid"
  cf.br ^done(%invalid : !df.str)
^done(%result: !df.str):
  return %result : !df.str
}

func.func @long(%line: !df.str) -> i1 {
  %words = df.split %line : !df.list<!df.str>
  %n = df.size %words : !df.list<!df.str>
  %two = arith.constant 2 : i64
  %long = arith.cmpi sgt, %n, %two : i64
  return %long : i1
}

func.func @third(%line: !df.str) -> !df.str {
  %words = df.split %line : !df.list<!df.str>
  %third = df.get %words[2] : !df.list<!df.str> -> !df.str
  return %third : !df.str
}

func.func @lines() {
  %lines = df.source "lines" inline ["GET /a HTTP/1.0", "GET /b", "", "a b c d e"] delimiter "\t" : !df.dataset<!df.str>
  %urls = df.map %lines @request : !df.dataset<!df.str> -> !df.dataset<!df.str>
  %long = df.filter %lines @long : !df.dataset<!df.str>
  %third = df.map %long @third : !df.dataset<!df.str> -> !df.dataset<!df.str>
  df.sink "urls" %urls : !df.dataset<!df.str>
  df.sink "third" %third : !df.dataset<!df.str>
  return
}
}
