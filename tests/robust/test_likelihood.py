"""The robust estimators' likelihoods on the core (boxcoxstat.robust.likelihood) against mpmath.

Reference: ``tests/mpref.py`` (the profile NLL in mpmath at 60 digits) and the median
absolute deviation of the transformed values in mpmath. Tolerances: the core's NLL is exact to
a few units of rounding (relative 1e-13 allowed: sums of <= 40 terms of both signs), also
where the transformed values overflow float64 (lambda = +-60 here).
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from boxcoxstat.robust.likelihood import LogScale, RetainedNLL, WindowNLL
from tests import mpref

RNG = np.random.default_rng(2)
N = 40
# Box-Cox with a wide spread; Yeo-Johnson of one sign, mixed, and with far outliers each side
DATA = {
    "boxcox": np.exp(RNG.standard_normal(N) * 3),
    "yeojohnson+": np.abs(RNG.standard_normal(N)) * 5,
    "yeojohnson": RNG.standard_normal(N) * 4,
    "yeojohnson_far+": np.r_[RNG.standard_normal(30), 1e4 * np.exp(RNG.standard_normal(10))],
    "yeojohnson_far-": np.r_[RNG.standard_normal(30), -1e4 * np.exp(RNG.standard_normal(10))],
}
LAMBDAS = [-60.0, -4.0, 0.0, 0.5, 2.0, 6.0, 45.0]
REL = 1e-13  # see the module docstring


def _family(name):
    return name.split("+")[0].split("_")[0].rstrip("-")


@pytest.mark.parametrize("name", list(DATA))
def test_retained_nll_is_the_exact_nll_of_the_kept_rows(name):
    xs = np.sort(DATA[name])[:, None]
    keep = np.ones(xs.shape, dtype=bool)
    keep[[0, 1, 17, N - 1]] = False
    f = RetainedNLL.build(xs, keep, _family(name))
    for lam in LAMBDAS:
        got = f(np.array([lam]), np.array([0]))[0]
        want = float(mpref.exact_nll(xs[keep[:, 0], 0], lam, _family(name)))
        assert got == pytest.approx(want, rel=REL), lam


def test_retained_nll_of_a_column_does_not_depend_on_the_batch():
    # the property behind the exactly-zero sensitivity curve: the same kept values give the
    # same bits alone or next to other columns, whatever those keep
    cols = np.column_stack([np.sort(v) for v in (DATA["yeojohnson"], DATA["yeojohnson_far+"],
                                                 DATA["yeojohnson_far-"])])
    keep = np.ones(cols.shape, dtype=bool)
    keep[:3, 1] = keep[-5:, 2] = False
    batch = RetainedNLL.build(cols, keep, "yeojohnson")
    lam = np.array([0.3, 1.7, -2.0])
    for j in range(3):
        alone = RetainedNLL.build(cols[keep[:, j], j][:, None], keep[keep[:, j], j][:, None],
                                  "yeojohnson")
        assert batch(lam, np.arange(3))[j] == alone(lam[j:j + 1], np.array([0]))[0]
        # and asking for one column of the batch gives the same value as asking for all
        assert batch(lam[j:j + 1], np.array([j]))[0] == batch(lam, np.arange(3))[j]


@pytest.mark.parametrize("name", list(DATA))
@pytest.mark.parametrize("h", [21, 34, N])
def test_window_nll_is_the_best_exact_window(name, h):
    xs = np.sort(DATA[name])[:, None]
    family = _family(name)
    windows = WindowNLL.build(xs, family, h)
    got, start = windows.best(np.array(LAMBDAS)[:, None])
    for k, lam in enumerate(LAMBDAS):
        exact = [float(mpref.exact_nll(xs[s:s + h, 0], lam, family)) for s in range(N - h + 1)]
        assert got[k, 0] == pytest.approx(min(exact), rel=REL), lam
        assert exact[start[k, 0]] == pytest.approx(min(exact), rel=REL)


def test_window_nll_with_far_outliers_keeps_every_digit():
    # prefix sums of y and y**2 cancel catastrophically when a window leaves out values 1e12
    # times larger (the old MTL criterion); merged moments do not
    x = np.sort(np.r_[np.linspace(1.0, 2.0, 37), 1e12, 2e12, 3e12])[:, None]
    got, start = WindowNLL.build(x, "boxcox", 37).best(np.array([1.0]))
    exact = float(mpref.exact_nll(x[:37, 0], 1.0, "boxcox"))
    assert start[0] == 0 and got[0] == pytest.approx(exact, rel=REL)


def _mad_log(x, lam, family):
    """log of the median absolute deviation of psi(lam, x) about its median, in mpmath."""
    mpmath.mp.dps = 60
    lam = mpmath.mpf(lam)

    def psi(v):
        v = mpmath.mpf(float(v))
        if family == "boxcox":
            return (v**lam - 1) / lam if lam != 0 else mpmath.log(v)
        if v >= 0:
            return ((1 + v) ** lam - 1) / lam if lam != 0 else mpmath.log1p(v)
        return -((1 - v) ** (2 - lam) - 1) / (2 - lam) if lam != 2 else -mpmath.log1p(-v)

    def median(vals):
        s = sorted(vals)
        k = len(s)
        return (s[(k - 1) // 2] + s[k // 2]) / 2

    y = [psi(v) for v in x]
    m = median(y)
    return float(mpmath.log(median([abs(v - m) for v in y])))


@pytest.mark.parametrize("name", list(DATA))
def test_log_scale_where_psi_overflows(name):
    # scale = the MAD (location invariant, scale equivariant, like Carroll's Huber scale)
    def med_mad(y):
        med = np.median(y, axis=0)
        return med, np.median(np.abs(y - med), axis=0)

    x = DATA[name]
    family = _family(name)
    f = LogScale.build(x[:, None], family, med_mad)
    for lam in LAMBDAS:
        got = f(np.array([lam]), np.array([0]))[0][0]
        # 1e-12: rounding. Mixed signs at |lambda| >= 45 are scaled, not shifted: psi is held
        # to 1e-16 of its size, and there the MAD is a difference of values on the plateau
        # psi ~ 1/(2 - lambda) (or -1/lambda) some 1e-10 of their size, so 6 digits remain
        # (5e-8 seen on the log); over the usual range (-4, 6) every digit is kept.
        mixed = name in ("yeojohnson", "yeojohnson_far+", "yeojohnson_far-")
        tol = 1e-6 if mixed and abs(lam) > 6 else 1e-12
        assert got == pytest.approx(_mad_log(x, lam, family), rel=tol, abs=tol), lam
