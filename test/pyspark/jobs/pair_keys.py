"""reduceByKey over a tuple key, as jobs count pairs (`((state, plate),
1)`): df's key of two fields (`keys 2`), folded only where both fields
are equal."""
import sys
from operator import add

from pyspark import SparkContext

sc = SparkContext()
rows = sc.textFile(sys.argv[1]).map(lambda line: line.split(","))
pairs = rows.map(lambda x: ((x[0], x[1]), 1)).reduceByKey(add)
pairs.map(lambda p: p[0][0] + "/" + p[0][1] + "\t" + str(p[1])).saveAsTextFile(sys.argv[2])
