import sys

from pyspark import SparkContext

if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("usage: driver_exit.py <in> <out>", file=sys.stderr)
        sys.exit(-1)
    sc = SparkContext(appName="driver_exit")
    sc.textFile(sys.argv[1]).map(lambda line: line.upper()).saveAsTextFile("upper")
