"""try/except ValueError around float(): a default instead of a failure."""


def parse_float(line):
    try:
        return float(line)
    except ValueError:
        return -1.0


def floats(lines):
    """Parsed floats, -1.0 where a line is not a number."""
    return lines.map(parse_float)
