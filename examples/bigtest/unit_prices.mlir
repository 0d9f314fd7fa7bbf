// Average unit price per product category, with a left outer join to a
// (possibly incomplete) category table: unknown products go to "unknown".
// Exercises substring, to_int on a field that may not be a number, integer
// division by a quantity that may be zero, an scf.if branch, an outer join
// with !df.option, union of two sources, distinct and group_by_key.

// Written as a Scala/Java Spark job: the df ops have JVM semantics
// (String.split drops trailing empty fields; docs/bigtest.md).
module attributes {df.host = "jvm"} {

func.func @parse(%line: !df.str) -> (!df.str, i64) {
  %fields = df.split %line ";" : !df.list<!df.str>
  %sku = df.get %fields[0] : !df.list<!df.str> -> !df.str
  %total_text = df.get %fields[1] : !df.list<!df.str> -> !df.str
  %quantity_text = df.get %fields[2] : !df.list<!df.str> -> !df.str
  %total = df.to_int %total_text
  %quantity = df.to_int %quantity_text
  %unit = arith.divsi %total, %quantity : i64
  %zero = arith.constant 0 : i64
  %c0 = arith.constant 0 : i64
  %c3 = arith.constant 3 : i64
  %product = df.substr %sku, %c0, %c3
  %negative = arith.cmpi slt, %unit, %zero : i64
  %price = scf.if %negative -> (i64) {
    scf.yield %zero : i64
  } else {
    scf.yield %unit : i64
  }
  return %product, %price : !df.str, i64
}

func.func @category_or_unknown(%product: !df.str, %price: i64, %category: !df.option<!df.str>) -> (!df.str, i64) {
  %unknown = df.str_constant "unknown"
  %name = df.value_or %category, %unknown : !df.option<!df.str>, !df.str
  return %name, %price : !df.str, i64
}

func.func @unit_prices() {
  %store = df.source "store_sales" inline ["ABC-1;100;4", "XYZ-9;30;0", "ABC-2;abc;1"] delimiter "\t" : !df.dataset<!df.str>
  %web = df.source "web_sales" inline ["QRS-5;50;5"] delimiter "\t" : !df.dataset<!df.str>
  %categories = df.source "categories" inline ["ABC,tools", "QRS,garden"] delimiter "," : !df.dataset<tuple<!df.str, !df.str>>
  %all = df.union %store, %web : !df.dataset<!df.str>
  %unique = df.distinct %all : !df.dataset<!df.str>
  %prices = df.map %unique @parse : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, i64>>
  %joined = df.join left_outer %prices, %categories : !df.dataset<tuple<!df.str, i64>>, !df.dataset<tuple<!df.str, !df.str>> -> !df.dataset<tuple<!df.str, i64, !df.option<!df.str>>>
  %named = df.map %joined @category_or_unknown : !df.dataset<tuple<!df.str, i64, !df.option<!df.str>>> -> !df.dataset<tuple<!df.str, i64>>
  %grouped = df.group_by_key %named : !df.dataset<tuple<!df.str, i64>> -> !df.dataset<tuple<!df.str, !df.list<i64>>>
  df.sink "prices_by_category" %grouped : !df.dataset<tuple<!df.str, !df.list<i64>>>
  return
}
}
