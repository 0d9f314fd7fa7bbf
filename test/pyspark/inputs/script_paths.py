import sys

from pyspark import SparkContext

if __name__ == "__main__":
    sc = SparkContext(appName="paths")
    lines = sc.textFile("logs/app.log")
    lines.filter(lambda line: line.startswith("E")).saveAsTextFile(sys.argv[1])
