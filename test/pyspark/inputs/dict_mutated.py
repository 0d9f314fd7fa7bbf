from pyspark import RDD

CODES = {200: "OK"}
CODES.update({404: "Not Found"})


def names(lines: RDD) -> RDD:
    return lines.map(lambda line: CODES[int(line)])
