"""A script at module level, as tutorials write them: a usage check, a
SparkSession, the rows of spark.read.text, operator and builtin functions,
and prints of collected records (in any order, sorted by Spark, sorted in
the driver; a pair, written by Python's own str(); the first records of
take and top; the items of countByKey), of constant text and of counts."""
import sys
from operator import add, itemgetter

from pyspark.sql import SparkSession

if len(sys.argv) < 2:
    print("usage: script_printed.py <scores.txt>", file=sys.stderr)
    sys.exit(1)

spark = SparkSession.builder.appName("script_printed").getOrCreate()
path = sys.argv[1]
lines = spark.read.text(path).rdd.map(lambda r: r.value)
pairs = lines.filter(lambda line: "," in line).map(
    lambda line: (line.split(",")[0], int(line.split(",")[1]))
)
totals = pairs.reduceByKey(add)
best = pairs.reduceByKey(max)
print("Totals:")
for name, total in totals.collect():
    print(name, total, sep="\t")
print("Best, highest first:")
for name, score in best.sortBy(itemgetter(1), ascending=False).collect():
    print(f"{name}: {score}")
output = totals.collect()
for (name, total) in sorted(output):
    print("%s=%d" % (name, total))
for record in best.mapValues(lambda score: score / 2).collect():
    print(record)
for name, total in totals.top(2, key=lambda pair: pair[1]):
    print(name, total)
for name, score in pairs.take(2):
    print(name.upper(), score)
for name, count in sorted(pairs.countByKey().items()):
    print("{} scored {} times".format(name, count))
n = pairs.count()
print(f"{n} scores, {n / 3:.2f} a third;", "%d names" % totals.count(), sep=" ")
spark.stop()
