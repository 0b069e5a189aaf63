"""Benchmark: how long the toolkit's convolution and pooling hints take on a lesson-sized input.

    .venv/bin/python benchmarks/conv_diagnosis.py

`diagnose` compares a wrong dx with the right one and, for convolution and pooling, rebuilds
the usual mistakes (flipped kernel, missed stride, first element of a window...) to name the one
made: a student waits for it after every failed check, so it should take well under a second.
Timed: one wrong-sign and one all-zero dx of lesson 09's convolution (10×3×16×16, 8 filters 3×3,
pad 1) and an all-ones dx of its 2×2 pooling, best of 5. Not a test: the figures depend on the
machine.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grader import diagnose  # noqa: E402
from tests.toolkit.hints.test_conv import conv_im2col, conv_problem, pool_argmax, pool_problem  # noqa: E402


def main() -> int:
    conv = conv_problem(10, 3, 16, 16, 8, 3, 3, stride=1, pad=1, seed=163)
    pool = pool_problem(10, 8, 16, 16, 2, 2, 2, seed=164)
    right = conv_im2col(conv["x"], conv["w"], conv["b"], 1, 1, conv["dout"])["dx"]
    right_pool = pool_argmax(pool["x"], 2, 2, 2, pool["dout"])
    cases = {
        "conv, dx of the wrong sign": lambda: diagnose(-right, right, problem={"conv": conv}),
        "conv, dx all zero (padded shape)": lambda: diagnose(np.zeros((10, 3, 18, 18)), right,
                                                             problem={"conv": conv}),
        "pool, dx all ones": lambda: diagnose(np.ones(pool["x"].shape), right_pool,
                                              problem={"pool": pool}),
    }
    for name, run in cases.items():
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            run()
            best = min(best, time.perf_counter() - start)
        print(f"{name:34s} {best * 1000:6.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
