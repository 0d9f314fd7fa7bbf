// Revenue per country: orders "order,customer,amount" are raw text lines
// parsed with split and to_int (a parse that can fail), orders without a
// positive amount are dropped, the rest joined (inner) with customers on the
// customer id and summed per country.

// Written as a Scala/Java Spark job: the df ops have JVM semantics
// (String.split drops trailing empty fields; docs/bigtest.md).
module attributes {df.host = "jvm"} {

func.func @parse_order(%line: !df.str) -> (i64, i64) {
  %fields = df.split %line "," : !df.list<!df.str>
  %customer_text = df.get %fields[1] : !df.list<!df.str> -> !df.str
  %amount_text = df.get %fields[2] : !df.list<!df.str> -> !df.str
  %customer = df.to_int %customer_text
  %amount = df.to_int %amount_text
  return %customer, %amount : i64, i64
}

func.func @positive(%customer: i64, %amount: i64) -> i1 {
  %zero = arith.constant 0 : i64
  %ok = arith.cmpi sgt, %amount, %zero : i64
  return %ok : i1
}

func.func @by_country(%customer: i64, %amount: i64, %country: !df.str) -> (!df.str, i64) {
  return %country, %amount : !df.str, i64
}

func.func @add(%a: i64, %b: i64) -> i64 {
  %sum = arith.addi %a, %b : i64
  return %sum : i64
}

func.func @sales_by_country() {
  %orders = df.source "orders" path "data/orders.txt" delimiter "\t" : !df.dataset<!df.str>
  %customers = df.source "customers" path "data/customers.csv" delimiter "," : !df.dataset<tuple<i64, !df.str>>
  %parsed = df.map %orders @parse_order : !df.dataset<!df.str> -> !df.dataset<tuple<i64, i64>>
  %valid = df.filter %parsed @positive : !df.dataset<tuple<i64, i64>>
  %joined = df.join inner %valid, %customers : !df.dataset<tuple<i64, i64>>, !df.dataset<tuple<i64, !df.str>> -> !df.dataset<tuple<i64, i64, !df.str>>
  %pairs = df.map %joined @by_country : !df.dataset<tuple<i64, i64, !df.str>> -> !df.dataset<tuple<!df.str, i64>>
  %totals = df.reduce_by_key %pairs @add : !df.dataset<tuple<!df.str, i64>>
  df.sink "revenue_by_country" %totals path "revenue.csv" : !df.dataset<tuple<!df.str, i64>>
  return
}
}
