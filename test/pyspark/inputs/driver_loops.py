import sys

from pyspark import SparkContext

sc = SparkContext(appName="driver_loops")
lines = sc.textFile(sys.argv[1])
for _ in range(lines.count()):
    lines = lines.map(lambda l: l[1:])
lines.saveAsTextFile("out")
