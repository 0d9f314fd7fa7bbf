#!/usr/bin/env python3
"""Writes the .npy inputs of test/runtime/interp with the standard library
only, independently of coco's own .npy code (which the tests check)."""
import os
import struct

ROOT = os.path.join(os.path.dirname(__file__), "..", "test", "runtime", "interp", "inputs")


def write_npy(path, descr, fmt, shape, values):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join("%d, " % d for d in shape).rstrip(" ") if len(shape) != 1 else "%d," % shape[0])
    pad = (64 - (10 + len(header) + 1) % 64) % 64
    header = header + " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


# collectives.mlir: a #coco.local f32 input on 4 ranks, rank r holds 10r + [1, 2, 3, 4].
write_npy(os.path.join(ROOT, "collectives", "collectives.arg0.npy"), "<f4", "f", [4, 4],
          [10.0 * r + i for r in range(4) for i in range(1, 5)])
# errors.mlir: a replicated f32 input of the wrong shape.
write_npy(os.path.join(ROOT, "bad-shape", "shapes.arg0.npy"), "<f4", "f", [3], [1.0, 2.0, 3.0])
# integers.mlir (test/runtime): exact i64/i32 arithmetic on 2 ranks, values
# near 2^53 and at the ends of the range, divisors with 0 and -1.
INTS = os.path.join(ROOT, "integers")
os.makedirs(INTS, exist_ok=True)
I64_MAX, I64_MIN = 2**63 - 1, -2**63
write_npy(os.path.join(INTS, "integers.arg0.npy"), "<i8", "q", [2, 4],
          [2**53, I64_MAX, I64_MIN, 7] + [1, 1, -1, 0])
write_npy(os.path.join(INTS, "integers.arg1.npy"), "<i8", "q", [2, 4],
          [3, -1, -1, 0] + [-3, 2, 0, -1])
write_npy(os.path.join(INTS, "integers.arg2.npy"), "<i4", "i", [2, 2],
          [65536, 65536, 3, -1])
