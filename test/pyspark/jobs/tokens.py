"""Whitespace split, replace, indexing a character, lstrip."""


def tokens(lines):
    """Words split on whitespace, with their replacement and first character."""
    words = lines.flatMap(lambda line: line.split())
    return words.map(lambda w: (w.replace("a", "4"), w[0], w.lstrip()))
