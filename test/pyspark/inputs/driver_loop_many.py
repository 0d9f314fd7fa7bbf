import sys

from pyspark import SparkContext

sc = SparkContext(appName="driver_loop_many")
lines = sc.textFile(sys.argv[1])
for _ in range(100):
    lines = lines.map(lambda l: l.strip())
lines.saveAsTextFile("out")
