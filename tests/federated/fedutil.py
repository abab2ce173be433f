"""Helpers shared by the federated tests: relative error and four sites of lognormal data."""

from __future__ import annotations

import numpy as np


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-300)


def sites():
    rng = np.random.default_rng(5)
    return [rng.lognormal(size=40) for _ in range(4)]
