// The front end reads a job's bytes as CPython does (issue 51): a UTF-8
// BOM and a `# coding: latin-1` declaration are decoded, with locations
// counted in the decoded text (columns in characters, the BOM not one of
// them); an encoding whose characters can hide statements from a reader
// (UTF-7 turns `+AAo-` into a line break, here inside a comment) is
// refused with that reason.

// RUN: coco-bigtest import pyspark/inputs/reader-latin1.py | FileCheck %s --check-prefix=LATIN1
// LATIN1: func.func @filter_6(%arg0: !df.str) -> (i1) {
// LATIN1: df.str_constant "caf\C3\A9" loc("pyspark/inputs/reader-latin1.py":6:48)
// LATIN1: df.length %arg0 loc("pyspark/inputs/reader-latin1.py":6:60)

// RUN: coco-bigtest import pyspark/inputs/reader-bom.py | FileCheck %s --check-prefix=BOM
// BOM: df.split %arg0 : !df.list<!df.str> loc("pyspark/inputs/reader-bom.py":1:52)
// BOM: func.func @words() {

// RUN: not coco-bigtest import pyspark/inputs/reader-utf7.py 2>&1 | FileCheck %s --check-prefix=UTF7
// UTF7: pyspark/inputs/reader-utf7.py:1:1: the file declares the source encoding utf-7, whose encoded characters can hide line breaks and statements that a reader of the file does not see; coco does not read it: save the file as UTF-8

// A lone surrogate escape is a Python string UTF-8 (and Spark's text)
// cannot hold: an error where the UDF uses it, not unreadable parser output.
// RUN: not coco-bigtest import pyspark/inputs/reader-surrogate.py 2>&1 | FileCheck %s --check-prefix=SURROGATE
// SURROGATE: pyspark/inputs/reader-surrogate.py:2:36: lone-surrogate string constants are not supported in a UDF
