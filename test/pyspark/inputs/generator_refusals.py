def pairs_then_print(line):
    words = line.split()
    print(words)
    for word in words:
        yield (word, 1)


def two_yields(line):
    for word in line.split():
        yield word
        yield word.lower()


def after_loop(line):
    for word in line.split():
        yield word
    count = 1


def unpacked(line):
    for first, second in line.split(","):
        yield first


def printed(lines):
    return lines.flatMap(pairs_then_print)


def doubled(lines):
    return lines.flatMap(two_yields)


def trailing(lines):
    return lines.flatMap(after_loop)


def unpacking(lines):
    return lines.flatMap(unpacked)


def nested(lines):
    return lines.flatMap(lambda line: [c for w in line.split() for c in w])


def tuple_target(lines):
    return lines.flatMap(lambda line: [a for a, b in line.split(",")])


def list_elements(lines):
    return lines.flatMap(lambda line: [w.split("-") for w in line.split()])


def over_a_string(lines):
    return lines.flatMap(lambda line: [(c, 1) for c in line])


def kept(lines):
    return lines.flatMap(lambda line: [(w, len(w)) for w in line.split(",") if w if len(w) < 9])


SCALE = 2


def scaled(values):
    for v in values:
        yield v * SCALE


def shadowing(lines):
    return lines.flatMap(lambda SCALE: scaled(SCALE.split()))


def pair_of(a, b):
    for x in a.split():
        yield (x, b)


def too_few(lines):
    return lines.flatMap(lambda line: pair_of(line))
