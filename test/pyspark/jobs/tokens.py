"""Whitespace split, replace, indexing a character, lstrip and rstrip(" "); flatMapValues."""


def tagged(line):
    fields = line.split(":")
    return (fields[0].rstrip(" "), fields[1])


def tokens(lines):
    """Words split on whitespace, with their replacement and first character;
    and each "user:tag;tag" line's tags with their user."""
    words = lines.flatMap(lambda line: line.split())
    tags = lines.filter(lambda line: ":" in line).map(tagged).flatMapValues(lambda tags: tags.split(";"))
    return words.map(lambda w: (w.replace("a", "4"), w[0], w.lstrip())), tags.filter(lambda kv: kv[1] != "")
