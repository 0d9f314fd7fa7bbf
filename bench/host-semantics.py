#!/usr/bin/env python3
"""The df interpreter's host semantics against the real languages.

For seeded random strings (commas, spaces, signs, digits of several
scripts, underscores, dots, letters, a character outside the BMP), runs
`coco-bigtest run` on a one-record df program per op and host, and compares
what it gives with what Java 17 (bench/host/HostOps.java, when `java` is
on PATH) and this Python give for the same string:

  size   df.size (df.split s ",")       s.split(Pattern.quote(",")).length / len(s.split(","))
  get0   df.get (df.split s ",")[0]     pieces[0], or a failure
  int    df.to_int s                    Long.parseLong / int()
  float  df.to_float s                  Double.parseDouble / float()
  substr df.substr s, 1, 2              s.substring(1, 3) / s[1:3]
  length df.length s                    s.length() / len(s)

and, under the Python host only, Python's own string ops and the total
forms behind try/except, against this Python:

  words  df.split s (no delimiter), df.size      len(s.split())
  word0  df.get (df.split s)[0]                  s.split()[0], or a failure
  strip  df.strip s both / left / right          s.strip() / s.lstrip() / s.rstrip()
  lower  df.lower s, df.upper s                  s.lower(), s.upper()
  find   df.find s, ","                          s.find(",")
  repl   df.replace s, ",", ";;"                 s.replace(",", ";;")
  ends   df.ends_with s, "1"                     s.endswith("1")
  tryint df.to_int s : !df.option<i64>, value_or -1     try: int(s) except ValueError: -1
  tryget df.get (df.split s ",")[1] -> option, value_or "?"   try: pieces[1] except IndexError: "?"

Usage: bench/host-semantics.py [COUNT] [SEED]. Prints a table of agreeing
strings per op and host, and every disagreement; exits 1 on any.
"""
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COCO = ROOT / "target/debug/coco-bigtest"
ALPHABET = [",", ",", " ", "-", "+", "_", ".", "e", "a", "N", "I", "1", "7", "0",
            "\u0663", "\uff18", "\U000104a3", "\t"]
# Python's own ops also see case and Unicode whitespace.
PY_ALPHABET = ALPHABET + ["A", "\u00df", "\u0130", "\u03a3", "\u00a0", "\u3000", "\x1c", " "]

OPS = {
    "size": ("(%f, i64)", "%f = df.split %s \",\" : !df.list<!df.str>\n  %r = df.size %f : !df.list<!df.str>", "i64"),
    "get0": (None, "%f = df.split %s \",\" : !df.list<!df.str>\n  %r = df.get %f[0] : !df.list<!df.str> -> !df.str", "!df.str"),
    "int": (None, "%r = df.to_int %s", "i64"),
    "float": (None, "%r = df.to_float %s", "f64"),
    "substr": (None, "%c1 = arith.constant 1 : i64\n  %c2 = arith.constant 2 : i64\n  %r = df.substr %s, %c1, %c2", "!df.str"),
    "length": (None, "%r = df.length %s", "i64"),
}

# Python's own ops (df.host = "python" only).
PY_OPS = {
    "words": (None, "%w = df.split %s : !df.list<!df.str>\n  %r = df.size %w : !df.list<!df.str>", "i64"),
    "word0": (None, "%w = df.split %s : !df.list<!df.str>\n  %r = df.get %w[0] : !df.list<!df.str> -> !df.str", "!df.str"),
    "strip": (None, "%r = df.strip %s both", "!df.str"),
    "lstrip": (None, "%r = df.strip %s left", "!df.str"),
    "rstrip": (None, "%r = df.strip %s right", "!df.str"),
    "lower": (None, "%r = df.lower %s", "!df.str"),
    "upper": (None, "%r = df.upper %s", "!df.str"),
    "find": (None, "%c = df.str_constant \",\"\n  %r = df.find %s, %c", "i64"),
    "repl": (None, "%c = df.str_constant \",\"\n  %n = df.str_constant \";;\"\n  %r = df.replace %s, %c, %n", "!df.str"),
    "ends": (None, "%c = df.str_constant \"1\"\n  %r = df.ends_with %s, %c", "i1"),
    "tryint": (None, "%o = df.to_int %s : !df.option<i64>\n  %d = arith.constant -1 : i64\n"
                     "  %r = df.value_or %o, %d : !df.option<i64>, i64", "i64"),
    "tryget": (None, "%f = df.split %s \",\" : !df.list<!df.str>\n"
                     "  %o = df.get %f[1] : !df.list<!df.str> -> !df.option<!df.str>\n"
                     "  %d = df.str_constant \"?\"\n  %r = df.value_or %o, %d : !df.option<!df.str>, !df.str", "!df.str"),
}
ALL_OPS = {**OPS, **PY_OPS}


def mlir_string(text):
    out = []
    for byte in text.encode("utf-8"):
        ch = chr(byte)
        out.append(ch if ch.isalnum() and byte < 128 else "\\%02X" % byte)
    return '"' + "".join(out) + '"'


def program(host, op, text):
    _, body, ty = ALL_OPS[op]
    return f"""module attributes {{df.host = "{host}"}} {{
func.func @udf(%s: !df.str) -> {ty} {{
  {body}
  return %r : {ty}
}}
func.func @job() {{
  %lines = df.source "lines" inline [{mlir_string(text)}] delimiter "\\09" : !df.dataset<!df.str>
  %out = df.map %lines @udf : !df.dataset<!df.str> -> !df.dataset<{ty}>
  df.sink "out" %out : !df.dataset<{ty}>
  return
}}
}}
"""


def coco(host, op, text, work):
    path = work / f"{host}-{op}.mlir"
    path.write_text(program(host, op, text), encoding="utf-8")
    run = subprocess.run([str(COCO), "run", str(path), "--json"], capture_output=True, text=True, encoding="utf-8")
    if "failures (Spark would abort the job)" in run.stderr:
        return "ERR"
    if run.returncode != 0:
        return "TOOL: " + run.stderr.strip().splitlines()[-1]
    # The sink's one line, unescaped (the text output escapes control
    # characters).
    sinks = json.loads(run.stdout)["jobs"][0]["sinks"]
    lines = next(iter(sinks.values()))
    return lines[0] if lines else ""


def python_ops(text):
    pieces = text.split(",")

    def attempt(f):
        try:
            return f()
        except ValueError:
            return "ERR"

    return {
        "size": str(len(pieces)),
        "get0": pieces[0],
        "int": attempt(lambda: str(int(text))),
        "float": attempt(lambda: float(text)),
        "substr": text[1:3],
        "length": str(len(text)),
    }


def python_own_ops(text):
    words = text.split()
    pieces = text.split(",")

    def attempt(f):
        try:
            return f()
        except ValueError:
            return -1

    return {
        "words": str(len(words)),
        "word0": words[0] if words else "ERR",
        "strip": text.strip(),
        "lstrip": text.lstrip(),
        "rstrip": text.rstrip(),
        "lower": text.lower(),
        "upper": text.upper(),
        "find": str(text.find(",")),
        "repl": text.replace(",", ";;"),
        # coco prints an i1 as true / false.
        "ends": "true" if text.endswith("1") else "false",
        "tryint": str(attempt(lambda: int(text))),
        "tryget": pieces[1] if len(pieces) > 1 else "?",
    }


def java_ops(texts):
    java = subprocess.run(["java", str(ROOT / "bench/host/HostOps.java")],
                          input="\n".join(texts) + "\n", capture_output=True, text=True, encoding="utf-8")
    rows = []
    for line in java.stdout.splitlines():
        size, get0, parsed_int, parsed_float, sub, length = line.split("|")
        rows.append({"size": size, "get0": get0, "int": parsed_int,
                     "float": "ERR" if parsed_float == "ERR" else float(parsed_float),
                     "substr": sub, "length": length})
    return rows


def same(op, ours, theirs):
    if op == "float" and ours != "ERR" and theirs != "ERR":
        try:
            a, b = float(ours), float(theirs)
            return a == b or (a != a and b != b)
        except ValueError:
            return False
    if op == "get0" and theirs == "ERR":
        return ours == "ERR"
    return str(ours) == str(theirs)


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    texts = ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 6))) for _ in range(count)]
    texts[:8] = ["", ",", " ,", "a,,", "+5", " 5", "1_0", "1.5d"]
    import shutil
    hosts = [("python", [python_ops(t) for t in texts])]
    if shutil.which("java"):
        hosts.insert(0, ("jvm", java_ops(texts)))
    else:
        print("java not on PATH: the JVM column is skipped")
    failures = []
    # Python's own ops get strings of their own alphabet, from the same seed.
    py_texts = ["".join(rng.choice(PY_ALPHABET) for _ in range(rng.randint(0, 6))) for _ in range(count)]
    py_texts[:6] = ["", "  ", " a  b ", "\u00a0x\x1c", "1_0", "A,\u00df"]
    print(f"{count} strings; agreeing strings per op:")
    print("host    " + " ".join(f"{op:>7}" for op in OPS))
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        for host, reference in hosts:
            agree = {op: 0 for op in OPS}
            for text, expected in zip(texts, reference):
                for op in OPS:
                    ours = coco(host, op, text, work)
                    if same(op, ours, expected[op]):
                        agree[op] += 1
                    else:
                        failures.append(f"{host} {op} {text!r}: coco {ours!r}, {host} {expected[op]!r}")
            print(f"{host:<7} " + " ".join(f"{agree[op]:>7}" for op in OPS))
        print(f"\n{count} strings (with case and Unicode whitespace); Python's own ops:")
        print("host    " + " ".join(f"{op:>7}" for op in PY_OPS))
        agree = {op: 0 for op in PY_OPS}
        for text in py_texts:
            expected = python_own_ops(text)
            for op in PY_OPS:
                ours = coco("python", op, text, work)
                if same(op, ours, expected[op]):
                    agree[op] += 1
                else:
                    failures.append(f"python {op} {text!r}: coco {ours!r}, python {expected[op]!r}")
        print(f"{'python':<7} " + " ".join(f"{agree[op]:>7}" for op in PY_OPS))
    for f in failures:
        print("  differs:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
