def marks(lines):
    return lines.map(lambda l: l + "\ud800")
