"""A __main__ script: bytes per status code of an access log.

Usage: script.py <access.log>  (writes the folder bytes_per_status)
"""
import sys

from pyspark import SparkContext


def status_bytes(line):
    fields = line.split(" ")
    return (fields[0], int(fields[1]))


if __name__ == "__main__":
    sc = SparkContext(appName="bytes_per_status")
    log = sc.textFile(sys.argv[1])
    totals = log.filter(lambda line: line != "").map(status_bytes).reduceByKey(lambda a, b: a + b)
    totals.saveAsTextFile("bytes_per_status")
    sc.stop()
