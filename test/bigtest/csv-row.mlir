// Python's csv.reader row of a line (df.csv_row). The empty line has no
// field (the row is []), so a flat_map over the row has an `empty` path,
// and @third's get of field 2 fails on a line of fewer than three fields.
// Generated lines hold no quote: their rows are their splits at commas;
// the interpreter reads quoted fields as csv.reader does ("a,b" below).
// A line of three fields or more has a field 2: the failing get after the
// filter is infeasible.
// RUN: coco-bigtest run %s | FileCheck %s --check-prefix=OUT
// RUN: coco-opt %s --bigtest-jdu-paths | FileCheck %s --check-prefix=PATHS
// RUN: coco-bigtest generate %s -o %t | FileCheck %s --check-prefix=GENERATE

// OUT: sink "fields" (7 records):
// OUT-NEXT: 1
// OUT-NEXT: a,b
// OUT-NEXT: c
// OUT-NEXT: x
// OUT-NEXT: x
// OUT-NEXT: y
// OUT-NEXT: z
// OUT: sink "third" (2 records):
// OUT-NEXT: c
// OUT-NEXT: z

// PATHS: branches ["source#0", "flat_map#1=empty"]
// PATHS: branches ["source#0", "flat_map#1=elem0", "sink#2"]
// PATHS: branches ["source#0", "flat_map#1=elem1", "sink#2"]
// PATHS: branches ["source#0", "filter#3=drop"]
// PATHS: branches ["source#0", "filter#3=pass", "map#4@third:get#1=fail"]
// PATHS: branches ["source#0", "filter#3=pass", "sink#5"]

// GENERATE: rows 6 5 1 0
// GENERATE-SAME: 100.0%

module attributes {df.host = "python"} {

func.func @fields(%line: !df.str) -> !df.list<!df.str> {
  %row = df.csv_row %line : !df.list<!df.str>
  return %row : !df.list<!df.str>
}

func.func @third(%line: !df.str) -> !df.str {
  %row = df.csv_row %line : !df.list<!df.str>
  %third = df.get %row[2] : !df.list<!df.str> -> !df.str
  return %third : !df.str
}

func.func @rows() {
  %lines = df.source "rows" inline ["\22a,b\22,x,c", "x,y,z", "1"] delimiter "\t" : !df.dataset<!df.str>
  %fields = df.flat_map %lines @fields : !df.dataset<!df.str> -> !df.dataset<!df.str>
  df.sink "fields" %fields : !df.dataset<!df.str>
  %long = df.filter %lines @has_three : !df.dataset<!df.str>
  %third = df.map %long @third : !df.dataset<!df.str> -> !df.dataset<!df.str>
  df.sink "third" %third : !df.dataset<!df.str>
  return
}

func.func @has_three(%line: !df.str) -> i1 {
  %row = df.csv_row %line : !df.list<!df.str>
  %n = df.size %row : !df.list<!df.str>
  %three = arith.constant 3 : i64
  %ok = arith.cmpi sge, %n, %three : i64
  return %ok : i1
}

}
