import sys

from pyspark import SparkContext

sc = SparkContext(appName="script_list_collect")
fields = sc.textFile(sys.argv[1]).map(lambda line: line.split(","))
for tokens in fields.collect():
    print(tokens)
