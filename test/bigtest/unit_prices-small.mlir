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

// distinct: unique or a duplicate (2 kinds); @parse fails 3 ways on each
// (df.get #0 or #1 past the end, to_int of a non-number: 6 paths; piece 0 is
// missing on the JVM, the program's host, for a line of ";" alone, as
// String.split drops trailing empty pieces); a category without sales is
// right-only, dropped by the left_outer join (1); a parsed line finds its
// category or not (4 kinds), alone at group_by_key (4) or grouped with a
// second record of its kind (4 x 4 = 16). 6 + 1 + 4 + 16 = 27.
// COUNT-COUNT-27: bigtest.jdu_path
// COUNT-NOT: bigtest.jdu_path

// Unmatched sales all group under "unknown", so the data comes as several
// test cases.
// COVERAGE: @unit_prices_small: 27 JDU paths at k=2 (27 feasible, 0 infeasible, 0 unknown)
// COVERAGE: covered: 27 of 27 paths not shown infeasible (100.0%)

// MUTATION: @unit_prices_small: 7 mutants, 7 killed
// MUTATION: mutation score: 100.0%

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
