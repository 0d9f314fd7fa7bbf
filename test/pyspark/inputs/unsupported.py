# One construct outside the PySpark front end's subset per function:
# test/pyspark/unsupported.mlir imports each with --entry and checks the
# located error that names it.
import sys


def dict_literal(lines):
    return lines.map(lambda line: {"line": line})


def list_comprehension(lines):
    return lines.map(lambda line: [w for w in line.split(",")])


def set_literal(lines):
    return lines.map(lambda line: {line})


def while_loop(lines):
    def count(line):
        n = 0
        while n < 3:
            n += 1
        return n
    return lines.map(count)


def udf_while(line):
    n = 0
    while n < 3:
        n += 1
    return n


def while_in_udf(lines):
    return lines.map(udf_while)


def udf_global(line):
    global counter
    return line


def global_statement(lines):
    return lines.map(udf_global)


def udf_import(line):
    import json
    return line


def import_in_udf(lines):
    return lines.map(udf_import)


def unknown_method(lines):
    return lines.map(lambda line: line.title())


def unknown_builtin(lines):
    return lines.map(lambda line: sorted(line))


def unknown_name(lines):
    return lines.map(lambda line: line + suffix)


def string_ordering(lines):
    return lines.filter(lambda line: line < "m")


def mixed_types(lines):
    return lines.map(lambda line: line + 1)


def udf_bare_except(line):
    try:
        return int(line)
    except:
        return 0


def bare_except(lines):
    return lines.map(udf_bare_except)


def udf_finally(line):
    try:
        return int(line)
    except ValueError:
        return 0
    finally:
        pass


def try_finally(lines):
    return lines.map(udf_finally)


def udf_recursive(line):
    return udf_recursive(line)


def recursion(lines):
    return lines.map(udf_recursive)


def keyword_arguments(lines):
    return lines.map(lambda line: line.split(",", maxsplit=1))


def string_repetition(lines):
    return lines.map(lambda line: line * 2)


def flat_map_values(lines):
    return lines.map(lambda line: (line, line)).flatMapValues(lambda v: len(v))


def sort_by(lines):
    return lines.map(lambda line: (line, 1)).sortByKey(True, 2, lambda k: k.lower())


def parallelize_in_job(lines):
    return lines.union(lines.context.parallelize(["x"]))


def tuple_values_group(lines):
    pairs = lines.map(lambda line: (line, (1, 2)))
    return pairs.groupByKey()


def big_int(lines):
    return lines.map(lambda line: 123456789012345678901234567890)


def negative_split_index(lines):
    return lines.map(lambda line: line.split(",")[-5])


def class_method(lines):
    return lines.map(lambda line: line.encode())


def walrus(lines):
    return lines.filter(lambda line: (n := len(line)) > 3)


def lambda_in_udf(lines):
    return lines.map(lambda line: (lambda x: x)(line))


def flat_map_pairs(lines):
    return lines.flatMap(lambda line: (line, 1))


def udf_unpack_split(line):
    a, b = line.split(",")
    return a


def unpack_a_split(lines):
    return lines.map(udf_unpack_split)


def always_raises(lines):
    return lines.map(udf_raise)


def udf_raise(line):
    raise ValueError("no")


def print_in_job(lines):
    print(lines.count())
    return lines


def returns_nothing(lines):
    lines.map(lambda line: line)


def operator_after_action(lines):
    return lines.collect().map(len)


def fold_changes_type(lines):
    return lines.map(lambda line: len(line)).reduce(lambda a, b: str(a + b))


def first_digit(line):
    for i in range(3):
        if line[i] == "0":
            break
    return line


def break_in_unrolled_loop(lines):
    return lines.map(first_digit)


def last_word_count(line):
    n = 0
    for word in line.split():
        n = word
    return n


def loop_changes_type(lines):
    return lines.map(last_word_count)


def sum_of_strings(lines):
    return lines.map(lambda line: sum(line.split()))


def nullable_values_reduce(lines):
    pairs = lines.map(lambda line: (line, 1 if line else None))
    return pairs.reduceByKey(lambda a, b: a)


def dataframe_column_filter(df):
    from_col = df.filter(df.amount > 0)
    return from_col


def dataframe_group_by(df):
    return df.groupBy("day").count()


def dataframe_reader(path):
    from pyspark.sql import SparkSession
    spark = SparkSession.builder.getOrCreate()
    return spark.read.csv(path, header=True)


def format_spec_of_int(lines):
    return lines.map(lambda line: "{0:s}".format(len(line)))


def format_spec_float(lines):
    return lines.map(lambda line: "{:.2f}".format(float(line)))
