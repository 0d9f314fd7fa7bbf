import os
from math import floor as abs

int = float
ValueError = KeyError
LIMIT = 10
if os.environ.get("DEBUG"):
    LIMIT = 5
COUNT = 0


def bump():
    global COUNT
    COUNT = COUNT + 1


def len(s):
    return 7


class Rich(LookupError):
    def __init__(self, text):
        super().__init__(text)


def rebound_int(lines):
    return lines.map(lambda line: int(line))


def imported_abs(lines):
    return lines.map(lambda line: abs(line.find("x")))


def parse_or_zero(line):
    try:
        return line.split(",")[3]
    except ValueError:
        return ""


def except_rebound(lines):
    return lines.map(parse_or_zero)


def limit_under_if(lines):
    return lines.filter(lambda line: line.find("x") < LIMIT)


def global_counter(lines):
    return lines.filter(lambda line: line.find("x") < COUNT)


def own_len(lines):
    return lines.map(lambda line: len(line))


def rich_or_empty(line):
    try:
        return line.split(",")[3]
    except Rich:
        return ""


def except_rich(lines):
    return lines.map(rich_or_empty)


def undefined_class(lines):
    return lines.map(lambda line: line if line else fail_with(line))


def fail_with(line):
    raise FooError(line)


def system_exit(lines):
    return lines.map(exit_now)


def exit_now(line):
    if line:
        raise SystemExit(1)
    return line
