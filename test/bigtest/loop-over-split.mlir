// A `for` loop over a split, as the PySpark front end writes it: a cf loop
// whose header reads piece %i with df.get_at and leaves when it is absent.
// @sum_pieces is
//
//   def total(line):
//       n = 0
//       for piece in line.split(","):
//           n += int(piece)          # ValueError fails the job
//       return n
//
// CPython 3.11 gives 6 for "1,2,3" and -7 for "-7": the interpreter runs a
// loop to its end, whatever its trip count.
// RUN: coco-bigtest run %s | FileCheck %s --check-prefix=OUT
// BigTest follows the loop while the index folds to a constant: each trip
// past the first decides "more than i pieces" (get_at#3=present; a split
// always has a first piece), and a path that would loop again after k=2
// trips that forked is cut, with a warning naming the UDF. A bad piece on
// any of the three trips followed fails the job.
// RUN: coco-opt %s --bigtest-jdu-paths 2>&1 | FileCheck %s --check-prefix=PATHS
// Every enumerated path is covered by data the interpreter confirms.
// RUN: coco-bigtest generate %s -o %t 2>&1 | FileCheck %s --check-prefix=GENERATE

// OUT: sink "totals" (2 records):
// OUT-NEXT: -7
// OUT-NEXT: 6

// PATHS: branches ["source#0", "map#1@total:get_at#3=present", "map#1@total:cond_br#5=true", "map#1@total:get_at#3=present", "map#1@total:cond_br#5=true", "map#1@total:get_at#3=present", "map#1@total:cond_br#5=true", "map#1@total:to_int#8=fail"]
// PATHS: branches ["source#0", "map#1@total:get_at#3=present", "map#1@total:cond_br#5=true", "map#1@total:get_at#3=present", "map#1@total:cond_br#5=true", "map#1@total:to_int#8=fail"]
// PATHS: branches ["source#0", "map#1@total:get_at#3=present", "map#1@total:cond_br#5=true", "map#1@total:to_int#8=fail"]
// PATHS: branches ["source#0", "map#1@total:get_at#3=present", "map#1@total:cond_br#5=true", "map#1@total:get_at#3=present", "map#1@total:cond_br#5=true", "map#1@total:get_at#3=absent", "map#1@total:cond_br#5=false", "sink#2"]
// PATHS: branches ["source#0", "map#1@total:get_at#3=present", "map#1@total:cond_br#5=true", "map#1@total:get_at#3=absent", "map#1@total:cond_br#5=false", "sink#2"]
// PATHS: warning: 1 path(s) of @total loop more than k=2 times and are not enumerated; raise k to include them

// GENERATE: sum_pieces 5 5 0 0 {{[0-9]+}} {{[0-9]+}} 100.0%

module attributes {df.host = "python"} {

func.func @total(%line: !df.str) -> i64 {
  %pieces = df.split %line "," : !df.list<!df.str>
  %c0 = arith.constant 0 : i64
  cf.br ^header(%c0, %c0 : i64, i64)
^header(%i: i64, %n: i64):
  %o = df.get_at %pieces[%i] : !df.list<!df.str> -> !df.option<!df.str>
  %more = df.is_present %o : !df.option<!df.str>
  cf.cond_br %more, ^body, ^done
^body:
  %empty = df.str_constant ""
  %piece = df.value_or %o, %empty : !df.option<!df.str>, !df.str
  %v = df.to_int %piece
  %next_n = arith.addi %n, %v : i64
  %c1 = arith.constant 1 : i64
  %next_i = arith.addi %i, %c1 : i64
  cf.br ^header(%next_i, %next_n : i64, i64)
^done:
  return %n : i64
}

func.func @sum_pieces() {
  %lines = df.source "totals" inline ["1,2,3", "-7"] delimiter "\t" : !df.dataset<!df.str>
  %totals = df.map %lines @total : !df.dataset<!df.str> -> !df.dataset<i64>
  df.sink "totals" %totals : !df.dataset<i64>
  return
}
}
