"""numpy oracle for examples/coco/adafactor.mlir: one data-parallel Adafactor
step (factored second moments, RMS clipping) on one device in float64,
compared with what coco computed on the ranks (f32, so within a tolerance).

Usage: python adafactor.py INPUTS OUTPUTS (coco-run's --save-inputs and
--outputs folders). Exits 1 and says why on a mismatch.
"""

import sys
from pathlib import Path

import numpy as np

RANKS = [1, 2, 3, 4]  # read by the test suite: the worlds to check
BETA2, EPS1 = 0.999, 1e-30


def main(inputs: Path, outputs: Path) -> int:
    load = lambda d, n: np.load(d / f"{n}.npy").astype(np.float64)
    grads, param, vr, vc, lr = (load(inputs, f"adafactor.arg{i}") for i in range(5))
    g = grads.mean(axis=0)  # one gradient per rank, averaged
    g2 = g * g + EPS1
    vr_new = BETA2 * vr + (1 - BETA2) * g2.mean(axis=1)
    vc_new = BETA2 * vc + (1 - BETA2) * g2.mean(axis=0)
    v_hat = np.outer(vr_new, vc_new) / vr_new.mean()
    u = g / np.sqrt(v_hat)
    u /= max(1.0, np.sqrt(np.mean(u * u)))
    expected = {
        "adafactor.arg1": param - lr * u,
        "adafactor.arg2": vr_new,
        "adafactor.arg3": vc_new,
    }
    failed = False
    for name, want in expected.items():
        got = load(outputs, name)
        error = np.max(np.abs(got - want) / np.maximum(1.0, np.abs(want)))
        ok = got.shape == want.shape and error <= 1e-5
        failed |= not ok
        print(f"{name}: largest relative error {error:.3g}{'' if ok else '  MISMATCH'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
