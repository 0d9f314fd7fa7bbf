"""A long line: the diagnostic quotes 80 characters either side of the caret."""


def job(lines):
    return lines.map(lambda x: x).map(lambda x: x).map(lambda x: x).map(lambda x: x).map(lambda x: x).map(lambda x: x).map(lambda x: x).map(lambda x: x).map(lambda x: x).map(lambda x: x).map(lambda x: x + 1).map(lambda x: x).map(lambda x: x).map(lambda x: x).map(lambda x: x).map(lambda x: x).map(lambda x: x).map(lambda x: x).map(lambda x: x).map(lambda x: x).map(lambda x: x)
