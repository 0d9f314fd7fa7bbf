import sys

from pyspark import SparkContext

sc = SparkContext(appName="driver_print_end")
for line in sc.textFile(sys.argv[1]).collect():
    print(line, end="")
