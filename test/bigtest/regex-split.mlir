// Python's re.split and re.findall of one character class (df.regex_split,
// df.regex_find_all). @words is word-count-better's normalizeWords:
// re.split(r"\W+", line.lower()) keeps an empty piece where a line starts
// or ends with punctuation, so the filter @nonempty both drops (".a" and
// "a." give "") and keeps a word: element 0 may be "", and so may element
// 1 (the last piece of "a."). @second_field reads field 1 of a line cut at
// each "," or ";" (an empty field between two of them is a field), and
// @second_number the second run of digits, which a line of one number
// lacks. The PySpark check runs test/pyspark/jobs/regex_words.py, the
// same code in PySpark, on Spark.
// RUN: coco-bigtest run %s | FileCheck %s --check-prefix=OUT
// RUN: coco-opt %s --bigtest-jdu-paths | FileCheck %s --check-prefix=PATHS
// RUN: coco-bigtest generate %s -o %t | FileCheck %s --check-prefix=GENERATE

// OUT: sink "words" (5 records):
// OUT-NEXT: a
// OUT-NEXT: b
// OUT-NEXT: hi
// OUT-NEXT: x_1
// OUT-NEXT: you
// OUT: sink "fields" (2 records):
// OUT-NEXT: b
// OUT-NEXT: y
// OUT: sink "numbers" (2 records):
// OUT-NEXT: 22
// OUT-NEXT: 4

// PATHS: branches ["source#0", "flat_map#1=elem0", "filter#2=drop"]
// PATHS: branches ["source#0", "flat_map#1=elem1", "filter#2=drop"]
// PATHS: branches ["source#0", "flat_map#1=elem0", "filter#2=pass", "sink#3"]
// PATHS: branches ["source#0", "flat_map#1=elem1", "filter#2=pass", "sink#3"]
// PATHS-NOT: flat_map#1=empty

// Every path is feasible, and the data covers each one.
// GENERATE: lines 4 4 0 0
// GENERATE-SAME: 100.0%
// GENERATE: csv 2 2 0 0
// GENERATE-SAME: 100.0%
// GENERATE: numbers 2 2 0 0
// GENERATE-SAME: 100.0%

module attributes {df.host = "python"} {

func.func @words(%line: !df.str) -> !df.list<!df.str> {
  %low = df.lower %line
  %words = df.regex_split %low "\\W+" : !df.list<!df.str>
  return %words : !df.list<!df.str>
}

func.func @nonempty(%word: !df.str) -> i1 {
  %n = df.length %word
  %zero = arith.constant 0 : i64
  %some = arith.cmpi sgt, %n, %zero : i64
  return %some : i1
}

func.func @second_field(%line: !df.str) -> !df.str {
  %fields = df.regex_split %line "[,;]" : !df.list<!df.str>
  %second = df.get %fields[1] : !df.list<!df.str> -> !df.str
  return %second : !df.str
}

func.func @second_number(%line: !df.str) -> !df.str {
  %numbers = df.regex_find_all %line "[0-9]+" : !df.list<!df.str>
  %second = df.get %numbers[1] : !df.list<!df.str> -> !df.str
  return %second : !df.str
}

func.func @lines() {
  %lines = df.source "lines" inline ["Hi, you!", "...", "A-b x_1"] delimiter "\t" : !df.dataset<!df.str>
  %words = df.flat_map %lines @words : !df.dataset<!df.str> -> !df.dataset<!df.str>
  %kept = df.filter %words @nonempty : !df.dataset<!df.str>
  df.sink "words" %kept : !df.dataset<!df.str>
  return
}

func.func @csv() {
  %lines = df.source "csv" inline ["a;b,c", "x,y"] delimiter "\t" : !df.dataset<!df.str>
  %second = df.map %lines @second_field : !df.dataset<!df.str> -> !df.dataset<!df.str>
  df.sink "fields" %second : !df.dataset<!df.str>
  return
}

func.func @numbers() {
  %lines = df.source "numbers" inline ["a1b22", "3 4"] delimiter "\t" : !df.dataset<!df.str>
  %second = df.map %lines @second_number : !df.dataset<!df.str> -> !df.dataset<!df.str>
  df.sink "numbers" %second : !df.dataset<!df.str>
  return
}

}
