"""Python's integers do not wrap at 64 bits: sums near the i64 limit are
exact (test/pyspark/predict.mlir has the product beyond it, which coco
refuses to predict)."""


def scaled(line):
    fields = line.split(",")
    a = int(fields[0])
    b = int(fields[1])
    if a > 9000000 or a < 0:
        return ("out of range", 0)
    total = a * 1000000000000 + b
    if total > 9000000000000000000:
        return ("near", total - 9000000000000000000)
    return ("small", -total)


def products(lines):
    """Each line's two integers combined."""
    return lines.map(scaled)
