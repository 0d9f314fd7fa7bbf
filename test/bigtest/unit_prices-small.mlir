// A small variant of examples/bigtest/unit_prices.mlir for CI (the full one
// takes minutes and is `REQUIRES: slow` in unit_prices-generate.mlir). It
// keeps what only unit_prices exercises: distinct, a left_outer join whose
// unmatched records all get the constant key "unknown" at group_by_key (so
// paths through that group need separate test cases), and records that
// leave distinct separately meeting again at the group.
// RUN: coco-opt %s --bigtest-jdu-paths | FileCheck %s --check-prefix=COUNT
// RUN: coco-bigtest generate %s -o %t --timeout-ms 30000 >/dev/null
// RUN: coco-bigtest coverage %s --data %t --timeout-ms 30000 | FileCheck %s --check-prefix=COVERAGE
// RUN: coco-bigtest mutate %s --data %t | FileCheck %s --check-prefix=MUTATION

// COUNT-COUNT-1: bigtest.jdu_path
// COVERAGE: covered:
// MUTATION: mutation score:

func.func @parse(%line: !df.str) -> (!df.str, i64) {
  %fields = df.split %line ";" : !df.list<!df.str>
  %sku = df.get %fields[0] : !df.list<!df.str> -> !df.str
  %total_text = df.get %fields[1] : !df.list<!df.str> -> !df.str
  %total = df.to_int %total_text
  return %sku, %total : !df.str, i64
}

func.func @category_or_unknown(%product: !df.str, %price: i64, %category: !df.option<!df.str>) -> (!df.str, i64) {
  %unknown = df.str_constant "unknown"
  %name = df.value_or %category, %unknown : !df.option<!df.str>, !df.str
  return %name, %price : !df.str, i64
}

func.func @unit_prices_small() {
  %sales = df.source "sales" inline ["ABC;100", "XYZ;30", "ABC;abc"] delimiter "\t" : !df.dataset<!df.str>
  %categories = df.source "categories" inline ["ABC,tools", "QRS,garden"] delimiter "," : !df.dataset<tuple<!df.str, !df.str>>
  %unique = df.distinct %sales : !df.dataset<!df.str>
  %prices = df.map %unique @parse : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, i64>>
  %joined = df.join left_outer %prices, %categories : !df.dataset<tuple<!df.str, i64>>, !df.dataset<tuple<!df.str, !df.str>> -> !df.dataset<tuple<!df.str, i64, !df.option<!df.str>>>
  %named = df.map %joined @category_or_unknown : !df.dataset<tuple<!df.str, i64, !df.option<!df.str>>> -> !df.dataset<tuple<!df.str, i64>>
  %grouped = df.group_by_key %named : !df.dataset<tuple<!df.str, i64>> -> !df.dataset<tuple<!df.str, !df.list<i64>>>
  df.sink "prices_by_category" %grouped : !df.dataset<tuple<!df.str, !df.list<i64>>>
  return
}
