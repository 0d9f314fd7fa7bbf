"""csv.reader as jobs use it: mapPartitions(reader) over the lines of a
file (NYC parking course jobs), next(csv.reader([line])) in a UDF, and a
leftOuterJoin's absent side compared with `!=` (None != "open" is True in
Python: equality takes None as a value), and a file read twice
(sys.argv[1]), which is one input: both reads see the same lines."""
import csv
import sys
from csv import reader

from pyspark import SparkContext


def plate_state(line):
    row = next(csv.reader([line]))
    if len(row) < 2:
        return "?"
    return row[1]


sc = SparkContext()
tickets = sc.textFile(sys.argv[1], 1).mapPartitions(lambda x: reader(x))
fines = tickets.map(lambda x: (x[0], x[2]))
opened = sc.textFile(sys.argv[2], 1).mapPartitions(reader).map(lambda x: (x[0], "open"))
closed = fines.leftOuterJoin(opened).filter(lambda x: x[1][1] != "open")
closed.map(lambda x: "{0:s}\t{1:s}".format(x[0], x[1][0])).saveAsTextFile(sys.argv[3])
sc.textFile(sys.argv[1]).map(plate_state).saveAsTextFile(sys.argv[4])
