def first_words(lines):
    return lines.flatMap(lambda line: line.split()).take(3)
