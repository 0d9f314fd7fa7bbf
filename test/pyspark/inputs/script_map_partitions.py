import sys

from pyspark import SparkContext

sc = SparkContext(appName="script_map_partitions")
rows = sc.textFile(sys.argv[1]).mapPartitions(lambda lines: (line.upper() for line in lines))
rows.map(lambda row: row[0]).saveAsTextFile(sys.argv[2])
