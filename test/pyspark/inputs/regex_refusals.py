import re

WORDS = re.compile(r"(\w+)")


def substitute(lines):
    return lines.map(lambda line: re.sub(r"[^\w\s]", "", line))


def group(lines):
    return lines.flatMap(lambda line: re.split(r"(,)", line))


def compiled_group(lines):
    return lines.flatMap(lambda line: WORDS.findall(line))


def computed_pattern(lines):
    return lines.flatMap(lambda line: re.split(line[0], line))


def ignore_case(lines):
    return lines.flatMap(lambda line: re.findall(r"[a-z]+", line, re.IGNORECASE))


def compile_in_udf(lines):
    return lines.flatMap(lambda line: re.compile(r"\s+").split(line))


def local_compile(line):
    pattern = re.compile(r"\s+")
    return pattern.split(line)


def compiled_in_variable(lines):
    return lines.flatMap(local_compile)


def max_split(lines):
    return lines.flatMap(lambda line: re.split(r"\s+", line, 1))


def star(lines):
    return lines.flatMap(lambda line: re.split(r"\s*", line))
