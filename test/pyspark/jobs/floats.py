"""float(), chained comparisons of floats, true division by a parsed value."""


def scaled(lines):
    """Floats in [0, 100), scaled, and 10 divided by each."""
    values = lines.map(lambda line: float(line))
    return values.filter(lambda x: 0.0 <= x < 100.0).map(lambda x: (x * 1.5, 10 / x))
