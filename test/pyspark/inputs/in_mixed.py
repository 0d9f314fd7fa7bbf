import sys

from pyspark import SparkContext

sc = SparkContext(appName="in_mixed")
lines = sc.textFile(sys.argv[1])
lines.filter(lambda line: line in ("a", 1)).saveAsTextFile(sys.argv[2])
