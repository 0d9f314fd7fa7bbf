"""try/except around parses and indexes: malformed records are skipped, not fatal."""


def parse(line):
    try:
        fields = line.split(";")
        return (fields[0], int(fields[1]))
    except (ValueError, IndexError):
        return None


def totals(lines):
    """Sums per key of well-formed "key;count" lines."""
    parsed = lines.map(parse).filter(lambda r: r is not None)
    return parsed.reduceByKey(lambda a, b: a + b)

