"""Run by scripts/check_install with the interpreter of a fresh venv holding `pip install .`:
imports the installed ember (never the source tree's), and checks a matmul, a linear solve
and a 2-d convolution against numpy. Prints "wheel: ok" when all agree."""
import os
import sys

import numpy as np

import ember
import ember.nn.functional as F

source_dir = os.path.realpath(sys.argv[1])
where = os.path.realpath(ember.__file__)
assert not where.startswith(source_dir + os.sep), f"ember imported from the source tree: {where}"
assert "site-packages" in where, where

rng = np.random.default_rng(0)
for dtype, tol in ((np.float32, 1e-4), (np.float64, 1e-12)):
    a, b = rng.standard_normal((64, 48)).astype(dtype), rng.standard_normal((48, 32)).astype(dtype)
    got = ember.matmul(ember.from_numpy(a), ember.from_numpy(b)).numpy()
    np.testing.assert_allclose(got, a @ b, rtol=tol, atol=tol)

A = rng.standard_normal((32, 32)) + 32 * np.eye(32)
B = rng.standard_normal((32, 4))
X = ember.linalg.solve(ember.from_numpy(A), ember.from_numpy(B)).numpy()
np.testing.assert_allclose(A @ X, B, rtol=1e-10, atol=1e-10)

# 8x8 images: oneDNN's path (benchmarks/README.md, "Convolution"); a 20x20 one: im2col + GEMM.
for size in (8, 20):
    x = rng.standard_normal((2, 3, size, size)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    bias = rng.standard_normal(4).astype(np.float32)
    y = F.conv2d(ember.from_numpy(x), ember.from_numpy(w), ember.from_numpy(bias), padding=1).numpy()
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    cols = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))  # N C H W 3 3
    want = np.einsum("nchwuv,ocuv->nohw", cols, w) + bias[None, :, None, None]
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-4)

print(f"wheel: ok ({where})")
