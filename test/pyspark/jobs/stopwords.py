"""Membership in collections of constants, as word counts drop stop words:
a module-level set, a tuple literal, and the keys of a dict."""
import sys
from operator import add

from pyspark import SparkContext

STOPWORDS = {"the", "a", "of"}
LENGTHS = {3: "three", 5: "five"}

sc = SparkContext(appName="stopwords")
lines = sc.textFile(sys.argv[1])
words = lines.flatMap(lambda line: line.split()).filter(lambda word: word not in STOPWORDS)
short = words.filter(lambda word: len(word) in (1, 2))
sized = lines.map(lambda line: LENGTHS[len(line)] if len(line) in LENGTHS else "other")
words.map(lambda word: (word, 1)).reduceByKey(add).saveAsTextFile(sys.argv[2])
for word in short.collect():
    print(word)
for size in sized.collect():
    print(size)
