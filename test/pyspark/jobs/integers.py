"""int(), float(), str(), arithmetic with Python's semantics, abs, min, max."""


def arithmetic(line):
    fields = line.split(",")
    a = int(fields[0])
    b = int(fields[1])
    ratio = a / b if b != 0 else 0.0
    return (a // 3, a % 3, -a // 2, abs(a - b), min(a, b), max(a, b), ratio, str(a * b))


def numbers(lines):
    """Integer and float arithmetic on two parsed fields."""
    return lines.map(arithmetic)

