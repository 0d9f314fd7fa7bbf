"""numpy oracle for examples/coco/moe_capacity.mlir: GShard's top-2 routing
with a capacity of 16 slots per expert, on one device in float64, compared
with what coco computed on the ranks (f32, so within a tolerance). Also
checks that the seeded routing drops tokens, so the capacity is exercised.

Usage: python moe_capacity.py INPUTS OUTPUTS (coco-run's --save-inputs and
--outputs folders). Exits 1 and says why on a mismatch.
"""

import sys
from pathlib import Path

import numpy as np

RANKS = [1, 2, 4, 8]  # read by the test suite: the worlds to check
CAPACITY = 16


def main(inputs: Path, outputs: Path) -> int:
    load = lambda d, n: np.load(d / f"{n}.npy")
    x, wg, w1, w2 = (load(inputs, f"moe_capacity.arg{i}").astype(np.float64) for i in range(4))
    tokens, experts = x.shape[0], wg.shape[1]

    logits = x @ wg
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    e1 = probs.argmax(axis=1)
    others = probs * (1 - np.eye(experts)[e1])
    e2 = others.argmax(axis=1)
    g1, g2 = probs[np.arange(tokens), e1], probs[np.arange(tokens), e2]
    g1, g2 = g1 / (g1 + g2), g2 / (g1 + g2)

    # Slots: first choices in token order, then second choices after all of
    # an expert's first choices; a slot past the capacity is dropped.
    slot = np.full((tokens, experts), -1)
    count = np.zeros(experts, dtype=int)
    for t in range(tokens):
        slot[t, e1[t]] = count[e1[t]]
        count[e1[t]] += 1
    for t in range(tokens):
        slot[t, e2[t]] = count[e2[t]]
        count[e2[t]] += 1
    dropped = int((slot >= CAPACITY).sum())

    buffers = np.zeros((experts, CAPACITY, x.shape[1]))
    for t in range(tokens):
        for e in (e1[t], e2[t]):
            if slot[t, e] < CAPACITY:
                buffers[e, slot[t, e]] = x[t]
    out = np.stack([np.maximum(buffers[e] @ w1[e], 0) @ w2[e] for e in range(experts)])
    y = np.zeros_like(x)
    for t in range(tokens):
        for e, g in ((e1[t], g1[t]), (e2[t], g2[t])):
            if slot[t, e] < CAPACITY:
                y[t] += g * out[e, slot[t, e]]

    got = load(outputs, "moe_capacity.result0").astype(np.float64)
    error = np.max(np.abs(got - y) / np.maximum(1.0, np.abs(y)))
    print(f"moe_capacity.result0: largest relative error {error:.3g}; {dropped} of {2 * tokens} routes dropped")
    if got.shape != y.shape or error > 1e-5:
        print("MISMATCH")
        return 1
    if dropped == 0:
        print("the seeded routing drops no token: the capacity is not exercised")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
