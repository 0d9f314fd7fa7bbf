"""None as text: str(), %s and f-strings of None give "None", as Python does
(also on the absent side of an outer join), never a TypeError."""


def pair(line):
    fields = line.split(",")
    return (fields[0], fields[1])


def maybe_number(text):
    if text == "":
        return None
    return int(text)


def labels(left_lines, right_lines, numbers):
    """Outer-join sides and optional values printed as text."""
    left = left_lines.map(pair)
    right = right_lines.map(pair)
    joined = left.leftOuterJoin(right).map(
        lambda kv: kv[0] + "=" + str(kv[1][1]) + "|" + "%s" % (kv[1][1],)
    )
    parsed = numbers.map(lambda line: f"{maybe_number(line)}:{None}")
    return joined, parsed
