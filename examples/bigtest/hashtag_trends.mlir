// Trending hashtags in a batch of tweets. Exact duplicate lines (crawler
// re-deliveries) are removed with df.distinct, tweets are split into tokens by
// flat_map, hashtags are kept with df.starts_with, df.length (a lone "#") and
// df.str_eq (the sponsored tag "#ad"), the "#" is cut off with df.substr (a
// substring that can fail), and occurrences are counted per tag.

// Written as a Scala/Java Spark job: the df ops have JVM semantics
// (String.split drops trailing empty fields; docs/bigtest.md).
module attributes {df.host = "jvm"} {

func.func @tokens(%tweet: !df.str) -> !df.list<!df.str> {
  %words = df.split %tweet " " : !df.list<!df.str>
  return %words : !df.list<!df.str>
}

func.func @is_hashtag(%token: !df.str) -> i1 {
  %hash = df.str_constant "#"
  %tagged = df.starts_with %token, %hash
  %length = df.length %token
  %one = arith.constant 1 : i64
  %named = arith.cmpi sgt, %length, %one : i64
  %ad = df.str_constant "#ad"
  %sponsored = df.str_eq %token, %ad
  %true = arith.constant true
  %organic = arith.xori %sponsored, %true : i1
  %tag = arith.andi %tagged, %named : i1
  %keep = arith.andi %tag, %organic : i1
  return %keep : i1
}

func.func @count_one(%token: !df.str) -> (!df.str, i64) {
  %one = arith.constant 1 : i64
  %length = df.length %token
  %rest = arith.subi %length, %one : i64
  %tag = df.substr %token, %one, %rest
  return %tag, %one : !df.str, i64
}

func.func @add(%a: i64, %b: i64) -> i64 {
  %sum = arith.addi %a, %b : i64
  return %sum : i64
}

func.func @hashtag_trends() {
  %tweets = df.source "tweets" path "data/tweets.txt" delimiter "\t" : !df.dataset<!df.str>
  %unique = df.distinct %tweets : !df.dataset<!df.str>
  %tokens = df.flat_map %unique @tokens : !df.dataset<!df.str> -> !df.dataset<!df.str>
  %hashtags = df.filter %tokens @is_hashtag : !df.dataset<!df.str>
  %pairs = df.map %hashtags @count_one : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, i64>>
  %counts = df.reduce_by_key %pairs @add : !df.dataset<tuple<!df.str, i64>>
  df.sink "hashtag_counts" %counts path "hashtags.csv" : !df.dataset<tuple<!df.str, i64>>
  return
}
}
