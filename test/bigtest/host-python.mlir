// A PySpark job (df.host = "python"): str.split keeps trailing empty
// fields, int() takes surrounding spaces and underscores between digits.
// On the inline data, Python and the JVM disagree on four of five lines:
// "ann, 70" is 70 in Python (the JVM throws on " 70"), "bob,1_0" is 10 (the
// JVM throws), "cy," has an empty second field in Python (the JVM drops it,
// so get[1] throws there), "dee,5," is 5 in both. The initial is name[0:1],
// which is "" for an empty name in Python (substring throws on the JVM).
// RUN: not coco-bigtest run %s 2>&1 | FileCheck %s --check-prefix=OUT
// JDU paths: @parse fails at get #2 (a line without ",") or at to_int #3;
// the filter drops or keeps: 4 paths. Piece 0 of a Python split always
// exists, so get #1 never fails (on the JVM it does, for "," alone), and
// slicing never fails, so df.substr has no failing path.
// RUN: coco-opt %s --bigtest-jdu-paths | FileCheck %s --check-prefix=PATHS
// RUN: coco-bigtest generate %s -o %t --timeout-ms 30000 | FileCheck %s --check-prefix=GENERATE

// OUT: coco-bigtest: error: @scores: 2 failures (Spark would abort the job):
// OUT-NEXT: map#1 (@parse): "" is not an integer (scores record 2)
// OUT-NEXT: map#1 (@parse): index 1 is past the end of a list of 1 (scores record 4)

// PATHS-NOT: {{get#1=fail|substr#[0-9]+=fail}}
// PATHS: branches ["source#0", "map#1@parse:to_int#3=fail"]
// PATHS: branches ["source#0", "map#1@parse:get#2=fail"]
// PATHS: branches ["source#0", "filter#2=drop"]
// PATHS: branches ["source#0", "filter#2=pass", "sink#3"]
// PATHS-NOT: {{bigtest.jdu_path|substr#[0-9]+=fail}}

// GENERATE: scores 4 4 0 0 8 3 100.0%

module attributes {df.host = "python"} {

func.func @parse(%line: !df.str) -> (!df.str, i64) {
  %fields = df.split %line "," : !df.list<!df.str>
  %name = df.get %fields[0] : !df.list<!df.str> -> !df.str
  %score_text = df.get %fields[1] : !df.list<!df.str> -> !df.str
  %score = df.to_int %score_text
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %initial = df.substr %name, %c0, %c1
  return %initial, %score : !df.str, i64
}

func.func @passed(%name: !df.str, %score: i64) -> i1 {
  %pass_mark = arith.constant 50 : i64
  %passed = arith.cmpi sge, %score, %pass_mark : i64
  return %passed : i1
}

func.func @scores() {
  %lines = df.source "scores" inline ["ann, 70", "bob,1_0", "cy,", "dee,5,", "eve"] delimiter "\t" : !df.dataset<!df.str>
  %parsed = df.map %lines @parse : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, i64>>
  %passed = df.filter %parsed @passed : !df.dataset<tuple<!df.str, i64>>
  df.sink "passed" %passed : !df.dataset<tuple<!df.str, i64>>
  return
}
}
