"""len() of a split, as access-log jobs check a request's shape: the URL of
a three-piece request, the third word of lines of more than two words (its
missing-piece path is infeasible; test/bigtest/split-size.mlir is the same
job in df), and the last piece of a path as `xs[len(xs) - 1]` (`xs[-1]`)."""
import sys

from pyspark import SparkContext


def url_of(request):
    parts = request.split(" ")
    if len(parts) == 3:
        return parts[1]
    else:
        return "invalid"


sc = SparkContext(appName="split_len")
lines = sc.textFile(sys.argv[1])
urls = lines.map(url_of)
third = lines.filter(lambda line: len(line.split()) > 2).map(lambda line: line.split()[2])
last = lines.map(lambda line: line.split("/")[len(line.split("/")) - 1])
urls.saveAsTextFile(sys.argv[2])
for word in third.collect():
    print(word)
for name in last.collect():
    print("last:", name)
