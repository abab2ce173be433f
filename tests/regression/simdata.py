"""Simulated data for the linear-model tests (test helper): y is the inverse Box-Cox, at
``lam``, of ``1 + x + 0.3 [g == "b"] + sigma e``."""

from __future__ import annotations

import numpy as np
import pandas as pd

from boxcoxstat.families import inverse_transform


def sim(n=200, lam=0.0, sigma=0.3, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"x": rng.uniform(0, 2, n), "g": rng.choice(["a", "b"], n)})
    eta = 1 + df["x"] + 0.3 * (df["g"] == "b") + sigma * rng.standard_normal(n)
    df["y"] = inverse_transform(eta.to_numpy(), lam, "boxcox")
    return df
