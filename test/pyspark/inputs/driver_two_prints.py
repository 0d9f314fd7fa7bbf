import sys

from pyspark import SparkContext

sc = SparkContext(appName="driver_two_prints")
for line in sc.textFile(sys.argv[1]).collect():
    print(line)
    print(len(line))
