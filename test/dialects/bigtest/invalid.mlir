// RUN: coco-opt %s --split-input-file --verify-diagnostics
//
// One case per rule of compiler/dialects/src/bigtest/verify.rs, plus the ODS structure.

func.func @program() {
  %s = df.source "numbers" inline ["1,a"] delimiter "," : !df.dataset<tuple<i64, !df.str>>
  return
}
// expected-error@+1 {{program @missing is not a func.func in this module}}
bigtest.jdu_path 0 of @missing status sat branches [] constraints []

// -----

func.func @program() {
  return
}
// expected-error@+1 {{id must be >= 0, found -1}}
bigtest.jdu_path -1 of @program status sat branches [] constraints []

// -----

func.func @program() {
  return
}
bigtest.jdu_path 0 of @program status sat branches [] constraints []
// expected-error@+1 {{path id 0 is already used for @program}}
bigtest.jdu_path 0 of @program status sat branches [] constraints []

// -----

func.func @program() {
  return
}
// expected-error@+1 {{expected string or keyword containing one of the following enum values for attribute 'status' [unsolved, sat, unsat, unknown]}}
bigtest.jdu_path 0 of @program status maybe branches [] constraints []

// -----

func.func @program() {
  %s = df.source "numbers" inline ["1,a"] delimiter "," : !df.dataset<tuple<i64, !df.str>>
  return
}
// expected-error@+1 {{keys[0] must be {op = <index >= 0>, term = "<SMT term>"}}}
bigtest.jdu_path 0 of @program status sat branches [] constraints [] keys [{op = -1, term = "x"}]
// expected-error@+1 {{records[1] must be {fields = ["<constant>", ...], source = "<source name>"}}}
bigtest.jdu_path 1 of @program status sat branches [] constraints [] records [{source = "numbers", fields = ["a"]}, {source = "numbers"}]
// expected-error@+1 {{reads a record of source "letters", which @program does not have}}
bigtest.jdu_path 2 of @program status sat branches [] constraints [] records [{source = "letters", fields = []}]

// -----

func.func @program() {
  %s = df.source "numbers" inline ["1,a"] delimiter "," : !df.dataset<tuple<i64, !df.str>>
  return
}
bigtest.jdu_path 0 of @program status sat branches [] constraints []
bigtest.jdu_path 1 of @program status unsat branches [] constraints []
// expected-error@+1 {{@program has no df.source named "letters" (sources: ["numbers"])}}
bigtest.test_record of @program source "letters" text "1,a" covers [0]
// expected-error@+1 {{record "1" has 1 fields separated by ",", the record type has 2}}
bigtest.test_record of @program source "numbers" text "1" covers [0]
// expected-error@+1 {{record "x,a" has field #0 "x", which is not a valid i64}}
bigtest.test_record of @program source "numbers" text "x,a" covers [0]
// expected-error@+1 {{covers path 7, which @program does not have}}
bigtest.test_record of @program source "numbers" text "2,b" covers [7]
// expected-error@+1 {{covers path 1, which is unsatisfiable: no record can follow it}}
bigtest.test_record of @program source "numbers" text "3,c" covers [1]

// -----

func.func @program() {
  return
}
// expected-error@+1 {{program @nowhere is not a func.func in this module}}
bigtest.test_record of @nowhere source "numbers" text "1" covers []

// -----

func.func @program() {
  // expected-error@+1 {{'bigtest.jdu_path' op expects parent op 'builtin.module'}}
  bigtest.jdu_path 0 of @program status sat branches [] constraints []
  return
}
