def map_2(lines):
    return lines.map(lambda l: l.upper()).map(lambda l: l.lower())
