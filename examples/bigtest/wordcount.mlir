// Word count with a frequency threshold: flat_map over tokens, a pair per
// word, a sum per key, then a filter. The smallest program that exercises
// flat_map, map, reduce_by_key and filter.

// Written as a Scala/Java Spark job: the df ops have JVM semantics
// (String.split drops trailing empty fields; docs/bigtest.md).
module attributes {df.host = "jvm"} {

func.func @tokens(%line: !df.str) -> !df.list<!df.str> {
  %words = df.split %line " " : !df.list<!df.str>
  return %words : !df.list<!df.str>
}

func.func @pair(%word: !df.str) -> (!df.str, i64) {
  %one = arith.constant 1 : i64
  return %word, %one : !df.str, i64
}

func.func @add(%a: i64, %b: i64) -> i64 {
  %sum = arith.addi %a, %b : i64
  return %sum : i64
}

func.func @frequent(%word: !df.str, %count: i64) -> i1 {
  %threshold = arith.constant 2 : i64
  %keep = arith.cmpi sge, %count, %threshold : i64
  return %keep : i1
}

func.func @wordcount() {
  %lines = df.source "lines" path "data/lines.txt" delimiter "\t" : !df.dataset<!df.str>
  %words = df.flat_map %lines @tokens : !df.dataset<!df.str> -> !df.dataset<!df.str>
  %pairs = df.map %words @pair : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, i64>>
  %counts = df.reduce_by_key %pairs @add : !df.dataset<tuple<!df.str, i64>>
  %frequent = df.filter %counts @frequent : !df.dataset<tuple<!df.str, i64>>
  df.sink "frequent_words" %frequent : !df.dataset<tuple<!df.str, i64>>
  return
}
}
