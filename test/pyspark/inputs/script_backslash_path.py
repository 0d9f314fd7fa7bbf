import sys

from pyspark import SparkContext

if __name__ == "__main__":
    sc = SparkContext(appName="backslash")
    lines = sc.textFile("a\\b.txt")
    lines.filter(lambda line: line.startswith("E")).saveAsTextFile(sys.argv[1])
