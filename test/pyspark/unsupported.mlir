// Python outside the PySpark front end's subset: each construct is an error
// that names it, at its line and column in the Python file, with the line
// quoted under it (docs/pyspark.md lists the subset). One function of
// inputs/unsupported.py per construct, chosen with --entry.

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry dict_literal 2>&1 | FileCheck %s --check-prefix=DICT-LITERAL
// DICT-LITERAL: coco-bigtest: error: pyspark/inputs/unsupported.py:8:35: dict literals are not supported in a UDF
// DICT-LITERAL-NEXT: return lines.map(lambda line: {"line": line})

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry list_comprehension 2>&1 | FileCheck %s --check-prefix=LIST-COMPREHENSION
// LIST-COMPREHENSION: coco-bigtest: error: pyspark/inputs/unsupported.py:12:35: list comprehensions are not supported in a UDF
// LIST-COMPREHENSION-NEXT: return lines.map(lambda line: [w for w in line.split(",")])

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry set_literal 2>&1 | FileCheck %s --check-prefix=SET-LITERAL
// SET-LITERAL: coco-bigtest: error: pyspark/inputs/unsupported.py:16:35: set literals are not supported in a UDF
// SET-LITERAL-NEXT: return lines.map(lambda line: {line})

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry while_loop 2>&1 | FileCheck %s --check-prefix=WHILE-LOOP
// WHILE-LOOP: coco-bigtest: error: pyspark/inputs/unsupported.py:20:5: nested function definitions are not supported in the job's RDD code (assignments, calls and return are)
// WHILE-LOOP-NEXT: def count(line):

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry while_in_udf 2>&1 | FileCheck %s --check-prefix=WHILE-IN-UDF
// WHILE-IN-UDF: coco-bigtest: error: pyspark/inputs/unsupported.py:30:5: while loops (their trip count cannot be bounded) are not supported in a UDF
// WHILE-IN-UDF-NEXT: while n < 3:

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry global_statement 2>&1 | FileCheck %s --check-prefix=GLOBAL-STATEMENT
// GLOBAL-STATEMENT: coco-bigtest: error: pyspark/inputs/unsupported.py:40:5: global statements are not supported in a UDF
// GLOBAL-STATEMENT-NEXT: global counter

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry import_in_udf 2>&1 | FileCheck %s --check-prefix=IMPORT-IN-UDF
// IMPORT-IN-UDF: coco-bigtest: error: pyspark/inputs/unsupported.py:49:5: importing json inside a UDF is not supported (`import re` is; import other names at module level)
// IMPORT-IN-UDF-NEXT: import json

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry unknown_method 2>&1 | FileCheck %s --check-prefix=UNKNOWN-METHOD
// UNKNOWN-METHOD: coco-bigtest: error: pyspark/inputs/unsupported.py:58:40: str.title() is not supported in a UDF (split, strip, lstrip, rstrip, lower, upper, startswith, endswith, find, replace are)
// UNKNOWN-METHOD-NEXT: return lines.map(lambda line: line.title())

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry unknown_builtin 2>&1 | FileCheck %s --check-prefix=UNKNOWN-BUILTIN
// UNKNOWN-BUILTIN: coco-bigtest: error: pyspark/inputs/unsupported.py:62:35: sorted() is not supported in a UDF (builtins: int, float, str, bool, len, abs, min, max, sum, range, tuple; and defs of this file)
// UNKNOWN-BUILTIN-NEXT: return lines.map(lambda line: sorted(line))

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry unknown_name 2>&1 | FileCheck %s --check-prefix=UNKNOWN-NAME
// UNKNOWN-NAME: coco-bigtest: error: pyspark/inputs/unsupported.py:66:42: suffix is not defined here (a UDF sees its parameters, its variables and the file's constants)
// UNKNOWN-NAME-NEXT: return lines.map(lambda line: line + suffix)

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry string_ordering 2>&1 | FileCheck %s --check-prefix=STRING-ORDERING
// STRING-ORDERING: coco-bigtest: error: pyspark/inputs/unsupported.py:70:38: ordering strings (<, >) is not supported in a UDF; == and != are
// STRING-ORDERING-NEXT: return lines.filter(lambda line: line < "m")

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry mixed_types 2>&1 | FileCheck %s --check-prefix=MIXED-TYPES
// MIXED-TYPES: coco-bigtest: error: pyspark/inputs/unsupported.py:74:35: an operation on a str and an int (TypeError in Python, or not supported in a UDF)
// MIXED-TYPES-NEXT: return lines.map(lambda line: line + 1)

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry bare_except 2>&1 | FileCheck %s --check-prefix=BARE-EXCEPT
// BARE-EXCEPT: coco-bigtest: error: pyspark/inputs/unsupported.py:80:5: a bare except is not supported in a UDF; name the exceptions (except ValueError)
// BARE-EXCEPT-NEXT: except:

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry try_finally 2>&1 | FileCheck %s --check-prefix=TRY-FINALLY
// TRY-FINALLY: coco-bigtest: error: pyspark/inputs/unsupported.py:89:5: try ... else and finally are not supported in a UDF
// TRY-FINALLY-NEXT: try:

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry recursion 2>&1 | FileCheck %s --check-prefix=RECURSION
// RECURSION: coco-bigtest: error: pyspark/inputs/unsupported.py:102:12: udf_recursive calls itself; recursion is not supported in a UDF
// RECURSION-NEXT: return udf_recursive(line)

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry keyword_arguments 2>&1 | FileCheck %s --check-prefix=KEYWORD-ARGUMENTS
// KEYWORD-ARGUMENTS: coco-bigtest: error: pyspark/inputs/unsupported.py:110:35: keyword arguments are not supported in a UDF call
// KEYWORD-ARGUMENTS-NEXT: return lines.map(lambda line: line.split(",", maxsplit=1))

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry string_repetition 2>&1 | FileCheck %s --check-prefix=STRING-REPETITION
// STRING-REPETITION: coco-bigtest: error: pyspark/inputs/unsupported.py:114:35: string repetition (str * int) is not supported in a UDF
// STRING-REPETITION-NEXT: return lines.map(lambda line: line * 2)

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry flat_map_values 2>&1 | FileCheck %s --check-prefix=FLAT-MAP-VALUES
// FLAT-MAP-VALUES: coco-bigtest: error: pyspark/inputs/unsupported.py:118:63: a flatMapValues UDF returns a split (list of str) here; this one returns int
// FLAT-MAP-VALUES-NEXT: return lines.map(lambda line: (line, line)).flatMapValues(lambda v: len(v))

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry sort_by 2>&1 | FileCheck %s --check-prefix=SORT-BY
// SORT-BY: coco-bigtest: error: pyspark/inputs/unsupported.py:122:46: sortByKey() with a key function (keyfunc) is not supported yet
// SORT-BY-NEXT: return lines.map(lambda line: (line, 1)).sortByKey(True, 2, lambda k: k.lower())

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry parallelize_in_job 2>&1 | FileCheck %s --check-prefix=PARALLELIZE-IN-JOB
// PARALLELIZE-IN-JOB: coco-bigtest: error: pyspark/inputs/unsupported.py:126:24: the attribute .context of an RDD is not supported in the job's RDD code
// PARALLELIZE-IN-JOB-NEXT: return lines.union(lines.context.parallelize(["x"]))

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry tuple_values_group 2>&1 | FileCheck %s --check-prefix=TUPLE-VALUES-GROUP
// TUPLE-VALUES-GROUP: coco-bigtest: error: pyspark/inputs/unsupported.py:131:18: groupByKey over values of type tuple[int, int] is not supported yet (single values are)
// TUPLE-VALUES-GROUP-NEXT: return pairs.groupByKey()

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry big_int 2>&1 | FileCheck %s --check-prefix=BIG-INT
// BIG-INT: coco-bigtest: error: pyspark/inputs/unsupported.py:135:35: the integer 123456789012345678901234567890 is beyond 64 bits, which coco's df programs hold
// BIG-INT-NEXT: return lines.map(lambda line: 123456789012345678901234567890)

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry negative_split_index 2>&1 | FileCheck %s --check-prefix=NEGATIVE-SPLIT-INDEX
// NEGATIVE-SPLIT-INDEX: coco-bigtest: error: pyspark/inputs/unsupported.py:139:51: index -5 into a list: at most 4 from the end are supported
// NEGATIVE-SPLIT-INDEX-NEXT: return lines.map(lambda line: line.split(",")[-5])

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry class_method 2>&1 | FileCheck %s --check-prefix=CLASS-METHOD
// CLASS-METHOD: coco-bigtest: error: pyspark/inputs/unsupported.py:143:40: str.encode() is not supported in a UDF (split, strip, lstrip, rstrip, lower, upper, startswith, endswith, find, replace are)
// CLASS-METHOD-NEXT: return lines.map(lambda line: line.encode())

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry walrus 2>&1 | FileCheck %s --check-prefix=WALRUS
// WALRUS: coco-bigtest: error: pyspark/inputs/unsupported.py:147:39: assignment expressions (:=) are not supported in a UDF
// WALRUS-NEXT: return lines.filter(lambda line: (n := len(line)) > 3)

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry lambda_in_udf 2>&1 | FileCheck %s --check-prefix=LAMBDA-IN-UDF
// LAMBDA-IN-UDF: coco-bigtest: error: pyspark/inputs/unsupported.py:151:36: calling a lambda is not supported in a UDF
// LAMBDA-IN-UDF-NEXT: return lines.map(lambda line: (lambda x: x)(line))

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry flat_map_pairs 2>&1 | FileCheck %s --check-prefix=FLAT-MAP-PAIRS
// FLAT-MAP-PAIRS: coco-bigtest: error: pyspark/inputs/unsupported.py:155:26: a flatMap UDF returns a split (list of str) here; this one returns tuple[str, int]
// FLAT-MAP-PAIRS-NEXT: return lines.flatMap(lambda line: (line, 1))

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry unpack_a_split 2>&1 | FileCheck %s --check-prefix=UNPACK-A-SPLIT
// UNPACK-A-SPLIT: coco-bigtest: error: pyspark/inputs/unsupported.py:159:5: unpacking a split into variables is not supported yet; index it (fields[0], fields[1])
// UNPACK-A-SPLIT-NEXT: a, b = line.split(",")

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry always_raises 2>&1 | FileCheck %s --check-prefix=ALWAYS-RAISES
// ALWAYS-RAISES: coco-bigtest: error: pyspark/inputs/unsupported.py:168:22: this UDF raises on every path; it has no result type
// ALWAYS-RAISES-NEXT: return lines.map(udf_raise)

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry print_in_job 2>&1 | FileCheck %s --check-prefix=PRINT-IN-JOB
// PRINT-IN-JOB: coco-bigtest: error: pyspark/inputs/unsupported.py:176:5: print() in the function under test: return the RDD, or read the file as a script (its `__main__` block), whose prints are its output
// PRINT-IN-JOB-NEXT: print(lines.count())

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry returns_nothing 2>&1 | FileCheck %s --check-prefix=RETURNS-NOTHING
// RETURNS-NOTHING: coco-bigtest: error: pyspark/inputs/unsupported.py:181:5: a call of .map() whose result is dropped: the job's RDD code assigns, returns or saves its RDDs
// RETURNS-NOTHING-NEXT: lines.map(lambda line: line)

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry operator_after_action 2>&1 | FileCheck %s --check-prefix=OPERATOR-AFTER-ACTION
// OPERATOR-AFTER-ACTION: coco-bigtest: error: pyspark/inputs/unsupported.py:185:28: map() of the result of collect(): it is a value of the driver, not an RDD
// OPERATOR-AFTER-ACTION-NEXT: return lines.collect().map(len)

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry fold_changes_type 2>&1 | FileCheck %s --check-prefix=FOLD-CHANGES-TYPE
// FOLD-CHANGES-TYPE: coco-bigtest: error: pyspark/inputs/unsupported.py:189:53: reduce's function must return int like the records; this one returns str
// FOLD-CHANGES-TYPE-NEXT: return lines.map(lambda line: len(line)).reduce(lambda a, b: str(a + b))

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry break_in_unrolled_loop 2>&1 | FileCheck %s --check-prefix=BREAK-IN-UNROLLED-LOOP
// BREAK-IN-UNROLLED-LOOP: coco-bigtest: error: pyspark/inputs/unsupported.py:195:13: break and continue are supported in a loop over a list, not in one unrolled over a range or tuple
// BREAK-IN-UNROLLED-LOOP-NEXT: break

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry loop_changes_type 2>&1 | FileCheck %s --check-prefix=LOOP-CHANGES-TYPE
// LOOP-CHANGES-TYPE: coco-bigtest: error: pyspark/inputs/unsupported.py:205:5: n is a str here and an int elsewhere; a value must keep one type
// LOOP-CHANGES-TYPE-NEXT: for word in line.split():

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry sum_of_strings 2>&1 | FileCheck %s --check-prefix=SUM-OF-STRINGS
// SUM-OF-STRINGS: coco-bigtest: error: pyspark/inputs/unsupported.py:215:35: sum() of a list of str is not supported in a UDF (of ints or floats is)
// SUM-OF-STRINGS-NEXT: return lines.map(lambda line: sum(line.split()))

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry nullable_values_reduce 2>&1 | FileCheck %s --check-prefix=NULLABLE-VALUES-REDUCE
// NULLABLE-VALUES-REDUCE: coco-bigtest: error: pyspark/inputs/unsupported.py:220:18: reduceByKey over values of type int | None is not supported yet (ints, floats, strs and tuples of them are)
// NULLABLE-VALUES-REDUCE-NEXT: return pairs.reduceByKey(lambda a, b: a)

// DataFrame code, which the front end does not read yet, is named as such
// rather than reported as a malformed RDD job.
// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry dataframe_column_filter 2>&1 | FileCheck %s --check-prefix=DF-FILTER
// DF-FILTER: coco-bigtest: error: pyspark/inputs/unsupported.py:224:26: filter() of a Column expression is DataFrame code in a job read as RDD code: a DataFrame job is a function whose parameters are annotated DataFrame, each with its schema in a module constant (orders: DataFrame and ORDERS_SCHEMA; docs/pyspark.md)
// DF-FILTER-NEXT: from_col = df.filter(df.amount > 0)

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry dataframe_group_by 2>&1 | FileCheck %s --check-prefix=DF-GROUP-BY
// DF-GROUP-BY: coco-bigtest: error: pyspark/inputs/unsupported.py:229:15: groupBy() is DataFrame code in a job read as RDD code
// DF-GROUP-BY-NEXT: return df.groupBy("day").count()

// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry dataframe_reader 2>&1 | FileCheck %s --check-prefix=DF-READER
// DF-READER: coco-bigtest: error: pyspark/inputs/unsupported.py:235:12: DataFrameReader.csv() is DataFrame code
// DF-READER-NEXT: return spark.read.csv(path, header=True)

// str.format reads `{0:s}` of a str and `{0:d}` of an int (format_specs.py
// runs on Spark); another spec, or one that does not fit the value, is
// refused.
// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry format_spec_of_int 2>&1 | FileCheck %s --check-prefix=FORMAT-SPEC-INT
// FORMAT-SPEC-INT: coco-bigtest: error: pyspark/inputs/unsupported.py:239:43: {0:s} of a value that is not a str (ValueError or TypeError in Python)
// RUN: not coco-bigtest import pyspark/inputs/unsupported.py --entry format_spec_float 2>&1 | FileCheck %s --check-prefix=FORMAT-SPEC-FLOAT
// FORMAT-SPEC-FLOAT: coco-bigtest: error: pyspark/inputs/unsupported.py:243:44: the format spec of {:.2f} is not supported in a UDF (:s of a str and :d of an int are)
