def größe(line):
    return len(line)


def 処理(lines):
    return lines.map(größe).filter(lambda n: n > 2)
