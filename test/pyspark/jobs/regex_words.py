"""Python's re in UDFs, the ways jobs call it: re.split of a module-level
compiled pattern (word counts), re.findall on the module with a flag, a
name imported from re, and an import inside the function. Each pattern is
one character class, alone or with `+` (test/bigtest/regex-split.mlir is
the same kind of program in df)."""
import re
import sys
from re import split as resplit

from pyspark import SparkContext

WORD = re.compile(r"\W+", re.UNICODE)
FIELD_SEPARATOR = "[,;]"


def words(line):
    return WORD.split(line.lower())


def second_field(line):
    fields = resplit(FIELD_SEPARATOR, line)
    if len(fields) > 1:
        return fields[1]
    return "-"


def numbers(line):
    import re as regex

    return regex.findall(r"[0-9]+", line, flags=regex.ASCII)


sc = SparkContext(appName="regex_words")
lines = sc.textFile(sys.argv[1])
counts = (
    lines.flatMap(words)
    .filter(lambda w: w != "")
    .map(lambda w: (w, 1))
    .reduceByKey(lambda a, b: a + b)
)
counts.saveAsTextFile(sys.argv[2])
lines.map(second_field).saveAsTextFile(sys.argv[3])
lines.flatMap(numbers).map(lambda n: int(n)).saveAsTextFile(sys.argv[4])
