import sys

from pyspark import SparkContext

if __name__ == "__main__":
    sc = SparkContext(appName="same")
    lines = sc.textFile(sys.argv[1])
    lines.filter(lambda line: line.startswith("E")).saveAsTextFile(sys.argv[1])
