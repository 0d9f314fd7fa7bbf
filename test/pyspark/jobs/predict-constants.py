"""Module constants set again under an `if` whose test is a constant: UDFs
see the value Python leaves after running the module, not the first."""

DEBUG = False
LIMIT = 10
if DEBUG:
    LIMIT = 5
SUFFIX = "!"
if not DEBUG:
    SUFFIX = "?"
else:
    SUFFIX = "#"


def len(text):
    """Shadows the builtin: calls of len are calls of this def."""
    return text.find(",") + 1


def mark(line):
    if len(line) > 3:
        return line[:LIMIT] + SUFFIX
    return line


def marked(lines):
    """Lines with a comma after their third character, cut and marked."""
    return lines.map(mark)
