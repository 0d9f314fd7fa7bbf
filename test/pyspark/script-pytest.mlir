// --pytest for a __main__ script: each test writes the case's files where
// the script reads them (sys.argv[N] or a relative constant path under the
// test's working directory), runs the script (in the test process, on the
// Spark context all tests share) and reads back what saveAsTextFile wrote. The pyspark::examples trial runs
// such a module on Spark (test/pyspark/jobs/script.py: an argv input and a
// relative output folder).
// RUN: coco-bigtest generate pyspark/inputs/script_paths.py -o %t/data --pytest %t/test_paths.py | FileCheck %s
// CHECK: pytest module written to

// A file the test cannot place is an error naming what the script does.
// RUN: not coco-bigtest generate pyspark/inputs/script_argv_gap.py -o %t/gap --pytest %t/test_gap.py 2>&1 | FileCheck %s --check-prefix=GAP
// GAP: coco-bigtest: error: --pytest: the script reads sys.argv[3] but no file of it is sys.argv[2]; a test cannot tell what to pass there
// A fixed path outside the test's folder (absolute, a URI, or climbing out
// with ..) is moved: the test runs the script with the case's file in its
// place (run_job patches textFile, DataFrameReader.text and
// saveAsTextFile while the script runs), so nothing is read or written outside the folder
// (test/pyspark/jobs/script_fixed_paths.py runs such a module on Spark).
// RUN: coco-bigtest generate pyspark/inputs/script_fixed_path.py -o %t/fixed --pytest %t/test_fixed.py | FileCheck %s --check-prefix=WRITTEN
// WRITTEN: pytest module written to
// RUN: FileCheck %s --check-prefix=FIXED --input-file=%t/test_fixed.py
// FIXED: (SparkContext, "textFile", moving(SparkContext.textFile)),
// FIXED: (RDD, "saveAsTextFile", moving(RDD.saveAsTextFile)),
// FIXED: runpy.run_path(str(JOB_FILE), run_name="__main__")
// FIXED: [(("moved", "/var/log/app.log"), [
// RUN: coco-bigtest generate pyspark/inputs/script_parent_path.py -o %t/parent --pytest %t/test_parent.py | FileCheck %s --check-prefix=WRITTEN
// RUN: FileCheck %s --check-prefix=PARENT --input-file=%t/test_parent.py
// PARENT: [("moved", "out/../../errors")],

// Paths Hadoop reads otherwise than the test writes them: a comma is a list
// of paths (this one reads /etc/hostname), a backslash escapes in a glob
// (`a\b.txt` reads `ab.txt`), a name starting with _ or . is skipped as
// hidden (the job fails: no input), `.` is the whole folder, and one path
// read and saved to cannot be both. Each was checked on Spark 3.5.
// RUN: not coco-bigtest generate pyspark/inputs/script_comma_path.py -o %t/comma --pytest %t/test_comma.py 2>&1 | FileCheck %s --check-prefix=COMMA
// COMMA: error: --pytest: the script's input (sc.textFile) is the fixed path "a,/etc/hostname" (Hadoop reads a comma as a list of paths)
// RUN: not coco-bigtest generate pyspark/inputs/script_backslash_path.py -o %t/backslash --pytest %t/test_backslash.py 2>&1 | FileCheck %s --check-prefix=BACKSLASH
// BACKSLASH: error: source "lines" at pyspark/inputs/script_backslash_path.py:7:13: data file "a\\b.txt" contains a path separator
// RUN: not coco-bigtest generate pyspark/inputs/script_hidden_path.py -o %t/hidden --pytest %t/test_hidden.py 2>&1 | FileCheck %s --check-prefix=HIDDEN
// HIDDEN: error: --pytest: the script's input (sc.textFile) is the fixed path "_logs.txt" (Hadoop skips a name starting with _ or . as hidden)
// RUN: not coco-bigtest generate pyspark/inputs/script_dot_path.py -o %t/dot --pytest %t/test_dot.py 2>&1 | FileCheck %s --check-prefix=DOT
// DOT: error: --pytest: the script's input (sc.textFile) is the fixed path "." (the test's folder itself)
// RUN: not coco-bigtest generate pyspark/inputs/script_same_path.py -o %t/same --pytest %t/test_same.py 2>&1 | FileCheck %s --check-prefix=SAME
// SAME: error: --pytest: the script saves to sys.argv[1], which it also reads or saves to elsewhere; a test cannot give one path two roles
