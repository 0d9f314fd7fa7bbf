"""Lists built element by element in flatMap (a generator def, a list
comprehension, a generator expression) and a driver loop over
range(int(sys.argv[2])), as Apache Spark's pagerank.py writes them.

Usage: generators.py <lines> <rounds>
"""
import sys
from operator import add

from pyspark import SparkContext


def words(line):
    """Each word of the line."""
    for word in line.split():
        yield word


def shares(lengths, weight):
    count = len(lengths)
    for length in lengths:
        if length > 1:
            yield (length, weight / count)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("Usage: generators.py <lines> <rounds>", file=sys.stderr)
        sys.exit(-1)
    sc = SparkContext(appName="generators")
    lines = sc.textFile(sys.argv[1])
    counts = lines.flatMap(words).map(lambda w: (w, 1)).reduceByKey(add)
    lengths = lines.flatMap(lambda line: [(w[0], len(w)) for w in line.split(",") if w != ""])
    spread = lengths.groupByKey().flatMap(lambda kv: shares(kv[1], 1.0))
    for _ in range(int(sys.argv[2])):
        counts = counts.mapValues(lambda c: c * 2).filter(lambda kv: kv[1] < 8)
    firsts = lines.flatMap(lambda line: (p.strip() for p in line.split(";")))
    for word, count in counts.collect():
        print(word, count)
    for length, share in spread.collect():
        print("%d: %s" % (length, share))
    print("pieces:", firsts.count())
    sc.stop()
