"""Synthetic classification data with a known best Box-Cox lambda (test helper)."""

from __future__ import annotations

import numpy as np


def italy_corsica(n: int = 400, seed: int = 0):
    """Corner square ("Corsica", class 1) inside an L ("Italy", class 0) on [1, 2]^2.

    Corsica fills [1, 1.3]^2, Italy the points with max(x, y) > 1.5. No line separates them
    at lambda = 1 (the L reaches (1.5, 1) with x + y = 2.5 < 2.6 = 1.3 + 1.3), while after a
    spherical Box-Cox with lambda >= 2 the line u + v = c does (at lambda = 5: the square
    has u + v <= 1.09 and the L has u + v >= 1.32), in the spirit of Bicego & Baldo (2016),
    Figure 3.
    """
    rng = np.random.default_rng(seed)
    sq = 1.0 + 0.3 * rng.random((n // 4, 2))
    pts = 1.0 + rng.random((4 * n, 2))
    ell = pts[pts.max(axis=1) > 1.5][: n - n // 4]
    X = np.vstack([sq, ell])
    y = np.r_[np.ones(len(sq), dtype=int), np.zeros(len(ell), dtype=int)]
    return X, y
