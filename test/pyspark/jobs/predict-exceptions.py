"""Exceptions caught by a base class, as Python's hierarchy says: KeyError
and IndexError by LookupError, ZeroDivisionError by ArithmeticError, any
by Exception, and the file's own classes (subclasses of ValueError) by
ValueError; uncaught, the file's class fails the job by its own name."""


class BadRecord(ValueError):
    pass


class Negative(BadRecord):
    """A value below zero."""


def checked(value):
    if value < 0:
        raise Negative("negative value")
    if value > 1000:
        raise BadRecord("value too large")
    return value


def classify(line):
    fields = line.split(",")
    if fields[0] == "stop":
        raise Negative("stop record")
    try:
        if fields[0] == "key":
            raise KeyError(fields[0])
        value = int(fields[1])
    except LookupError:
        return ("missing", 0)
    try:
        value = checked(value)
    except ValueError:
        return ("bad", value)
    try:
        extra = fields[2]
    except Exception:
        extra = ""
    try:
        return ("ratio" + extra, 100 // value)
    except ArithmeticError:
        return ("zero" + extra, 0)


def classified(lines):
    """Each record's class and value; a stop record fails the job."""
    return lines.map(classify)
