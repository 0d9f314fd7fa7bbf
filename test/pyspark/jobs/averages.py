"""Average reading per sensor: reduceByKey over (sum, count) tuples."""


def parse(line):
    fields = line.split(",")
    return (fields[0], (float(fields[1]), 1))


def add(a, b):
    return (a[0] + b[0], a[1] + b[1])


def averages(lines):
    sums = lines.map(parse).reduceByKey(add)
    return sums.mapValues(lambda s: s[0] / s[1])
