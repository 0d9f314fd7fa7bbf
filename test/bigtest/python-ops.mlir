// Python's own string and number ops (df.host = "python"), and the total
// (!df.option) forms that Python's try/except lowers to. @stock is
//
//   def parse(line):
//       words = line.split()
//       name = words[0].lower()            # IndexError on a blank line
//       try:
//           qty = int(words[1])            # a missing word or a bad number
//       except (IndexError, ValueError):   #   both give 0
//           qty = 0
//       return name, qty
//
// and @orders, with `raise`, str.strip/upper/endswith/replace/find and
// Python's //, % and /:
//
//   def parse(line):
//       fields = line.split(",")
//       name = fields[0].strip().upper()
//       if name.endswith("X"):
//           raise ValueError("discontinued item")
//       qty = int(fields[1].replace("$", ""))  # IndexError, ValueError
//       dozens, rest = qty // 12, qty % 12
//       ratio = float(qty) / float(rest)        # ZeroDivisionError
//       at = name.find("-")
//       return (name[0:at] if at >= 0 else name), dozens, ratio
//
// CPython 3.11 gives, for the inline records: ('apple', 3), ('pear', 0),
// ('fig', 0), ('kiwi', 10); ('AB', 1, 13.0), ('PEAR', -1, -1.4) (run
// prints each sink's lines sorted).
// RUN: coco-bigtest run %s | FileCheck %s --check-prefix=OUT
// The total forms fork as the failing ones do, and record which side the
// path took (get#3=absent): the cond_br on df.is_present that follows is a
// constant and does not fork again.
// RUN: coco-opt %s --bigtest-jdu-paths | FileCheck %s --check-prefix=PATHS
// Every path is covered: the interpreter follows each generated record
// along the path the symbolic executor solved it for.
// RUN: coco-bigtest generate %s -o %t --timeout-ms 30000 | FileCheck %s --check-prefix=GENERATE

// OUT: sink "stock" (4 records):
// OUT-NEXT: apple,3
// OUT-NEXT: fig,0
// OUT-NEXT: kiwi,10
// OUT-NEXT: pear,0
// OUT: sink "orders" (2 records):
// OUT-NEXT: AB,1,13.0
// OUT-NEXT: PEAR,-1,-1.4

// PATHS: branches ["source#0", "map#1@parse:get#1=fail"]
// PATHS: branches ["source#0", "map#1@parse:get#3=present", "map#1@parse:cond_br#6=true", "map#1@parse:to_int#9=present", "map#1@parse:cond_br#11=true", "sink#2"]
// PATHS: branches ["source#0", "map#1@parse:get#3=present", "map#1@parse:cond_br#6=true", "map#1@parse:to_int#9=absent", "map#1@parse:cond_br#11=false", "sink#2"]
// PATHS: branches ["source#0", "map#1@parse:get#3=absent", "map#1@parse:cond_br#6=false", "sink#2"]
// PATHS: branches ["source#0", "map#1@parse_order:cond_br#6=true", "map#1@parse_order:raise#7=fail"]
// PATHS: branches ["source#0", "map#1@parse_order:cond_br#6=false", "map#1@parse_order:truediv#18=fail"]
// PATHS: branches ["source#0", "map#1@parse_order:cond_br#6=false", "map#1@parse_order:to_int#12=fail"]
// PATHS: branches ["source#0", "map#1@parse_order:cond_br#6=false", "map#1@parse_order:get#8=fail"]
// PATHS: branches ["source#0", "map#1@parse_order:cond_br#6=false", "map#1@parse_order:cond_br#23=true", "sink#2"]
// PATHS: branches ["source#0", "map#1@parse_order:cond_br#6=false", "map#1@parse_order:cond_br#23=false", "sink#2"]

// GENERATE: stock 4 4 0 0 4 2 100.0%
// GENERATE: orders 6 6 0 0 9 5 100.0%

module attributes {df.host = "python"} {

func.func @parse(%line: !df.str) -> (!df.str, i64) {
  %words = df.split %line : !df.list<!df.str>
  %first = df.get %words[0] : !df.list<!df.str> -> !df.str
  %name = df.lower %first
  %second = df.get %words[1] : !df.list<!df.str> -> !df.option<!df.str>
  %has = df.is_present %second : !df.option<!df.str>
  %zero = arith.constant 0 : i64
  cf.cond_br %has, ^parse, ^done(%zero : i64)
^parse:
  %empty = df.str_constant ""
  %text = df.value_or %second, %empty : !df.option<!df.str>, !df.str
  %n = df.to_int %text : !df.option<i64>
  %ok = df.is_present %n : !df.option<i64>
  cf.cond_br %ok, ^number, ^done(%zero : i64)
^number:
  %v = df.value_or %n, %zero : !df.option<i64>, i64
  cf.br ^done(%v : i64)
^done(%qty: i64):
  return %name, %qty : !df.str, i64
}

func.func @stock() {
  %lines = df.source "stock" inline ["Apple 3", "pear  x", "FIG", "kiwi\t 1_0 more"] delimiter "," : !df.dataset<!df.str>
  %parsed = df.map %lines @parse : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, i64>>
  df.sink "stock" %parsed : !df.dataset<tuple<!df.str, i64>>
  return
}

func.func @parse_order(%line: !df.str) -> (!df.str, i64, f64) {
  %fields = df.split %line "," : !df.list<!df.str>
  %raw = df.get %fields[0] : !df.list<!df.str> -> !df.str
  %stripped = df.strip %raw both
  %name = df.upper %stripped
  %x = df.str_constant "X"
  %discontinued = df.ends_with %name, %x
  cf.cond_br %discontinued, ^reject, ^read
^reject:
  df.raise "ValueError", "discontinued item"
^read:
  %qty_text = df.get %fields[1] : !df.list<!df.str> -> !df.str
  %dollar = df.str_constant "$"
  %none = df.str_constant ""
  %digits = df.replace %qty_text, %dollar, %none
  %qty = df.to_int %digits
  %c12 = arith.constant 12 : i64
  %dozens = df.floordiv %qty, %c12
  %rest = df.mod %qty, %c12
  %qty_f = arith.sitofp %qty : i64 to f64
  %rest_f = arith.sitofp %rest : i64 to f64
  %ratio = df.truediv %qty_f, %rest_f
  %dash = df.str_constant "-"
  %at = df.find %name, %dash
  %c0 = arith.constant 0 : i64
  %hyphenated = arith.cmpi sge, %at, %c0 : i64
  cf.cond_br %hyphenated, ^short, ^done(%name : !df.str)
^short:
  %short = df.substr %name, %c0, %at
  cf.br ^done(%short : !df.str)
^done(%label: !df.str):
  return %label, %dozens, %ratio : !df.str, i64, f64
}

func.func @orders() {
  %lines = df.source "orders" inline ["  ab-c ,$1_3", "pear,-7"] delimiter "\t" : !df.dataset<!df.str>
  %parsed = df.map %lines @parse_order : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, i64, f64>>
  df.sink "orders" %parsed : !df.dataset<tuple<!df.str, i64, f64>>
  return
}
}
