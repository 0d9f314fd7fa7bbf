"""Tuple keys, as jobs count pairs (`((state, plate), 1)`): reduceByKey and
leftOuterJoin over them are df's operators with a key of two fields
(`keys 2`), folded or matched only where both fields are equal."""
import sys
from operator import add

from pyspark import SparkContext

sc = SparkContext()
rows = sc.textFile(sys.argv[1]).map(lambda line: line.split(","))
pairs = rows.map(lambda x: ((x[0], x[1]), 1)).reduceByKey(add)
limits = sc.textFile(sys.argv[2]).map(lambda line: line.split(",")).map(lambda x: ((x[0], x[1]), int(x[2])))
over = pairs.leftOuterJoin(limits).filter(lambda kv: kv[1][1] is None or kv[1][0] > kv[1][1])
over.map(lambda kv: kv[0][0] + "/" + kv[0][1] + "\t" + str(kv[1][0])).saveAsTextFile(sys.argv[3])
