

# What DataFrame.show() prints, as Spark 3.5 writes it (Dataset.showString):
# each value as Spark casts it to a string for display (NULL, Java's text of
# a double), cells cut to `truncate` characters and right-aligned (left-
# aligned when truncate is 0), widths counting East Asian wide characters
# twice, and print()'s own line break after the table's last.
_WIDE = re.compile(
    "[\u1100-\u115F\u2E80-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE10-\uFE19"
    "\uFE30-\uFE6F\uFF00-\uFF60\uFFE0-\uFFE6]"
)


def java_text(value):
    """`value` as Spark's show() writes it."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        magnitude = abs(value)
        if magnitude == 0 or 1e-3 <= magnitude < 1e7:
            return repr(value)
        # Java's scientific form: one digit, the point, the rest (at least
        # one), E and the exponent.
        _, digits, exponent = decimal.Decimal(repr(magnitude)).as_tuple()
        power = len(digits) - 1 + exponent
        text = "".join(map(str, digits)).rstrip("0") or "0"
        mantissa = text[0] + "." + (text[1:] or "0")
        return ("-" if value < 0 else "") + f"{mantissa}E{power}"
    return str(value)


def _width(text):
    return len(text) + len(_WIDE.findall(text))


def shown_table(rows, names, n, truncate):
    """The segments of what df.show(n, truncate) prints of `rows` (in any
    order). Past n rows, which are shown (and so the columns' widths) is
    Spark's choice: only the number of lines is checked then."""
    if len(rows) > n:
        return [("skip", None, n + 6, [])]

    def cut(text):
        if truncate > 0 and len(text) > truncate:
            return text[:truncate] if truncate < 4 else text[: truncate - 3] + "..."
        return text

    header = [cut(name) for name in names]
    cells = [[cut(java_text(v)) for v in row] for row in rows]
    widths = [
        max([3, _width(h)] + [_width(row[i]) for row in cells]) for i, h in enumerate(header)
    ]

    def line(items):
        padded = []
        for text, width in zip(items, widths):
            fill = " " * (width - _width(text))
            padded.append(fill + text if truncate > 0 else text + fill)
        return "|" + "|".join(padded) + "|"

    border = "+" + "+".join("-" * w for w in widths) + "+"
    return [
        ("exact", "", None, [[border], [line(header)], [border]]),
        ("any order", None, None, [line(row) for row in cells]),
        ("exact", "", None, [[border], [""]]),
    ]
