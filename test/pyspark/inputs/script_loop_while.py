import sys

from pyspark import SparkContext

sc = SparkContext(appName="script_loop_while")
for line in sc.textFile(sys.argv[1]).collect():
    while line:
        line = line[1:]
    print(line)
