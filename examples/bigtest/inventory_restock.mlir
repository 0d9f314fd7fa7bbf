// Restock orders for a warehouse. Stock levels "sku,on_hand,daily_demand" are
// joined left_outer with open purchase orders, whose quantity is an option
// read with df.value_or. An scf.for with constant bounds simulates the next 3
// days of a demand that grows by one unit a day; SKUs projected under the
// safety level (a cmpi threshold) are ordered, with an scf.if that doubles
// the order when a stockout is projected.

// Written as a Scala/Java Spark job: the df ops have JVM semantics
// (String.split drops trailing empty fields; docs/bigtest.md).
module attributes {df.host = "jvm"} {

func.func @project(%sku: !df.str, %on_hand: i64, %demand: i64, %incoming: !df.option<i64>) -> (!df.str, i64) {
  %zero = arith.constant 0 : i64
  %arriving = df.value_or %incoming, %zero : !df.option<i64>, i64
  %start = arith.addi %on_hand, %arriving : i64
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c3 = arith.constant 3 : i64
  %projected = scf.for %day = %c0 to %c3 step %c1 iter_args(%stock = %start) -> (i64) : i64 {
    %sold = arith.addi %demand, %day : i64
    %left = arith.subi %stock, %sold : i64
    scf.yield %left : i64
  }
  return %sku, %projected : !df.str, i64
}

func.func @below_safety(%sku: !df.str, %projected: i64) -> i1 {
  %safety = arith.constant 10 : i64
  %low = arith.cmpi slt, %projected, %safety : i64
  return %low : i1
}

func.func @order(%sku: !df.str, %projected: i64) -> (!df.str, i64) {
  %target = arith.constant 50 : i64
  %shortfall = arith.subi %target, %projected : i64
  %zero = arith.constant 0 : i64
  %stockout = arith.cmpi slt, %projected, %zero : i64
  %quantity = scf.if %stockout -> (i64) {
    %two = arith.constant 2 : i64
    %rush = arith.muli %shortfall, %two : i64
    scf.yield %rush : i64
  } else {
    scf.yield %shortfall : i64
  }
  return %sku, %quantity : !df.str, i64
}

func.func @inventory_restock() {
  %stock = df.source "stock" path "data/stock.csv" delimiter "," : !df.dataset<tuple<!df.str, i64, i64>>
  %orders = df.source "purchase_orders" path "data/purchase_orders.csv" delimiter "," : !df.dataset<tuple<!df.str, i64>>
  %joined = df.join left_outer %stock, %orders : !df.dataset<tuple<!df.str, i64, i64>>, !df.dataset<tuple<!df.str, i64>> -> !df.dataset<tuple<!df.str, i64, i64, !df.option<i64>>>
  %projected = df.map %joined @project : !df.dataset<tuple<!df.str, i64, i64, !df.option<i64>>> -> !df.dataset<tuple<!df.str, i64>>
  %low = df.filter %projected @below_safety : !df.dataset<tuple<!df.str, i64>>
  %restock = df.map %low @order : !df.dataset<tuple<!df.str, i64>> -> !df.dataset<tuple<!df.str, i64>>
  df.sink "restock_orders" %restock path "restock.csv" : !df.dataset<tuple<!df.str, i64>>
  return
}
}
