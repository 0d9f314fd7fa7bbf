"""Checks exported PySpark jobs whose df programs carry hostile names.

Usage: python check_names.py MANIFEST.json

MANIFEST: [{"job": path, "plain": path, "names": text}]: each job and the
job of the same program with plain names. For every job:
- it is ASCII and parses;
- its syntax tree, with string constants and the names coco derives from
  the program's names blanked, is the plain job's (a name that became code,
  ended a comment or a docstring, or was cut by a line break, changes it);
- importing it and calling its UDFs runs no command, spawns no process and
  removes no file: an audit hook refuses those events.
Prints one line per failure and a summary; exits 1 on any failure.
"""

import argparse  # noqa: F401 (the modules the job imports, loaded before the hook is armed)
import ast
import csv  # noqa: F401
import decimal  # noqa: F401
import json
import math  # noqa: F401
import os  # noqa: F401
import re  # noqa: F401
import struct  # noqa: F401
import sys

# Audit events of running or spawning something, or of removing files.
FORBIDDEN = (
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.fork",
    "os.forkpty",
    "os.kill",
    "os.remove",
    "os.rmdir",
    "os.rename",
    "shutil.rmtree",
    "subprocess.Popen",
    "socket.connect",
    "ctypes.dlopen",
)

armed = {"code": None}


def hook(event, args):
    if armed["code"] is None:
        return
    if event in FORBIDDEN or event.startswith(("os.exec", "os.spawn", "os.posix_spawn")):
        raise RuntimeError("audit: the job ran %s%r" % (event, args))
    # The job's own module code is the one code object that may be run.
    if event == "exec" and args and args[0] is not armed["code"]:
        raise RuntimeError("audit: the job ran code of its own: %r" % (args[0],))
    if event == "compile":
        raise RuntimeError("audit: the job compiled code of its own")


class Blank(ast.NodeTransformer):
    """Blanks what may differ between a job and its plain twin."""

    def visit_Constant(self, node):
        if isinstance(node.value, str):
            return ast.copy_location(ast.Constant(value=""), node)
        return node

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        if node.name.startswith("udf_"):
            node.name = "udf_"
        return node

    def visit_Name(self, node):
        if node.id.startswith("udf_"):
            node.id = "udf_"
        return node


def shape(source):
    return ast.dump(Blank().visit(ast.parse(source)), include_attributes=False)


def main():
    with open(sys.argv[1]) as f:
        manifest = json.load(f)
    sys.addaudithook(hook)
    failures = []
    for entry in manifest:
        with open(entry["job"], encoding="utf-8", errors="replace") as f:
            source = f.read()
        with open(entry["plain"], encoding="utf-8") as f:
            plain = f.read()
        what = "%s (%s)" % (entry["job"], entry["names"])
        if not source.isascii():
            # coco writes every job in ASCII (names and constants escaped).
            failures.append("%s: not ASCII" % what)
        try:
            if shape(source) != shape(plain):
                failures.append("%s: its syntax tree differs from the plain job's" % what)
                continue
            code = compile(source, entry["job"], "exec")
        except SyntaxError as error:
            failures.append("%s: does not parse: %s" % (what, error))
            continue
        namespace = {"__name__": "coco_exported_job"}
        armed["code"] = code
        try:
            exec(code, namespace)
            for name, value in list(namespace.items()):
                if name.startswith("udf_") and callable(value):
                    try:
                        value("a")
                        value("bc")
                    except RuntimeError as error:
                        if str(error).startswith("audit:"):
                            raise
        except RuntimeError as error:
            failures.append("%s: %s" % (what, error))
        except BaseException as error:  # noqa: BLE001 (SystemExit from a name, say)
            failures.append("%s: importing it raised %r" % (what, error))
        finally:
            armed["code"] = None
    for failure in failures:
        print(failure)
    print("%d jobs with hostile names: %d failures" % (len(manifest), len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
