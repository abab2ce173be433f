"""Tests for boxcoxstat.core.estimate: the whole maximum-likelihood computation of a fit."""

from __future__ import annotations

import numpy as np
import pytest

from boxcoxstat import BoxCoxError
from boxcoxstat.core.estimate import auto_family, estimate_columns, fixed_power


def _llf_direct(x: np.ndarray, lam: float) -> float:
    """The Box-Cox Gaussian log-likelihood with its Jacobian, from the textbook formula
    (Box & Cox 1964): transformed values, their MLE variance, (lambda - 1) sum log x."""
    y = np.log(x) if lam == 0 else (x**lam - 1.0) / lam
    n = x.size
    return float(-0.5 * n * (np.log(2 * np.pi) + 1 + np.log(np.var(y)))
                 + (lam - 1.0) * np.log(x).sum())


@pytest.mark.parametrize("lam", [0.0, 0.5, -1.0])
def test_fixed_power_llf_is_the_textbook_likelihood(lam):
    x = np.random.default_rng(3).lognormal(size=(80, 1))
    nll, llf, ext, lost = fixed_power(x, "boxcox", np.array([lam]))
    # 1e-10 relative: the textbook formula in float64 on well-scaled data
    assert llf[0] == pytest.approx(_llf_direct(x[:, 0], lam), rel=1e-10)
    assert ext.tolist() == [[x.min(), x.max()]] and not lost[0]


def test_the_estimate_maximises_the_textbook_likelihood():
    x = np.random.default_rng(4).gamma(3.0, size=(150, 1))
    est = estimate_columns(x, "boxcox", ["x"])
    lam = float(est.lmbda[0])
    assert est.llf[0] == pytest.approx(_llf_direct(x[:, 0], lam), rel=1e-10)
    for step in (-1e-3, 1e-3):  # a maximum of the independent formula
        assert _llf_direct(x[:, 0], lam + step) < est.llf[0]


def test_auto_picks_yeojohnson_for_a_column_with_negatives_and_says_why():
    rng = np.random.default_rng(5)
    x = np.column_stack([rng.lognormal(size=100), rng.normal(size=100)])
    est = estimate_columns(x, "auto", ["pos", "mixed"])
    assert est.families[1] == "yeojohnson"
    assert est.reasons[1] == auto_family(None, 0.0)[1]
    assert est.families[0] in ("boxcox", "yeojohnson") and "log-likelihood" in est.reasons[0]


def test_ymax_too_small_names_the_column():
    x = np.random.default_rng(6).lognormal(size=(50, 1)) * 1e-300
    with pytest.raises(BoxCoxError, match="ymax = 1e-300 is too small for column 'tiny'"):
        estimate_columns(x, "boxcox", ["tiny"], ymax=1e-300)
