// Orders "customer,item,quantity": a UDF that splits the same line twice,
// as real code often does (one helper per field). coco-bigtest runs cse
// before the analysis, so the two splits are one symbolic value: the 5
// paths (JVM semantics) solve in about 0.5 s (bigtest-jdu-paths and
// bigtest-solve). Without it the solver has to prove two decompositions of
// the line equal: 2.9 s at --timeout-ms 10000, 2 of 5 paths unknown at 1000.
// RUN: coco-bigtest generate %s -o %t --timeout-ms 1000 | FileCheck %s
// RUN: coco-bigtest coverage %s --data %t --timeout-ms 1000 | FileCheck %s --check-prefix=COVERAGE

// CHECK: orders 5 5 0 0 9 4 100.0%
// COVERAGE: covered: 5 of 5 paths not shown infeasible (100.0%)
func.func @parse(%line: !df.str) -> (!df.str, i64) {
  %f1 = df.split %line "," : !df.list<!df.str>
  %customer = df.get %f1[0] : !df.list<!df.str> -> !df.str
  %f2 = df.split %line "," : !df.list<!df.str>
  %quantity_text = df.get %f2[2] : !df.list<!df.str> -> !df.str
  %quantity = df.to_int %quantity_text
  return %customer, %quantity : !df.str, i64
}

func.func @large(%customer: !df.str, %quantity: i64) -> i1 {
  %ten = arith.constant 10 : i64
  %large = arith.cmpi sgt, %quantity, %ten : i64
  return %large : i1
}

func.func @orders() {
  %lines = df.source "orders" path "orders.txt" delimiter "\t" : !df.dataset<!df.str>
  %parsed = df.map %lines @parse : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, i64>>
  %large = df.filter %parsed @large : !df.dataset<tuple<!df.str, i64>>
  df.sink "large" %large path "large.csv" : !df.dataset<tuple<!df.str, i64>>
  return
}
