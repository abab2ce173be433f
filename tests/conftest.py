"""Shared test set-up: every plot is drawn on the Agg backend (no display is needed); the
``frame`` fixture (two positive columns with a labelled index) of test_api.py,
univariate/test_model.py, univariate/test_results.py and base/test_transform.py."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture
def frame():
    rng = np.random.default_rng(42)
    return pd.DataFrame(
        {"a": rng.lognormal(size=120), "b": rng.gamma(2.0, size=120) + 0.1},
        index=pd.RangeIndex(100, 220, name="row"),
    )
