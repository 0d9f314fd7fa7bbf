import re
import sys

from pyspark import SparkContext


def request_pattern():
    word = "(\\S+)"
    return re.compile("{} {}".format(word, word))


if __name__ == "__main__":
    sc = SparkContext()
    pattern = request_pattern()
    sc.textFile(sys.argv[1]).map(lambda line: line.upper()).saveAsTextFile(sys.argv[2])
