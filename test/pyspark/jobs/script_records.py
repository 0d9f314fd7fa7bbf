"""A script as course material writes them: a DataFrame reader bound to a
name and read through its .rdd, records that hold a split (joined to the
map and filter that read them), a loop body of several statements
(assignments, if/else, continue, a print to stderr), sorted() bound to a
name and OrderedDict(sorted(...)) of countByValue's dict."""
import collections
import sys

from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("script_records").getOrCreate()
frame = spark.read.text(sys.argv[1])
lines = frame.rdd.map(lambda row: row[0])
fields = lines.filter(lambda line: "," in line).map(lambda line: line.split(","))
kept = fields.filter(lambda tokens: tokens[0] != "")
pairs = kept.map(lambda tokens: (tokens[0], int(tokens[1])))
for name, amount in pairs.collect():
    label = name.upper()
    if amount < 0:
        print("refund", label, file=sys.stderr)
        continue
    elif amount == 0:
        print(label, "free")
    else:
        share = amount / 2
        print(label, "%.2f" % share)
totals = sorted(pairs.reduceByKey(lambda a, b: a + b).collect())
for name, total in totals:
    print(name, total, sep=":")
counts = collections.OrderedDict(sorted(pairs.keys().countByValue().items()))
for name, count in counts.items():
    print(name, count)
spark.stop()
