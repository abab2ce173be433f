"""Shared test set-up: every plot is drawn on the Agg backend (no display is needed); the
``frame`` fixture (two positive columns with a labelled index) of test_api.py,
univariate/test_model.py, univariate/test_results.py and base/test_transform.py; and the data
that may not be bundled.

Data that boxcoxstat may not redistribute (Kaggle's House Prices ``train.csv``, UCI's adult,
bank and credit files) live in ``../shared/data`` next to the repository, or in the folder
named by ``BOXCOXSTAT_SHARED_DATA``. A test that needs such a file carries the mark
``needs_data("file.csv")`` (or calls ``mpref.require_data``): it skips, naming the file and
where to put it, when the file is absent -- unless ``BOXCOXSTAT_REQUIRE_DATA=1`` is set (CI,
``.ci/run``), in which case it fails with the same message. Collection never reads such data.
"""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from tests import mpref  # noqa: E402


@pytest.fixture(autouse=True)
def _mpmath_precision():
    """Every test starts at mpmath's default precision, and none leaves its own behind (a
    test that sets ``mp.dps`` made a later test's reference depend on the order)."""
    import mpmath

    mpmath.mp.dps = 15
    yield
    mpmath.mp.dps = 15


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "needs_data(*files): the test reads these shared (not bundled) data files; it skips "
        "when one is absent, or fails if BOXCOXSTAT_REQUIRE_DATA is set",
    )


def pytest_report_header(config):
    mode = ("required: a missing file fails its tests" if mpref.data_required()
            else "a test whose file is missing skips (set BOXCOXSTAT_REQUIRE_DATA=1 to fail)")
    return f"boxcoxstat shared data: {mpref.SHARED_DATA_DIR} ({mode})"


def pytest_runtest_setup(item):
    for mark in item.iter_markers("needs_data"):
        for file in mark.args:
            mpref.require_data(file)


@pytest.fixture
def frame():
    rng = np.random.default_rng(42)
    return pd.DataFrame(
        {"a": rng.lognormal(size=120), "b": rng.gamma(2.0, size=120) + 0.1},
        index=pd.RangeIndex(100, 220, name="row"),
    )
