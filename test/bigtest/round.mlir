// df.round: Spark SQL's round (HALF_UP) and bround (HALF_EVEN) of a
// double's shortest decimal text, so 2.675 rounds to 2.68 (Python's round
// gives 2.67); and a source's float32 fields, read as 32-bit floats (as a
// DataFrame's FLOAT column is), generated as quarters a float holds exactly.
// RUN: coco-bigtest run %s | FileCheck %s --check-prefix=OUT
// RUN: coco-bigtest generate %s -o %t | FileCheck %s --check-prefix=GENERATE
// RUN: FileCheck %s --check-prefix=DATA --input-file=%t/prices.txt

// Each price, round(price, 1), bround(price, 1), round(2.675, 2) and
// bround(2.5, 0).
// OUT: sink "rounded" (4 records):
// OUT-NEXT: 0.1,0.1,0.1,2.68,2.0
// OUT-NEXT: 2.25,2.3,2.2,2.68,2.0
// OUT-NEXT: 2.5,2.5,2.5,2.68,2.0
// OUT-NEXT: 2.675,2.7,2.7,2.68,2.0
// OUT: sink "kept" (4 records):
// OUT-NEXT: 0.1,0.10000000149011612
// OUT: 2.675,2.674999952316284

// Read as a 32-bit float, 0.1 is 0.10000000149011612; the filter keeps
// prices above 0.1 as Spark compares them, and the solver picks quarters.
// GENERATE: main 3 3 0 0
// GENERATE-SAME: 100.0%
// DATA: {{^-?[0-9]+\.[0-9]+}}	{{-?[0-9]+\.(00|25|50|75)$}}
// DATA-NOT: {{	-?[0-9]+\.([0-9][1-46-9]|[1-46-9]0)$}}

module attributes {df.host = "python"} {

func.func @round(%price: f64, %f: f64) -> (f64, f64, f64, f64, f64) {
  %up = df.round %price scale 1
  %even = df.round %price scale 1 half_even
  %c = arith.constant 2.675 : f64
  %h = df.round %c scale 2
  %e = arith.constant 2.5 : f64
  %b = df.round %e scale 0 half_even
  return %price, %up, %even, %h, %b : f64, f64, f64, f64, f64
}

func.func @above(%price: f64, %f: f64) -> i1 {
  %tenth = arith.constant 0.1 : f64
  %above = arith.cmpf ogt, %f, %tenth : f64
  return %above : i1
}

func.func @main() {
  %prices = df.source "prices" inline ["0.1\t0.1", "2.25\t2.25", "2.5\t2.5", "2.675\t2.675"] delimiter "\t" float32 [1] : !df.dataset<tuple<f64, f64>>
  %kept = df.filter %prices @above : !df.dataset<tuple<f64, f64>>
  %rounded = df.map %prices @round : !df.dataset<tuple<f64, f64>> -> !df.dataset<tuple<f64, f64, f64, f64, f64>>
  df.sink "rounded" %rounded : !df.dataset<tuple<f64, f64, f64, f64, f64>>
  df.sink "kept" %kept : !df.dataset<tuple<f64, f64>>
  return
}

}
