// JDU paths of a full_outer join at k=2: stock levels "item,units" joined
// with reorders "item,units", both sides kept when their key is alone.
// @balance reads each optional side (df.is_present) and takes one of its
// scf.if sides: a matched record has both (then: units - ordered), a
// left-only record has no order (else of the second test), a right-only one
// no stock (else of the first). Three join classes, each with the one
// feasible side of @balance: 3 paths, all satisfiable; the generated data
// must follow every one (COVERAGE), and the interpreter keeps the records
// of both unmatched sides with the other side absent (OUT).
// RUN: coco-opt %s --bigtest-jdu-paths | FileCheck %s
// RUN: coco-opt %s --bigtest-jdu-paths | FileCheck %s --check-prefix=COUNT
// RUN: coco-bigtest generate %s -o %t >/dev/null
// RUN: coco-bigtest coverage %s --data %t | FileCheck %s --check-prefix=COVERAGE
// RUN: coco-bigtest run %s | FileCheck %s --check-prefix=OUT

// CHECK: branches ["join#2=both{source#0 | source#1}", "map#3@balance:if#2=then", "map#3@balance:if#5=then", "sink#4"]
// CHECK: branches ["source#0", "join#2=left-only", "map#3@balance:if#2=then", "map#3@balance:if#5=else", "sink#4"]
// CHECK: branches ["source#1", "join#2=right-only", "map#3@balance:if#2=else", "sink#4"]

// COUNT-COUNT-3: bigtest.jdu_path
// COUNT-NOT: bigtest.jdu_path

// COVERAGE: covered: 3 of 3 paths not shown infeasible (100.0%)

// OUT: sink "balances" (3 records):
// OUT-NEXT: bolt,-2
// OUT-NEXT: nut,5
// OUT-NEXT: washer,-4

module attributes {df.host = "python"} {

func.func @balance(%item: !df.str, %units: !df.option<i64>, %ordered: !df.option<i64>) -> (!df.str, i64) {
  %zero = arith.constant 0 : i64
  %stocked = df.is_present %units : !df.option<i64>
  %balance = scf.if %stocked -> (i64) {
    %u = df.value_or %units, %zero : !df.option<i64>, i64
    %reordered = df.is_present %ordered : !df.option<i64>
    %left = scf.if %reordered -> (i64) {
      %o = df.value_or %ordered, %zero : !df.option<i64>, i64
      %d = arith.subi %u, %o : i64
      scf.yield %d : i64
    } else {
      scf.yield %u : i64
    }
    scf.yield %left : i64
  } else {
    %o = df.value_or %ordered, %zero : !df.option<i64>, i64
    %d = arith.subi %zero, %o : i64
    scf.yield %d : i64
  }
  return %item, %balance : !df.str, i64
}

func.func @stock_balance() {
  %stock = df.source "stock" inline ["bolt,3", "nut,5"] delimiter "," : !df.dataset<tuple<!df.str, i64>>
  %orders = df.source "orders" inline ["bolt,5", "washer,4"] delimiter "," : !df.dataset<tuple<!df.str, i64>>
  %joined = df.join full_outer %stock, %orders : !df.dataset<tuple<!df.str, i64>>, !df.dataset<tuple<!df.str, i64>> -> !df.dataset<tuple<!df.str, !df.option<i64>, !df.option<i64>>>
  %balances = df.map %joined @balance : !df.dataset<tuple<!df.str, !df.option<i64>, !df.option<i64>>> -> !df.dataset<tuple<!df.str, i64>>
  df.sink "balances" %balances : !df.dataset<tuple<!df.str, i64>>
  return
}
}
