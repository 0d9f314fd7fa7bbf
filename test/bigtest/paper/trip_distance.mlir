// Longest trip per city above a floor (the BigTest paper's parse-and-fold
// style, written for issue 29): trip lines "id,city,km" are parsed with
// to_int, folded per city with a maximum written as a compare and select,
// and cities whose longest trip is under 50 km are dropped. The fold over
// two parsed records takes either side of the compare.
// RUN: coco-bigtest generate %s -o %t | FileCheck %s --check-prefix=GENERATE
// RUN: coco-bigtest coverage %s --data %t | FileCheck %s --check-prefix=COVERAGE
// RUN: coco-bigtest mutate %s --data %t | FileCheck %s --check-prefix=MUTATION

// GENERATE: trips {{.*}} 0 {{.*}} 100.0%
// COVERAGE: 0 unknown
// COVERAGE: (100.0%)
// MUTATION: mutation score: {{9[0-9]|100}}.

module attributes {df.host = "jvm"} {
func.func @parse(%line: !df.str) -> (!df.str, i64) {
  %fields = df.split %line "," : !df.list<!df.str>
  %city = df.get %fields[1] : !df.list<!df.str> -> !df.str
  %km_text = df.get %fields[2] : !df.list<!df.str> -> !df.str
  %km = df.to_int %km_text
  return %city, %km : !df.str, i64
}

func.func @longer(%a: i64, %b: i64) -> i64 {
  %first = arith.cmpi sge, %a, %b : i64
  %longest = arith.select %first, %a, %b : i64
  return %longest : i64
}

func.func @long_enough(%city: !df.str, %km: i64) -> i1 {
  %floor = arith.constant 50 : i64
  %keep = arith.cmpi sge, %km, %floor : i64
  return %keep : i1
}

func.func @trips() {
  %lines = df.source "trips" path "trips.csv" delimiter "\t" : !df.dataset<!df.str>
  %parsed = df.map %lines @parse : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, i64>>
  %longest = df.reduce_by_key %parsed @longer : !df.dataset<tuple<!df.str, i64>>
  %kept = df.filter %longest @long_enough : !df.dataset<tuple<!df.str, i64>>
  df.sink "longest_trips" %kept path "longest_trips.csv" : !df.dataset<tuple<!df.str, i64>>
  return
}
}
