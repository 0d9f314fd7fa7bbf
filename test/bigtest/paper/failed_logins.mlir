// Failed logins per department (the BigTest paper's log-and-join style,
// written for issue 29): log lines "user,epoch,status" are parsed (the
// status code with to_int), failures (status >= 400) are joined with the
// staff list "user,department" and counted per department. Paths through
// the join and then the fold of two records need both sides of the join
// and two log lines whose users share a department.
// RUN: coco-bigtest generate %s -o %t | FileCheck %s --check-prefix=GENERATE
// RUN: coco-bigtest coverage %s --data %t | FileCheck %s --check-prefix=COVERAGE
// RUN: coco-bigtest mutate %s --data %t | FileCheck %s --check-prefix=MUTATION

// GENERATE: logins {{.*}} 0 {{.*}} 100.0%
// COVERAGE: 0 unknown
// COVERAGE: (100.0%)
// MUTATION: mutation score: {{9[0-9]|100}}.

module attributes {df.host = "jvm"} {
func.func @parse(%line: !df.str) -> (!df.str, i64) {
  %fields = df.split %line "," : !df.list<!df.str>
  %user = df.get %fields[0] : !df.list<!df.str> -> !df.str
  %status_text = df.get %fields[2] : !df.list<!df.str> -> !df.str
  %status = df.to_int %status_text
  return %user, %status : !df.str, i64
}

func.func @failed(%user: !df.str, %status: i64) -> i1 {
  %error = arith.constant 400 : i64
  %bad = arith.cmpi sge, %status, %error : i64
  return %bad : i1
}

func.func @by_department(%user: !df.str, %status: i64, %department: !df.str) -> (!df.str, i64) {
  %one = arith.constant 1 : i64
  return %department, %one : !df.str, i64
}

func.func @add(%a: i64, %b: i64) -> i64 {
  %sum = arith.addi %a, %b : i64
  return %sum : i64
}

func.func @logins() {
  %lines = df.source "logins" path "logins.log" delimiter "\t" : !df.dataset<!df.str>
  %staff = df.source "staff" path "staff.csv" delimiter "," : !df.dataset<tuple<!df.str, !df.str>>
  %parsed = df.map %lines @parse : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, i64>>
  %failures = df.filter %parsed @failed : !df.dataset<tuple<!df.str, i64>>
  %joined = df.join inner %failures, %staff : !df.dataset<tuple<!df.str, i64>>, !df.dataset<tuple<!df.str, !df.str>> -> !df.dataset<tuple<!df.str, i64, !df.str>>
  %pairs = df.map %joined @by_department : !df.dataset<tuple<!df.str, i64, !df.str>> -> !df.dataset<tuple<!df.str, i64>>
  %counts = df.reduce_by_key %pairs @add : !df.dataset<tuple<!df.str, i64>>
  df.sink "failed_logins" %counts path "failed_logins.csv" : !df.dataset<tuple<!df.str, i64>>
  return
}
}
