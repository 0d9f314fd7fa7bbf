"""CPython's own parser for coco's PySpark front end.

Reads Python source on stdin, parses it with `ast.parse` (no code of the
file runs), and prints its syntax tree as JSON on stdout: each node is
{"_": class name, "l": line, "c": column (1-based, in characters), field:
value, ...}; an attribute also has "al"/"ac", where its name starts;
constants are {"k": "int"|"float"|"str"|"bool"|"none"|"other",
"v": text}. A syntax error prints {"error": message, "l": line, "c": column}.
Everything the front end does with the tree is in Rust (bigtest/pyspark).
"""
import ast
import json
import sys


def main():
    filename = sys.argv[1]
    source = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
    lines = source.splitlines()
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as e:
        json.dump({"error": e.msg, "l": e.lineno or 1, "c": e.offset or 1}, sys.stdout)
        return
    except ValueError as e:  # NUL bytes in the source
        json.dump({"error": str(e), "l": 1, "c": 1}, sys.stdout)
        return

    def column(line, offset):
        # col_offset counts UTF-8 bytes; diagnostics count characters.
        if 1 <= line <= len(lines):
            text = lines[line - 1].encode("utf-8", "surrogateescape")[:offset]
            return len(text.decode("utf-8", "replace")) + 1
        return offset + 1

    def constant(value):
        if isinstance(value, bool):
            return {"k": "bool", "v": "True" if value else "False"}
        if isinstance(value, int):
            return {"k": "int", "v": str(value)}
        if isinstance(value, float):
            return {"k": "float", "v": repr(value)}
        if isinstance(value, str):
            return {"k": "str", "v": value}
        if value is None:
            return {"k": "none", "v": "None"}
        return {"k": "other", "v": type(value).__name__}

    def convert(node):
        if isinstance(node, ast.AST):
            out = {"_": type(node).__name__}
            if hasattr(node, "lineno"):
                out["l"] = node.lineno
                out["c"] = column(node.lineno, node.col_offset)
            if isinstance(node, ast.Attribute) and node.end_lineno is not None:
                # Where the attribute's name starts (`.map` in a chain), for
                # diagnostics about the method called.
                end = node.end_col_offset - len(node.attr.encode("utf-8"))
                out["al"] = node.end_lineno
                out["ac"] = column(node.end_lineno, end)
            for name, value in ast.iter_fields(node):
                if isinstance(node, ast.Constant) and name == "value":
                    out["value"] = constant(value)
                elif name == "kind" and isinstance(node, ast.Constant):
                    continue
                else:
                    out[name] = convert(value)
            return out
        if isinstance(node, list):
            return [convert(item) for item in node]
        return node

    json.dump(convert(tree), sys.stdout)


main()
