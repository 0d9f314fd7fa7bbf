// Python's re in UDFs: re.split and re.findall of a pattern that is one
// character class, alone or with `+`, called on the module, on a
// module-level re.compile(...), on a name imported from re, or after an
// `import re` inside the function; flags re.UNICODE, re.ASCII (the df op's
// `ascii`) and re.MULTILINE. The PySpark check runs
// test/pyspark/jobs/regex_words.py on Spark, and the wild corpus the
// Packt course's word-count-better(-sorted).py, unchanged.
// RUN: coco-bigtest import pyspark/jobs/regex_words.py | FileCheck %s
// CHECK-LABEL: func.func @words(
// CHECK: df.regex_split %{{[0-9]+}} "\\W+" : !df.list<!df.str> loc("pyspark/jobs/regex_words.py":17:12)
// CHECK-LABEL: func.func @second_field(
// CHECK: df.regex_split %arg0 "[,;]" : !df.list<!df.str> loc("pyspark/jobs/regex_words.py":21:14)
// CHECK-LABEL: func.func @numbers(
// CHECK: df.regex_find_all %arg0 "[0-9]+" ascii : !df.list<!df.str> loc("pyspark/jobs/regex_words.py":30:12)

// re.compile(p).split(s) in the expression is the same split.
// RUN: coco-bigtest import pyspark/inputs/regex_refusals.py --entry compile_in_udf | FileCheck %s --check-prefix=INLINE
// INLINE: df.regex_split %arg0 "\\s+" : !df.list<!df.str> loc("pyspark/inputs/regex_refusals.py":27:39)

// Everything else of re is refused where it is written, naming the
// construct and what is supported.
// RUN: not coco-bigtest import pyspark/inputs/regex_refusals.py --entry substitute 2>&1 | FileCheck %s --check-prefix=SUB
// SUB: coco-bigtest: error: pyspark/inputs/regex_refusals.py:7:38: re.sub() is not supported in a UDF: re.split() and re.findall() of a pattern that is one character class are (docs/pyspark.md)

// RUN: not coco-bigtest import pyspark/inputs/regex_refusals.py --entry group 2>&1 | FileCheck %s --check-prefix=GROUP
// GROUP: coco-bigtest: error: pyspark/inputs/regex_refusals.py:11:48: pattern `(,)`: groups (`(`) are not supported; a pattern is one character class, alone or followed by `+` (docs/pyspark.md, "Regular expressions")

// A module-level pattern is refused where it is compiled.
// RUN: not coco-bigtest import pyspark/inputs/regex_refusals.py --entry compiled_group 2>&1 | FileCheck %s --check-prefix=COMPILED-GROUP
// COMPILED-GROUP: coco-bigtest: error: pyspark/inputs/regex_refusals.py:3:20: pattern `(\w+)`: groups

// RUN: not coco-bigtest import pyspark/inputs/regex_refusals.py --entry computed_pattern 2>&1 | FileCheck %s --check-prefix=COMPUTED
// COMPUTED: coco-bigtest: error: pyspark/inputs/regex_refusals.py:19:48: a re pattern in a UDF must be a string constant (or a module-level name bound once to one)

// RUN: not coco-bigtest import pyspark/inputs/regex_refusals.py --entry ignore_case 2>&1 | FileCheck %s --check-prefix=IGNORECASE
// IGNORECASE: coco-bigtest: error: pyspark/inputs/regex_refusals.py:23:67: the flag re.IGNORECASE is not supported in a UDF (re.UNICODE, re.ASCII and re.MULTILINE are)

// RUN: not coco-bigtest import pyspark/inputs/regex_refusals.py --entry compiled_in_variable 2>&1 | FileCheck %s --check-prefix=VARIABLE
// VARIABLE: coco-bigtest: error: pyspark/inputs/regex_refusals.py:31:15: re.compile() in a UDF makes a pattern value, which coco does not hold; call re.split(pattern, s) or re.findall(pattern, s), or bind the compiled pattern to a module-level name

// RUN: not coco-bigtest import pyspark/inputs/regex_refusals.py --entry max_split 2>&1 | FileCheck %s --check-prefix=MAXSPLIT
// MAXSPLIT: coco-bigtest: error: pyspark/inputs/regex_refusals.py:40:62: re.split() with maxsplit is not supported in a UDF

// RUN: not coco-bigtest import pyspark/inputs/regex_refusals.py --entry star 2>&1 | FileCheck %s --check-prefix=STAR
// STAR: coco-bigtest: error: pyspark/inputs/regex_refusals.py:44:48: pattern `\s*`: the quantifier `*` is not supported; a class alone or followed by `+` is
