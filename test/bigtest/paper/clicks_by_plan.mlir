// Clicks per subscription plan (the BigTest paper's join-then-fold style,
// written for issue 29): click lines "user|page|ms" and account lines
// "user,plan" are each split and parsed, joined on the user (inner: clicks
// of unknown users are dropped), slow clicks (ms >= 1000) are dropped, and
// the rest counted per plan. A fold over two matched clicks needs the
// accounts side of both joins to be records that keep them on the path:
// an account per user, with the plan the fold groups by.
// RUN: coco-bigtest generate %s -o %t | FileCheck %s --check-prefix=GENERATE
// RUN: coco-bigtest coverage %s --data %t | FileCheck %s --check-prefix=COVERAGE
// RUN: coco-bigtest mutate %s --data %t | FileCheck %s --check-prefix=MUTATION

// GENERATE: clicks_by_plan {{.*}} 0 {{.*}} 100.0%
// COVERAGE: 0 unknown
// COVERAGE: (100.0%)
// MUTATION: mutation score: {{9[0-9]|100}}.

module attributes {df.host = "jvm"} {
func.func @click(%line: !df.str) -> (!df.str, i64) {
  %fields = df.split %line "|" : !df.list<!df.str>
  %user = df.get %fields[0] : !df.list<!df.str> -> !df.str
  %ms_text = df.get %fields[2] : !df.list<!df.str> -> !df.str
  %ms = df.to_int %ms_text
  return %user, %ms : !df.str, i64
}

func.func @account(%line: !df.str) -> (!df.str, !df.str) {
  %fields = df.split %line "," : !df.list<!df.str>
  %user = df.get %fields[0] : !df.list<!df.str> -> !df.str
  %plan = df.get %fields[1] : !df.list<!df.str> -> !df.str
  return %user, %plan : !df.str, !df.str
}

func.func @fast(%user: !df.str, %ms: i64, %plan: !df.str) -> i1 {
  %limit = arith.constant 1000 : i64
  %fast = arith.cmpi slt, %ms, %limit : i64
  return %fast : i1
}

func.func @per_plan(%user: !df.str, %ms: i64, %plan: !df.str) -> (!df.str, i64) {
  %one = arith.constant 1 : i64
  return %plan, %one : !df.str, i64
}

func.func @add(%a: i64, %b: i64) -> i64 {
  %sum = arith.addi %a, %b : i64
  return %sum : i64
}

func.func @clicks_by_plan() {
  %click_lines = df.source "clicks" path "clicks.txt" delimiter "\t" : !df.dataset<!df.str>
  %account_lines = df.source "accounts" path "accounts.txt" delimiter "\t" : !df.dataset<!df.str>
  %clicks = df.map %click_lines @click : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, i64>>
  %accounts = df.map %account_lines @account : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, !df.str>>
  %joined = df.join inner %clicks, %accounts : !df.dataset<tuple<!df.str, i64>>, !df.dataset<tuple<!df.str, !df.str>> -> !df.dataset<tuple<!df.str, i64, !df.str>>
  %quick = df.filter %joined @fast : !df.dataset<tuple<!df.str, i64, !df.str>>
  %plans = df.map %quick @per_plan : !df.dataset<tuple<!df.str, i64, !df.str>> -> !df.dataset<tuple<!df.str, i64>>
  %counts = df.reduce_by_key %plans @add : !df.dataset<tuple<!df.str, i64>>
  df.sink "clicks_per_plan" %counts : !df.dataset<tuple<!df.str, i64>>
  return
}
}
