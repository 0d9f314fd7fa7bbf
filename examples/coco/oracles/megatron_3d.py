"""numpy oracle for examples/coco/megatron_3d.mlir: the same training step on
the whole batch on one device, in float64, compared with what coco computed
on its 8 ranks (f32, so within a tolerance, not bitwise).

Usage: python megatron_3d.py INPUTS OUTPUTS, the folders coco-run's
--save-inputs and --outputs wrote. Exits 1 and names the output on a
mismatch.
"""

import sys
from pathlib import Path

import numpy as np

RANKS = 8  # read by the test suite: the world the example runs on
LR = 0.01


def main(inputs: Path, outputs: Path) -> int:
    load = lambda d, n: np.load(d / f"{n}.npy").astype(np.float64)
    x, w1, w2 = (load(inputs, f"mlp_stage.arg{i}") for i in range(3))
    w3, target = (load(inputs, f"head_stage.arg{i}") for i in range(2))

    h = np.tanh(x @ w1)
    y = h @ w2
    z = y @ w3
    dz = z - target
    dy = dz @ w3.T
    dpre = (dy @ w2.T) * (1 - h * h)
    expected = {
        "head_stage.result0": z,
        "mlp_stage.arg1": w1 - LR * (x.T @ dpre),
        "mlp_stage.arg2": w2 - LR * (h.T @ dy),
        "head_stage.arg0": w3 - LR * (y.T @ dz),
    }
    failed = 0
    for name, want in expected.items():
        got = load(outputs, name)
        error = np.max(np.abs(got - want) / np.maximum(1.0, np.abs(want)))
        ok = got.shape == want.shape and error < 1e-5
        print(f"{name}: largest relative error {error:.3g}{'' if ok else '  MISMATCH'}")
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
