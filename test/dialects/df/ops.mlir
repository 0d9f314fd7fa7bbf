// RUN: coco-opt %s --split-input-file | FileCheck %s
// RUN: coco-opt %s --split-input-file | coco-opt --split-input-file | FileCheck %s
// RUN: coco-opt %s --split-input-file --mlir-print-op-generic | coco-opt --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @strings
func.func @strings(%line: !df.str, %n: i64, %x: f64, %o: !df.option<f64>) -> (i64, !df.str) {
  // CHECK: df.str_constant "a,b"
  %c = df.str_constant "a,b"
  // CHECK: df.split %{{.*}} "," : !df.list<!df.str>
  %parts = df.split %line "," : !df.list<!df.str>
  // CHECK: df.get %{{.*}}[1] : !df.list<!df.str> -> !df.str
  %second = df.get %parts[1] : !df.list<!df.str> -> !df.str
  // CHECK: df.size %{{.*}} : !df.list<!df.str>
  %count = df.size %parts : !df.list<!df.str>
  // CHECK: df.range %{{.*}}, %{{.*}} : !df.list<i64>
  %indices = df.range %n, %count : !df.list<i64>
  // CHECK: df.round %{{.*}} scale 2{{$}}
  %rounded = df.round %x scale 2
  // CHECK: df.round %{{.*}} scale 0 half_even
  %even = df.round %x scale 0 half_even
  // CHECK: df.substr %{{.*}}, %{{.*}}, %{{.*}}
  %sub = df.substr %line, %n, %n
  // CHECK: df.to_int %{{.*}}
  %i = df.to_int %second
  // CHECK: df.to_float %{{.*}}
  %f = df.to_float %second
  // CHECK: df.to_str %{{.*}} : f64
  %s = df.to_str %x : f64
  // CHECK: df.length %{{.*}}
  %len = df.length %line
  // Stripping spaces only (Spark SQL's trim) is defined on either host.
  // CHECK: df.strip %{{.*}} left spaces
  %trimmed = df.strip %line left spaces
  // CHECK: df.concat %{{.*}}, %{{.*}}
  %cat = df.concat %line, %sub
  // CHECK: df.contains %{{.*}}, %{{.*}}
  %has = df.contains %line, %c
  // CHECK: df.starts_with %{{.*}}, %{{.*}}
  %pre = df.starts_with %line, %c
  // CHECK: df.str_eq %{{.*}}, %{{.*}}
  %eq = df.str_eq %line, %c
  // CHECK: df.is_present %{{.*}} : !df.option<f64>
  %p = df.is_present %o : !df.option<f64>
  // CHECK: df.value_or %{{.*}}, %{{.*}} : !df.option<f64>, f64
  %v = df.value_or %o, %x : !df.option<f64>, f64
  return %i, %cat : i64, !df.str
}

// -----

// Python's own ops, and the total (!df.option) forms behind try/except.
// CHECK-LABEL: func.func @python_ops
module attributes {df.host = "python"} {
func.func @python_ops(%line: !df.str, %t: !df.str, %a: i64, %b: i64, %x: f64) -> (i64, !df.str) {
  // CHECK: df.to_int %{{[^ ]*}}{{$}}
  %i = df.to_int %line
  // CHECK: df.to_int %{{.*}} : !df.option<i64>
  %oi = df.to_int %line : !df.option<i64>
  // CHECK: df.to_float %{{.*}} : !df.option<f64>
  %of = df.to_float %line : !df.option<f64>
  // CHECK: df.sql_cast %{{.*}} to int : !df.option<i64>
  %ci = df.sql_cast %line to int : !df.option<i64>
  // CHECK: df.sql_cast %{{.*}} to bigint : !df.option<i64>
  %cl = df.sql_cast %line to bigint : !df.option<i64>
  // CHECK: df.sql_cast %{{.*}} to double : !df.option<f64>
  %cd = df.sql_cast %line to double : !df.option<f64>
  // CHECK: df.sql_cast %{{.*}} to boolean : !df.option<i1>
  %cb = df.sql_cast %line to boolean : !df.option<i1>
  // CHECK: df.split %{{.*}} : !df.list<!df.str>
  %words = df.split %line : !df.list<!df.str>
  // CHECK: df.regex_split %{{.*}} "\\W+" : !df.list<!df.str>
  %rw = df.regex_split %line "\\W+" : !df.list<!df.str>
  // CHECK: df.regex_find_all %{{.*}} "[a-z']+" ascii : !df.list<!df.str>
  %rf = df.regex_find_all %line "[a-z']+" ascii : !df.list<!df.str>
  // CHECK: df.csv_row %{{.*}} : !df.list<!df.str>
  %row = df.csv_row %line : !df.list<!df.str>
  // CHECK: df.get %{{.*}}[1] : !df.list<!df.str> -> !df.option<!df.str>
  %og = df.get %words[1] : !df.list<!df.str> -> !df.option<!df.str>
  // CHECK: df.get_at %{{.*}}[%{{.*}}] : !df.list<!df.str> -> !df.option<!df.str>
  %two = arith.constant 2 : i64
  %oa = df.get_at %words[%two] : !df.list<!df.str> -> !df.option<!df.str>
  // CHECK: df.ends_with %{{.*}}, %{{.*}}
  %suffix = df.ends_with %line, %t
  // CHECK: df.find %{{.*}}, %{{.*}}
  %at = df.find %line, %t
  // CHECK: df.replace %{{.*}}, %{{.*}}, %{{.*}}
  %r = df.replace %line, %t, %t
  // CHECK: df.strip %{{.*}} both
  %s = df.strip %line both
  // CHECK: df.strip %{{.*}} left
  %ls = df.strip %line left
  // CHECK: df.strip %{{.*}} right
  %rs = df.strip %line right
  // CHECK: df.lower %{{.*}}
  %lo = df.lower %line
  // CHECK: df.upper %{{.*}}
  %up = df.upper %line
  // CHECK: df.floordiv %{{.*}}, %{{.*}}
  %q = df.floordiv %a, %b
  // CHECK: df.mod %{{.*}}, %{{.*}}
  %m = df.mod %a, %b
  // CHECK: df.truediv %{{.*}}, %{{.*}}
  %d = df.truediv %x, %x
  %ok = df.is_present %oi : !df.option<i64>
  cf.cond_br %ok, ^good, ^bad
^good:
  return %q, %s : i64, !df.str
^bad:
  // CHECK: df.raise "ValueError", "no number"
  df.raise "ValueError", "no number"
}
}

// -----

// -----

func.func @words(%line: !df.str) -> !df.list<!df.str> {
  %w = df.split %line " " : !df.list<!df.str>
  return %w : !df.list<!df.str>
}
func.func @tags(%user: !df.str, %tags: !df.str) -> (!df.str, !df.list<!df.str>) {
  %t = df.split %tags ";" : !df.list<!df.str>
  return %user, %t : !df.str, !df.list<!df.str>
}
func.func @key(%w: !df.str) -> (!df.str, i64) {
  %one = arith.constant 1 : i64
  return %w, %one : !df.str, i64
}
func.func @sum(%a: i64, %b: i64) -> i64 {
  %s = arith.addi %a, %b : i64
  return %s : i64
}
func.func @big(%w: !df.str, %n: i64) -> i1 {
  %t = arith.constant 1 : i64
  %b = arith.cmpi sgt, %n, %t : i64
  return %b : i1
}
func.func @total(%a: !df.str, %x: i64, %b: !df.str, %y: i64) -> (!df.str, i64) {
  %s = arith.addi %x, %y : i64
  return %a, %s : !df.str, i64
}
func.func @merge(%k: !df.str, %n: i64, %m: !df.option<f64>) -> (!df.str, i64) {
  return %k, %n : !df.str, i64
}

// CHECK-LABEL: func.func @operators
func.func @operators() {
  // CHECK: df.source "lines" path "lines.txt" delimiter "\09" : !df.dataset<!df.str>
  %lines = df.source "lines" path "lines.txt" delimiter "\t" : !df.dataset<!df.str>
  // CHECK: df.source "rates" inline ["a,1.5", "b,2"] delimiter "," : !df.dataset<tuple<!df.str, f64>>
  %rates = df.source "rates" inline ["a,1.5", "b,2"] delimiter "," : !df.dataset<tuple<!df.str, f64>>
  %rates_text = df.source "rates_text" inline ["a,x;y"] delimiter "," : !df.dataset<tuple<!df.str, !df.str>>
  // CHECK: df.flat_map %{{.*}} @words : !df.dataset<!df.str> -> !df.dataset<!df.str>
  %words = df.flat_map %lines @words : !df.dataset<!df.str> -> !df.dataset<!df.str>
  // CHECK: df.flat_map %{{.*}} @tags : !df.dataset<tuple<!df.str, !df.str>> -> !df.dataset<tuple<!df.str, !df.str>>
  %tagged = df.flat_map %rates_text @tags : !df.dataset<tuple<!df.str, !df.str>> -> !df.dataset<tuple<!df.str, !df.str>>
  // CHECK: df.map %{{.*}} @key : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, i64>>
  %pairs = df.map %words @key : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, i64>>
  // CHECK: df.reduce_by_key %{{.*}} @sum : !df.dataset<tuple<!df.str, i64>>
  %counts = df.reduce_by_key %pairs @sum : !df.dataset<tuple<!df.str, i64>>
  // CHECK: df.filter %{{.*}} @big : !df.dataset<tuple<!df.str, i64>>
  %big = df.filter %counts @big : !df.dataset<tuple<!df.str, i64>>
  // CHECK: df.reduce %{{.*}} @total : !df.dataset<tuple<!df.str, i64>>
  %all = df.reduce %big @total : !df.dataset<tuple<!df.str, i64>>
  // CHECK: df.group_by_key %{{.*}} : !df.dataset<tuple<!df.str, i64>> -> !df.dataset<tuple<!df.str, !df.list<i64>>>
  %groups = df.group_by_key %pairs : !df.dataset<tuple<!df.str, i64>> -> !df.dataset<tuple<!df.str, !df.list<i64>>>
  // CHECK: df.join inner
  %j = df.join inner %counts, %rates : !df.dataset<tuple<!df.str, i64>>, !df.dataset<tuple<!df.str, f64>> -> !df.dataset<tuple<!df.str, i64, f64>>
  // CHECK: df.join left_outer {{.*}} -> !df.dataset<tuple<!df.str, i64, !df.option<f64>>>
  %l = df.join left_outer %counts, %rates : !df.dataset<tuple<!df.str, i64>>, !df.dataset<tuple<!df.str, f64>> -> !df.dataset<tuple<!df.str, i64, !df.option<f64>>>
  // CHECK: df.join right_outer {{.*}} -> !df.dataset<tuple<!df.str, !df.option<i64>, f64>>
  %r = df.join right_outer %counts, %rates : !df.dataset<tuple<!df.str, i64>>, !df.dataset<tuple<!df.str, f64>> -> !df.dataset<tuple<!df.str, !df.option<i64>, f64>>
  // CHECK: df.join full_outer {{.*}} -> !df.dataset<tuple<!df.str, !df.option<i64>, !df.option<f64>>>
  %f = df.join full_outer %counts, %rates : !df.dataset<tuple<!df.str, i64>>, !df.dataset<tuple<!df.str, f64>> -> !df.dataset<tuple<!df.str, !df.option<i64>, !df.option<f64>>>
  // Keys of two fields.
  // CHECK: df.join inner %{{.*}}, %{{.*}} keys 2 : !df.dataset<tuple<!df.str, i64, f64>>
  %k = df.join inner %j, %j keys 2 : !df.dataset<tuple<!df.str, i64, f64>>, !df.dataset<tuple<!df.str, i64, f64>> -> !df.dataset<tuple<!df.str, i64, f64, f64>>
  %merged = df.map %l @merge : !df.dataset<tuple<!df.str, i64, !df.option<f64>>> -> !df.dataset<tuple<!df.str, i64>>
  // CHECK: df.union %{{.*}}, %{{.*}} : !df.dataset<tuple<!df.str, i64>>
  %u = df.union %merged, %big : !df.dataset<tuple<!df.str, i64>>
  // CHECK: df.distinct %{{.*}} : !df.dataset<tuple<!df.str, i64>>
  %d = df.distinct %u : !df.dataset<tuple<!df.str, i64>>
  // CHECK: df.sink "out" %{{.*}} path "out.csv" : !df.dataset<tuple<!df.str, i64>>
  df.sink "out" %d path "out.csv" : !df.dataset<tuple<!df.str, i64>>
  // CHECK: df.sink "groups" %{{.*}} : !df.dataset<tuple<!df.str, !df.list<i64>>>
  df.sink "groups" %groups : !df.dataset<tuple<!df.str, !df.list<i64>>>
  df.sink "all" %all : !df.dataset<tuple<!df.str, i64>>
  df.sink "joined" %j : !df.dataset<tuple<!df.str, i64, f64>>
  df.sink "right" %r : !df.dataset<tuple<!df.str, !df.option<i64>, f64>>
  return
}
