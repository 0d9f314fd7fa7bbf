// The same job as host-python.mlir without a df.host attribute: the JVM,
// Spark's own language, is the default. String.split drops trailing empty
// fields ("cy," is ["cy"], so get[1] throws; "dee,5," is ["dee", "5"]) and
// Long.parseLong takes no spaces or underscores (" 70" and "1_0" throw).
// Four of five lines fail, and Spark would abort the job.
// RUN: not coco-bigtest run %s 2>&1 | FileCheck %s

// CHECK: coco-bigtest: error: @scores: 4 failures (Spark would abort the job):
// CHECK-NEXT: map#1 (@parse): " 70" is not an integer (scores record 0)
// CHECK-NEXT: map#1 (@parse): "1_0" is not an integer (scores record 1)
// CHECK-NEXT: map#1 (@parse): index 1 is past the end of a list of 1 (scores record 2)
// CHECK-NEXT: map#1 (@parse): index 1 is past the end of a list of 1 (scores record 4)

func.func @parse(%line: !df.str) -> (!df.str, i64) {
  %fields = df.split %line "," : !df.list<!df.str>
  %name = df.get %fields[0] : !df.list<!df.str> -> !df.str
  %score_text = df.get %fields[1] : !df.list<!df.str> -> !df.str
  %score = df.to_int %score_text
  return %name, %score : !df.str, i64
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
