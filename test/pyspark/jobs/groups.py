"""groupByKey, and len, list, sum, min and max of a group's values."""


def pair(line):
    fields = line.split(",")
    return (fields[0], int(fields[1]))


def spread(values):
    return max(values) - min(values)


def per_key(lines):
    """Per key: how many values, and the values; their sum and spread; the
    largest half value (floats)."""
    groups = lines.map(pair).groupByKey()
    listed = groups.mapValues(lambda vs: (len(vs), list(vs)))
    totals = groups.mapValues(lambda vs: (sum(vs), spread(vs)))
    halves = lines.map(pair).mapValues(lambda v: v / 2).groupByKey()
    return listed, totals, halves.mapValues(lambda vs: (max(vs), sum(vs)))
