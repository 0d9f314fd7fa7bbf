// df.range: Python's range(start, stop) as a list of ints. A flat_map over
// range(0, pieces - 1) follows element j where j < pieces - 1 (an `empty`
// path for a line of one piece), and the element's pair reads pieces j and
// j + 1 with df.get_at, whose index folds to a constant on each path.
// RUN: coco-bigtest run %s | FileCheck %s --check-prefix=OUT
// RUN: coco-opt %s --bigtest-jdu-paths | FileCheck %s --check-prefix=PATHS
// RUN: coco-bigtest generate %s -o %t | FileCheck %s --check-prefix=GENERATE

// OUT: sink "pairs" (3 records):
// OUT-NEXT: a,b
// OUT-NEXT: b,c
// OUT-NEXT: x,y

// PATHS: branches ["source#0", "flat_map#1=empty"]
// PATHS: branches ["source#0", "flat_map#1=elem0", "map#2@pair:get_at#3=present", "map#2@pair:get_at#4=present", "sink#3"]
// PATHS: branches ["source#0", "flat_map#1=elem1", "map#2@pair:get_at#3=present", "map#2@pair:get_at#4=present", "sink#3"]

// Three paths are feasible: no pair, the first, the second; on each, both
// elements read are there (i + 1 < pieces).
// GENERATE: pairs 7 3 4 0
// GENERATE-SAME: 100.0%

module attributes {df.host = "python"} {

func.func @indices(%line: !df.str) -> (!df.str, !df.list<i64>) {
  %words = df.split %line "," : !df.list<!df.str>
  %n = df.size %words : !df.list<!df.str>
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %last = arith.subi %n, %c1 : i64
  %r = df.range %c0, %last : !df.list<i64>
  return %line, %r : !df.str, !df.list<i64>
}

func.func @pair(%line: !df.str, %i: i64) -> (!df.str, !df.str) {
  %words = df.split %line "," : !df.list<!df.str>
  %c1 = arith.constant 1 : i64
  %next = arith.addi %i, %c1 : i64
  %a = df.get_at %words[%i] : !df.list<!df.str> -> !df.option<!df.str>
  %b = df.get_at %words[%next] : !df.list<!df.str> -> !df.option<!df.str>
  %none = df.str_constant ""
  %x = df.value_or %a, %none : !df.option<!df.str>, !df.str
  %y = df.value_or %b, %none : !df.option<!df.str>, !df.str
  return %x, %y : !df.str, !df.str
}

func.func @pairs() {
  %lines = df.source "lines" inline ["a,b,c", "x,y", "z"] delimiter "\t" : !df.dataset<!df.str>
  %at = df.flat_map %lines @indices : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, i64>>
  %pairs = df.map %at @pair : !df.dataset<tuple<!df.str, i64>> -> !df.dataset<tuple<!df.str, !df.str>>
  df.sink "pairs" %pairs : !df.dataset<tuple<!df.str, !df.str>>
  return
}

}
