"""CPython's own parser for coco's PySpark front end.

Reads the file's bytes on stdin, parses them with `ast.parse` (no code of
the file runs) and prints its syntax tree as JSON on stdout: each node is
{"_": class name, "l": line, "c": column (1-based, in characters), field:
value, ...}, fields that are None or empty lists left out; an attribute
also has "al"/"ac", where its name starts; constants are {"k": "int" |
"float" | "str" | "bool" | "none" | "other", "v": text}. The bytes are
given to `ast.parse` as they are, so the file is decoded as CPython decodes
it (a BOM, a `# coding:` declaration); when that is not plain UTF-8 the
output also has "text", the decoded source, which locations count in.

A syntax error prints {"error": message, "l": line, "c": column}; what the
front end refuses before reading the tree (an encoding that hides text, a
tree nested deeper than argv[2] levels) prints {"unsupported": ...} with
the same location fields. The tree is written without recursion: a
1,000-term expression is as deep as its terms. Everything the front end
does with the tree is in Rust (bigtest/pyspark).
"""
import ast
import codecs
import io
import json
import re
import sys
import threading
import tokenize

# Codecs whose text is not the file's bytes read as ASCII: `+AAo-` is a
# line break in UTF-7, `\x0a` in unicode_escape, ESC sequences switch
# ISO-2022's character sets. CPython executes what they decode to, which a
# reader of the file does not see; coco refuses them rather than analyse
# code nobody can review.
HIDING_CODECS = ("utf-7", "unicode-escape", "raw-unicode-escape", "punycode", "idna", "hz")

# CPython's own line breaks (its tokenizer's, not str.splitlines', which
# also breaks at form feeds and U+2028).
LINE_BREAK = re.compile(r"\r\n|\r|\n")
COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=]")


def emit(record):
    sys.stdout.write(json.dumps(record))


def escaped(text):
    """Text that JSON can carry as UTF-8 (no lone surrogates)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def cookie_line(data):
    for number, line in enumerate(data.split(b"\n")[:2], 1):
        if COOKIE.match(line):
            return number
    return 1


def hides_text(name, data, text):
    """Whether the codec `name` makes `text` differ from what the bytes show
    as ASCII: a line of ASCII bytes that decodes to something else, or line
    breaks the bytes do not have."""
    if name in HIDING_CODECS or name.startswith("iso2022") or "escape" in name:
        return True
    raw = LINE_BREAK.split(data.decode("latin-1"))
    decoded = LINE_BREAK.split(text)
    if len(raw) != len(decoded):
        return True
    return any(r.isascii() and r != d for r, d in zip(raw, decoded))


def too_deep(tree, limit):
    """(line, byte offset) of the first node deeper than `limit` levels
    (located at its nearest located ancestor), or None."""
    work = [(tree, 1, 1, 0)]
    while work:
        node, depth, line, offset = work.pop()
        if hasattr(node, "lineno"):
            line, offset = node.lineno, node.col_offset
        if depth > limit:
            return line, offset
        children = [(c, depth + 1, line, offset) for c in ast.iter_child_nodes(node)]
        work.extend(reversed(children))
    return None


def main():
    filename = sys.argv[1]
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    data = sys.stdin.buffer.read()
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        name = codecs.lookup(encoding).name
    except (SyntaxError, LookupError):
        encoding = name = None  # ast.parse says why, at its line
    text = None
    if encoding is not None:
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            text = None  # ast.parse says where
        except Exception as e:  # a codec that fails otherwise
            emit({"error": escaped(f"cannot decode the file as {encoding}: {e}"), "l": 1, "c": 1})
            return
    if text is not None and name != "utf-8" and hides_text(name, data, text):
        emit({
            "unsupported": f"the file declares the source encoding {encoding}, whose "
            "encoded characters can hide line breaks and statements that a reader of "
            "the file does not see; coco does not read it: save the file as UTF-8",
            "l": cookie_line(data),
            "c": 1,
        })
        return
    # ast construction recurses in C once per level (RecursionError at about
    # 3,000 levels under the default limit of 1,000): allow the nesting limit
    # and report a deeper tree ourselves, at its place.
    tree = None
    for depth in (max(1000, limit) + 100, 50_000):
        sys.setrecursionlimit(depth)
        try:
            tree = ast.parse(data, filename=filename)
            break
        except (RecursionError, MemoryError):
            # Again with more depth (the thread's stack holds it), so that
            # the error below can say where the code nests too deeply.
            continue
        except SyntaxError as e:
            emit({"error": escaped(e.msg), "l": e.lineno or 1, "c": e.offset or 1})
            return
        except ValueError as e:  # NUL bytes in the source
            emit({"error": escaped(str(e)), "l": 1, "c": 1})
            return
    if tree is None:
        emit({
            "unsupported": f"the code nests more than {limit} levels deep (an expression "
            "of that many terms, or that many nested calls): CPython's parser ran out of "
            "depth building its tree; set COCO_MAX_NESTING to change the limit",
            "l": 1,
            "c": 1,
        })
        return
    if text is None:
        text = data.decode(encoding or "utf-8", "replace")
    lines = LINE_BREAK.split(text)

    def column(line, offset):
        # col_offset counts UTF-8 bytes; diagnostics count characters.
        if 1 <= line <= len(lines):
            return len(lines[line - 1].encode("utf-8")[:offset].decode("utf-8", "replace")) + 1
        return offset + 1

    def constant(value):
        if isinstance(value, bool):
            return {"k": "bool", "v": "True" if value else "False"}
        if isinstance(value, int):
            return {"k": "int", "v": str(value)}
        if isinstance(value, float):
            return {"k": "float", "v": repr(value)}
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                # "\ud800": Python holds it, UTF-8 (and so Spark's text)
                # cannot; where the job uses it is an error there.
                return {"k": "other", "v": "lone-surrogate string"}
            return {"k": "str", "v": value}
        if value is None:
            return {"k": "none", "v": "None"}
        return {"k": "other", "v": type(value).__name__}

    deepest = too_deep(tree, limit)
    if deepest is not None:
        line, col = deepest
        emit({
            "unsupported": f"the code nests more than {limit} levels deep (set "
            "COCO_MAX_NESTING to change the limit)",
            "l": line,
            "c": column(line, col),
        })
        return
    out = []
    write = out.append
    if name is not None and name != "utf-8":
        write('{"text":' + json.dumps(text) + ',"tree":')
    else:
        write('{"tree":')
    # Work items: a str is written as it is, a node is converted.
    work = [tree]
    while work:
        item = work.pop()
        if isinstance(item, str):
            write(item)
            continue
        node = item
        parts = ['{"_":"' + type(node).__name__ + '"']
        if hasattr(node, "lineno"):
            parts.append(f',"l":{node.lineno},"c":{column(node.lineno, node.col_offset)}')
        if isinstance(node, ast.Attribute) and node.end_lineno is not None:
            # Where the attribute's name starts (`.map` in a chain), for
            # diagnostics about the method called.
            end = node.end_col_offset - len(node.attr.encode("utf-8"))
            parts.append(f',"al":{node.end_lineno},"ac":{column(node.end_lineno, end)}')
        for field, value in ast.iter_fields(node):
            if isinstance(node, ast.Constant):
                # Its value may be None, which is not a missing field.
                if field == "value":
                    parts.append(',"value":' + json.dumps(constant(value)))
                continue
            if value is None or (isinstance(value, list) and not value):
                continue
            parts.append(',"' + field + '":')
            if isinstance(value, ast.AST):
                parts.append(value)
            elif isinstance(value, list):
                parts.append("[")
                for i, element in enumerate(value):
                    if i:
                        parts.append(",")
                    if isinstance(element, ast.AST):
                        parts.append(element)
                    else:
                        parts.append(json.dumps(element))
                parts.append("]")
            else:
                parts.append(json.dumps(value))
        parts.append("}")
        # Adjacent text joined: fewer work items.
        merged = []
        for part in parts:
            if isinstance(part, str) and merged and isinstance(merged[-1], str):
                merged[-1] += part
            else:
                merged.append(part)
        work.extend(reversed(merged))
        if len(out) > 4096:
            sys.stdout.write("".join(out))
            out.clear()
    write("}")
    sys.stdout.write("".join(out))


def run():
    try:
        main()
        sys.stdout.flush()
    except BaseException:  # reported by the exit status, with the traceback
        import traceback

        traceback.print_exc()
        failed.append(True)


# A large stack for ast.parse's recursion up to the nesting limit (pages
# are committed only where used).
failed = []
threading.stack_size(256 << 20)
thread = threading.Thread(target=run)
thread.start()
thread.join()
sys.exit(1 if failed else 0)
