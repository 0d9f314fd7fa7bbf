import sys

from pyspark import SparkContext

sc = SparkContext(appName="driver_loop_steps")
lines = sc.textFile(sys.argv[1])
for step in range(1, 7, 2):
    lines = lines.filter(lambda l: len(l) > 1)
lines.saveAsTextFile("out")
