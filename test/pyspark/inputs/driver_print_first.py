import sys

from pyspark import SparkContext

sc = SparkContext(appName="driver_print_count")
lines = sc.textFile(sys.argv[1])
print("first:", lines.first())
