import sys

from pyspark import SparkContext


def word_count(lines):
    """Words of three letters or more, counted."""
    words = lines.flatMap(lambda line: line.split())
    longer = words.filter(lambda word: len(word) >= 3)
    return longer.map(lambda word: (word.lower(), 1)).reduceByKey(lambda a, b: a + b)


if __name__ == "__main__":
    sc = SparkContext(appName="word count")
    word_count(sc.textFile(sys.argv[1])).saveAsTextFile(sys.argv[2])
