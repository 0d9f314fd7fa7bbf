import sys

from pyspark import SparkContext

sc = SparkContext(appName="driver_if_data")
lines = sc.textFile(sys.argv[1])
if lines.count() > 10:
    lines.saveAsTextFile("many")
