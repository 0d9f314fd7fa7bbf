"""if/elif/else, conditional expressions, and/or/not, chained comparisons, early return, for over a range, raise."""

LIMIT = 50


def grade(line):
    score = int(line)
    if score < 0:
        raise ValueError("negative score")
    elif score >= 90:
        return "A"
    elif 70 <= score < 90:
        return "B"
    label = "C" if score >= LIMIT else "F"
    for bonus in range(2):
        score = score + bonus
    if not (score > 10 and score != 42) or score == 7:
        return label.lower()
    return label


def grades(lines):
    """A letter per score."""
    return lines.map(grade)
