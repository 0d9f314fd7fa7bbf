import operator
import sys

from pyspark import SparkContext

sc = SparkContext(appName="driver_operator")
pairs = sc.textFile(sys.argv[1]).map(lambda line: (line, 1))
for word, n in pairs.reduceByKey(operator.xor).collect():
    print(word, n, end="")
