"""Dicts of constants read by UDFs, as log jobs map codes to names: a
module-level dict indexed (KeyError for a code it lacks) and read with
.get(k, default), a broadcast of one read through .value in a def and in a
lambda, and a dict literal in the UDF itself."""
import sys

from pyspark import SparkContext

STATUS = {200: "OK", 404: "Not Found", 500: "Server Error"}
LEVELS = {"E": "error", "W": "warning"}

sc = SparkContext(appName="dict_lookup")
names = sc.broadcast({"GET": "read", "POST": "write"})


def status_name(line):
    fields = line.split(" ")
    return (STATUS[int(fields[1])], names.value.get(fields[0], "other"))


lines = sc.textFile(sys.argv[1])
statuses = lines.filter(lambda line: " " in line).map(status_name)
levels = lines.map(lambda line: LEVELS.get(line[:1], "info"))
verbs = lines.filter(lambda line: line.startswith(("GET", "POST"))).map(
    lambda line: names.value[line.split(" ")[0]]
)
signs = lines.map(lambda line: {"+": 1, "-": -1}.get(line[-1:], 0))
statuses.saveAsTextFile(sys.argv[2])
for level in levels.collect():
    print(level)
for verb in verbs.collect():
    print(verb)
for sign in signs.collect():
    print(sign)
