import sys

from pyspark import SparkContext

if __name__ == "__main__":
    sc = SparkContext(appName="dot")
    lines = sc.textFile(".")
    lines.filter(lambda line: line.startswith("E")).saveAsTextFile(sys.argv[1])
