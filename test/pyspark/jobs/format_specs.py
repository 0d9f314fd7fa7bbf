"""str.format with a spec, as course jobs write their output lines:
`{0:s}` of a str and `{1:d}` of an int are the text str() gives, and a
field may be used twice."""
import sys

from pyspark import SparkContext

sc = SparkContext()
rows = sc.textFile(sys.argv[1]).map(lambda line: line.split(","))
pairs = rows.map(lambda x: (x[0], int(x[1])))
pairs.map(lambda p: "{0:s}\t{1:d}, {0}".format(p[0], p[1])).saveAsTextFile(sys.argv[2])
