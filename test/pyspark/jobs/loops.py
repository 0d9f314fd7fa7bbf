"""for loops over a split and over a group's values, with break and continue."""


def scores(line):
    """'name:3;x;5;end;9' -> (name, sum of the ints before 'end', bad pieces)."""
    parts = line.split(":")
    total = 0
    bad = 0
    for piece in parts[1].split(";"):
        if piece == "end":
            break
        try:
            value = int(piece)
        except ValueError:
            bad += 1
            continue
        total += value
    return (parts[0], total, bad)


def longest_word(line):
    """The first longest word of the line, or None for a blank line."""
    best = None
    for word in line.split():
        if best is None or len(word) > len(best):
            best = word
    return best


def count_and_top(values):
    count = 0
    top = 0
    for v in values:
        count += 1
        if v > top:
            top = v
    return (count, top)


def pair(line):
    fields = line.split(",")
    return (fields[0], int(fields[1]))


def loops(score_lines, text_lines, pair_lines):
    parsed = score_lines.map(scores)
    longest = text_lines.map(longest_word).filter(lambda w: w is not None)
    per_key = pair_lines.map(pair).groupByKey().mapValues(count_and_top)
    return parsed, longest, per_key
