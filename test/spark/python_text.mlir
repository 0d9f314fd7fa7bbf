// Python's re.split and re.findall (df.regex_split, df.regex_find_all) and
// csv.reader rows (df.csv_row) in the Spark check (spark::examples): the
// program's Python export runs on Spark with the generated data, and its
// output must be the interpreter's. Words of a line cut at runs of
// non-word characters (empty at an end that punctuation touches, dropped
// by the filter), the runs of digits, the fields of the csv row, and a
// pattern of quotes, a backslash and a parenthesis, which the export keeps
// as data.
// test/bigtest/regex-split.mlir and csv-row.mlir hold the paths.
// RUN: coco-bigtest generate %s -o %t | FileCheck %s
// CHECK: python_text 12 12 0 0
// CHECK-SAME: 100.0%

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

func.func @numbers(%line: !df.str) -> !df.list<!df.str> {
  %numbers = df.regex_find_all %line "[0-9]+" ascii : !df.list<!df.str>
  return %numbers : !df.list<!df.str>
}

func.func @quoted(%line: !df.str) -> !df.list<!df.str> {
  %parts = df.regex_split %line "[\22'\\\\)]+" : !df.list<!df.str>
  return %parts : !df.list<!df.str>
}

func.func @fields(%line: !df.str) -> !df.list<!df.str> {
  %row = df.csv_row %line : !df.list<!df.str>
  return %row : !df.list<!df.str>
}

func.func @python_text() {
  %lines = df.source "lines" inline ["Hi, you!", "...", "A-b x_1 22"] delimiter "\t" : !df.dataset<!df.str>
  %words = df.flat_map %lines @words : !df.dataset<!df.str> -> !df.dataset<!df.str>
  %kept = df.filter %words @nonempty : !df.dataset<!df.str>
  df.sink "words" %kept : !df.dataset<!df.str>
  %numbers = df.flat_map %lines @numbers : !df.dataset<!df.str> -> !df.dataset<!df.str>
  df.sink "numbers" %numbers : !df.dataset<!df.str>
  %fields = df.flat_map %lines @fields : !df.dataset<!df.str> -> !df.dataset<!df.str>
  df.sink "fields" %fields : !df.dataset<!df.str>
  %parts = df.flat_map %lines @quoted : !df.dataset<!df.str> -> !df.dataset<!df.str>
  df.sink "parts" %parts : !df.dataset<!df.str>
  return
}

}
