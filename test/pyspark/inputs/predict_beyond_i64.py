def scaled(line):
    fields = line.split(",")
    a = int(fields[0])
    if a > 10000000:
        return a * 1000000000000 // 1000
    return a


def products(lines):
    return lines.map(scaled)
