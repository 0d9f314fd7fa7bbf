// Revenue per product from order lines "order;name:qty:price,name:qty:price"
// (the BigTest paper's split-and-parse style, written for issue 29): the
// items of a line are a flat_map, each item is split again and two of its
// fields parsed, cheap lines are dropped and the rest summed per product.
// A path through the second item of a line leaves the first one free; the
// generator must still give it a value that keeps the job on the path (a
// well-formed item), not an empty one that fails the job: it copies the
// second item's text into the first and freshens the copy's words, so a
// fold over two second items is covered too (all 20 paths).
// RUN: coco-bigtest generate %s -o %t | FileCheck %s --check-prefix=GENERATE
// RUN: coco-bigtest coverage %s --data %t | FileCheck %s --check-prefix=COVERAGE
// RUN: coco-bigtest mutate %s --data %t | FileCheck %s --check-prefix=MUTATION

// GENERATE: orders 20 20 0 0 {{.*}} 100.0%
// COVERAGE: 0 unknown
// COVERAGE: covered: 20 of 20 paths not shown infeasible (100.0%)
// MUTATION: mutation score: {{9[0-9]|100}}.

module attributes {df.host = "jvm"} {
func.func @items(%line: !df.str) -> !df.list<!df.str> {
  %parts = df.split %line ";" : !df.list<!df.str>
  %items = df.get %parts[1] : !df.list<!df.str> -> !df.str
  %list = df.split %items "," : !df.list<!df.str>
  return %list : !df.list<!df.str>
}

func.func @line_total(%item: !df.str) -> (!df.str, i64) {
  %fields = df.split %item ":" : !df.list<!df.str>
  %name = df.get %fields[0] : !df.list<!df.str> -> !df.str
  %qty_text = df.get %fields[1] : !df.list<!df.str> -> !df.str
  %price_text = df.get %fields[2] : !df.list<!df.str> -> !df.str
  %qty = df.to_int %qty_text
  %price = df.to_int %price_text
  %total = arith.muli %qty, %price : i64
  return %name, %total : !df.str, i64
}

func.func @worth_it(%name: !df.str, %total: i64) -> i1 {
  %floor = arith.constant 100 : i64
  %keep = arith.cmpi sge, %total, %floor : i64
  return %keep : i1
}

func.func @add(%a: i64, %b: i64) -> i64 {
  %sum = arith.addi %a, %b : i64
  return %sum : i64
}

func.func @orders() {
  %lines = df.source "orders" path "orders.txt" delimiter "\t" : !df.dataset<!df.str>
  %items = df.flat_map %lines @items : !df.dataset<!df.str> -> !df.dataset<!df.str>
  %totals = df.map %items @line_total : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, i64>>
  %kept = df.filter %totals @worth_it : !df.dataset<tuple<!df.str, i64>>
  %revenue = df.reduce_by_key %kept @add : !df.dataset<tuple<!df.str, i64>>
  df.sink "revenue" %revenue path "revenue.csv" : !df.dataset<tuple<!df.str, i64>>
  return
}
}
