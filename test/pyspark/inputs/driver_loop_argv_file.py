import sys

from pyspark import SparkContext

sc = SparkContext(appName="driver_loop_argv_file")
lines = sc.textFile(sys.argv[1])
for _ in range(int(sys.argv[1])):
    lines = lines.map(lambda l: l.strip())
lines.saveAsTextFile("out")
