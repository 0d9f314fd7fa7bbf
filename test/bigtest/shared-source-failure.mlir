// One source read by two operators, one of which can fail the job (the
// second field of a line that has one): a record solved for a path of the
// other operator (@short's filter) must also get through @second_field,
// or the job aborts before the record is seen. The generator solves such
// a record with the constraints of a path that gets through the failing
// operator, so every feasible path is covered (3 of 4 were before).
// RUN: coco-bigtest generate %s -o %t | FileCheck %s
// CHECK: lines 4 4 0 0
// CHECK-SAME: 100.0%
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t/report.txt
// REPORT: path 0 [sat]
// REPORT-NEXT: source#0
// REPORT-NEXT: map#1@second_field:get#1=fail

module attributes {df.host = "python"} {

func.func @second_field(%line: !df.str) -> !df.str {
  %fields = df.split %line "," : !df.list<!df.str>
  %second = df.get %fields[1] : !df.list<!df.str> -> !df.str
  return %second : !df.str
}

func.func @short(%line: !df.str) -> i1 {
  %n = df.length %line
  %five = arith.constant 5 : i64
  %short = arith.cmpi slt, %n, %five : i64
  return %short : i1
}

func.func @lines() {
  %lines = df.source "lines" inline ["a,b", "long,line"] delimiter "\t" : !df.dataset<!df.str>
  %second = df.map %lines @second_field : !df.dataset<!df.str> -> !df.dataset<!df.str>
  df.sink "fields" %second : !df.dataset<!df.str>
  %short = df.filter %lines @short : !df.dataset<!df.str>
  df.sink "short" %short : !df.dataset<!df.str>
  return
}

}
