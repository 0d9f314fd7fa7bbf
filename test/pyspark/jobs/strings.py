"""str methods, indexing, slicing, len, + and f-strings in UDFs."""


def tidy(line):
    text = line.strip().lower()
    if text.startswith("#") or text.endswith("!"):
        return "comment"
    if "," in text:
        head = text.split(",")[0]
        return head.upper() + "/" + text[1:3]
    return f"{text[-2:]}:{len(text)}:{text.find('x')}"


def normalise(lines):
    """One tidied string per line."""
    return lines.map(tidy)

