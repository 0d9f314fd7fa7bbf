"""Keyed operators: mapValues, keys, values, joins (inner and the three outer), union, distinct."""


def pair(line):
    fields = line.split(",")
    return (fields[0], int(fields[1]))


def keyed(left_lines, right_lines):
    """Joins of two keyed inputs, and the operators around them."""
    left = left_lines.map(pair)
    right = right_lines.map(pair)
    inner = left.join(right).mapValues(lambda v: v[0] + v[1])
    outer = left.leftOuterJoin(right).mapValues(lambda v: v[0] if v[1] is None else v[0] - v[1])
    merged = left.keys().union(right.keys()).distinct()
    either = left.fullOuterJoin(right).mapValues(
        lambda v: (0 if v[0] is None else v[0]) - (0 if v[1] is None else v[1])
    )
    return inner, outer, merged, right.rightOuterJoin(left).values(), either
