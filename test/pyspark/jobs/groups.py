"""groupByKey, and len and list of a group's values."""


def pair(line):
    fields = line.split(",")
    return (fields[0], int(fields[1]))


def per_key(lines):
    """Per key: how many values, and the values."""
    groups = lines.map(pair).groupByKey()
    return groups.mapValues(lambda vs: (len(vs), list(vs)))
