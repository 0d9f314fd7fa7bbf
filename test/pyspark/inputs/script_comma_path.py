import sys

from pyspark import SparkContext

if __name__ == "__main__":
    sc = SparkContext(appName="comma")
    lines = sc.textFile("a,/etc/hostname")
    lines.filter(lambda line: line.startswith("E")).saveAsTextFile(sys.argv[1])
