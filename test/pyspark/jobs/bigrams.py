"""Pairs of neighbouring words, as bigram jobs write them: a comprehension
over range(len(words) - 1) indexing the split (a computed index), and a
loop over zip(xs, xs[1:]) unpacked into two names.

Usage: bigrams.py <lines> <output folder>
"""
import sys
from operator import add

from pyspark import SparkContext

sc = SparkContext(appName="bigrams")
lines = sc.textFile(sys.argv[1])
words = lines.map(lambda line: line.split(" "))
pairs = words.flatMap(lambda ws: [((ws[i], ws[i + 1]), 1) for i in range(len(ws) - 1)])
pairs.reduceByKey(add).saveAsTextFile(sys.argv[2])
joined = lines.flatMap(lambda l: [a + "-" + b for a, b in zip(l.split(","), l.split(",")[1:]) if a != b])
for text in joined.collect():
    print(text)
sc.stop()
