import sys
from csv import reader

from pyspark import SparkContext

sc = SparkContext(appName="script_map_partitions")
rows = sc.textFile(sys.argv[1]).mapPartitions(lambda lines: reader(lines))
rows.map(lambda row: row[0]).saveAsTextFile(sys.argv[2])
