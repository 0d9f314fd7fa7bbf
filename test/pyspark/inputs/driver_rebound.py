import sys
from pyspark import SparkContext

sc = SparkContext(appName="dk")
limit = 3
words = sc.textFile(sys.argv[1]).flatMap(lambda line: line.split())
long_words = words.filter(lambda w: len(w) > limit)
limit = 5
for word in sorted(long_words.countByValue()):
    print(word)
