"""Helpers shared by the federated tests: relative error and four sites of lognormal data."""

from __future__ import annotations

import numpy as np


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-300)


def sites():
    rng = np.random.default_rng(5)
    return [rng.lognormal(size=40) for _ in range(4)]


def fit_full(*args, **kwargs):
    """``bcs.federated.fit`` with the full protocol (ranges at set-up, derivative moments),
    whose checks, optimizers and adversarial accuracy these tests exercise; the paper's
    protocol (the default) has its own tests (test_paper.py)."""
    import boxcoxstat as bcs

    kwargs.setdefault("protocol", "full")
    return bcs.federated.fit(*args, **kwargs)


def fit_paper(*args, **kwargs):
    """``bcs.federated.fit`` with the paper's protocol (``protocol="minimal"``)."""
    import boxcoxstat as bcs

    kwargs.setdefault("protocol", "minimal")
    return bcs.federated.fit(*args, **kwargs)
