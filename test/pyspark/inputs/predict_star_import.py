from pyspark.sql.functions import *


def total(lines):
    return lines.map(lambda line: sum(line.split(",")))
