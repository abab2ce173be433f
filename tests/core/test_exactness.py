"""Exactness of boxcoxstat against an independent mpmath reference (``tests/mpref.py``).

Cases: the 12 adversarial data sets of Xu & Cormode (2025, Table 1), a Box-Cox case whose
lambda* is near -3.35e9, the paper's nine unstable real features (Table 3) plus its Figure 5
data (N(1e4, 1e-3), n = 100), and random samples (mixed-sign Yeo-Johnson, weights) for the
profile NLL itself.

Floating-point scale used for NLL tolerances: the package adds ``(1 - lam) * J`` and
``n/2 * log var(psi)``; each is rounded on its own, so an exact-to-rounding implementation has
absolute error of a few ulp of ``max(1, |nll|) + |(1 - lam) * J|`` (``_nll_scale``), even when
the NLL itself is much smaller than the two terms (e.g. house ``YrSold``: NLL ~ 412, terms ~ 1e6).
"""

from __future__ import annotations

import warnings

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

import boxcoxstat
from boxcoxstat.core.likelihood import nll
from tests import mpref

LAMBDA_RTOL = 1e-9

# the printed lambda* in Table 1 carries 2, 1 and 0 (".0") decimals for the three precisions
PAPER_ATOL = {"double": 0.01, "quadruple": 0.1, "octuple": 0.5}


def _fam_tag(family):
    return "BC" if family == "boxcox" else "YJ"


def _J(x, family, weights=None):
    x = np.asarray(x, dtype=float)
    w = np.ones_like(x) if weights is None else np.asarray(weights, dtype=float)
    if family == "boxcox":
        return float(np.sum(w * np.log(x)))
    return float(np.sum(w * np.sign(x) * np.log1p(np.abs(x))))


def _nll_scale(x, lmbda, family, nll_value, weights=None):
    """Magnitude of the terms the NLL is summed from (see the module docstring)."""
    lmbda = np.asarray(lmbda, dtype=float)
    return np.maximum(1.0, np.abs(nll_value)) + np.abs((1.0 - lmbda) * _J(x, family, weights))


def _fit_lambda(x, family, *, no_warnings=False):
    if no_warnings:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            # the package's deliberate message that the exact power destroys these data in
            # float64 (tests/univariate/test_resolution.py); any other warning is an error
            warnings.simplefilter("ignore", boxcoxstat.ResolutionWarning)
            res = boxcoxstat.fit(x, family=family)
    else:
        res = boxcoxstat.fit(x, family=family)
    lam = res.lmbda
    assert isinstance(lam, float), f"fit(...).lmbda should be a float, got {type(lam)!r}"
    return lam


def _assert_lambda_close(lam, exact, label):
    exact_f = float(exact)
    err = abs(lam - exact_f) / abs(exact_f)
    assert err <= LAMBDA_RTOL, (
        f"{label}: fitted lambda {lam!r} vs exact {mpmath.nstr(exact, 17)} "
        f"(relative error {err:.3e} > {LAMBDA_RTOL:g})"
    )


# ---------------------------------------------------------------------------------------------
# a. Table 1
# ---------------------------------------------------------------------------------------------
TABLE1 = mpref.table1()
TABLE1_IDS = [
    f"{_fam_tag(r['family'])}-{r['precision']}-{'neg' if r['paper_lambda'] < 0 else 'pos'}"
    for r in TABLE1
]


@pytest.mark.parametrize("row", TABLE1, ids=TABLE1_IDS)
def test_mpref_table1_matches_paper(row):
    """The reference itself reproduces the printed lambda* (validates mpref)."""
    exact = float(mpref.exact_lambda(row["data"], row["family"]))
    assert abs(exact - row["paper_lambda"]) <= PAPER_ATOL[row["precision"]]


@pytest.mark.parametrize("row", TABLE1, ids=TABLE1_IDS)
def test_table1_lambda(row):
    x = np.array(row["data"], dtype=float)
    lam = _fit_lambda(x, row["family"], no_warnings=True)
    exact = mpref.exact_lambda(x, row["family"])
    _assert_lambda_close(lam, exact, f"Table 1 {row['family']} {row['data']}")
    tol = PAPER_ATOL[row["precision"]]
    assert abs(lam - row["paper_lambda"]) <= tol, (
        f"fitted {lam!r} vs paper's printed {row['paper_lambda']} (tolerance {tol})"
    )


@pytest.mark.parametrize("row", TABLE1, ids=TABLE1_IDS)
def test_table1_nll_near_optimum(row):
    """nll at and around lambda* (where psi overflows float64/128/256) is exact to rounding."""
    x = np.array(row["data"], dtype=float)
    fam = row["family"]
    lam = float(mpref.exact_lambda(x, fam))
    grid = np.array([0.5, 0.9, 0.999, 1.0, 1.001, 1.1, 1.5]) * lam
    got = np.asarray(nll(x, grid, family=fam), dtype=float)
    assert got.shape == grid.shape
    want = np.array([float(mpref.exact_nll(x, g, fam)) for g in grid])
    scale = _nll_scale(x, grid, fam, want)
    bad = ~(np.abs(got - want) <= 1e-12 * scale)
    assert not bad.any(), f"lambda {grid[bad]}: nll {got[bad]} vs exact {want[bad]}"


# ---------------------------------------------------------------------------------------------
# b. lambda* ~ -3.35e9
# ---------------------------------------------------------------------------------------------
def test_huge_lambda_boxcox():
    x = mpref.huge_lambda_case()
    lam = _fit_lambda(x, "boxcox")
    exact = mpref.exact_lambda(x, "boxcox")
    assert -3.36e9 < float(exact) < -3.35e9
    _assert_lambda_close(lam, exact, "500 x 2.0 + 3 x 2.0000001 (Box-Cox)")


# ---------------------------------------------------------------------------------------------
# c. the paper's unstable real features
# ---------------------------------------------------------------------------------------------
UNSTABLE = [
    pytest.param(ds, feat, arr, fam, id=f"{ds}-{feat}-{_fam_tag(fam)}",
                 marks=mpref.data_marks(ds))
    for ds, feat, arr, fams in mpref.unstable_features() for fam in fams
] + [  # the paper's Figure 5 data, where naive one-pass variance gives a spiky NLL
    pytest.param("synthetic", "fig5_tight_gaussian", mpref.tight_gaussian_case(), fam,
                 id=f"synthetic-fig5_tight_gaussian-{_fam_tag(fam)}")
    for fam in ("boxcox", "yeojohnson")
]


@pytest.mark.parametrize(("dataset", "feature", "x", "family"), UNSTABLE)
def test_unstable_feature_lambda(dataset, feature, x, family):
    lam = _fit_lambda(x, family)
    exact = mpref.exact_lambda(x, family)
    _assert_lambda_close(lam, exact, f"{dataset}.{feature} ({family})")


@pytest.mark.parametrize(("dataset", "feature", "x", "family"), UNSTABLE)
def test_unstable_feature_nll_curve(dataset, feature, x, family):
    """NLL on 2001 points over lambda* +- 20: finite, convex without spikes, exact at 11."""
    center = float(mpref.exact_lambda(x, family))
    grid = center + np.linspace(-20.0, 20.0, 2001)
    f = np.asarray(nll(x, grid, family=family), dtype=float)
    assert f.shape == grid.shape
    assert np.all(np.isfinite(f)), f"non-finite nll at lambda {grid[~np.isfinite(f)][:5]}"

    # The exact curve is strictly convex, so every negative second difference is rounding.
    # Rounding is a few ulp of the term scale (~1e-16 * scale); a spike of the kind naive
    # variance/linear-domain code produces is many orders larger than 1e-11 * scale.
    d2 = f[:-2] - 2.0 * f[1:-1] + f[2:]
    scale = _nll_scale(x, grid, family, f)
    local = np.maximum(np.maximum(scale[:-2], scale[1:-1]), scale[2:])
    bad = d2 < -1e-11 * local
    assert not bad.any(), (
        f"{int(bad.sum())} non-convex second differences, worst {d2.min():.3e} at lambda "
        f"{grid[1:-1][np.argmin(d2)]!r} (tolerance {1e-11 * local[np.argmin(d2)]:.3e})"
    )

    idx = np.linspace(0, grid.size - 1, 11).astype(int)
    want = np.array([float(mpref.exact_nll(x, grid[i], family)) for i in idx])
    err = np.abs(f[idx] - want) / np.maximum(1.0, np.abs(want))
    worst = int(np.argmax(err))
    assert np.all(err <= 1e-10), (
        f"nll vs exact: worst relative error {err[worst]:.3e} at lambda {grid[idx][worst]!r}"
    )


# ---------------------------------------------------------------------------------------------
# d. nll against the reference on random samples
# ---------------------------------------------------------------------------------------------
def _random_cases():
    rng = np.random.default_rng(20250611)
    n = 40
    cases = {
        "BC-lognormal": (rng.lognormal(0.0, 1.0, n), "boxcox", None),
        "BC-weighted": (rng.lognormal(1.0, 0.5, n), "boxcox", rng.uniform(0.1, 3.0, n)),
        "YJ-mixed-sign": (rng.normal(0.5, 2.0, n), "yeojohnson", None),
        "YJ-mixed-sign-weighted": (
            rng.normal(-0.3, 1.5, n),
            "yeojohnson",
            rng.uniform(0.1, 3.0, n),
        ),
        "YJ-negative": (-rng.lognormal(0.0, 1.0, n), "yeojohnson", None),
        "YJ-nonneg-with-zeros": (
            np.r_[np.zeros(5), rng.exponential(2.0, n - 5)],
            "yeojohnson",
            None,
        ),
    }
    x = rng.normal(0.0, 1.0, n)
    w = rng.uniform(0.5, 2.0, n)
    w[:4] = 0.0
    cases["YJ-weighted-some-zero-weights"] = (x, "yeojohnson", w)
    return cases


RANDOM_CASES = _random_cases()
RANDOM_LAMBDAS = np.array(
    [-3.0, -1.0, -0.5, -1e-9, 0.0, 1e-9, 0.25, 1.0, 1.5, 2.0 - 1e-9, 2.0, 2.0 + 1e-9, 2.5, 4.0]
)


@pytest.mark.parametrize("case", list(RANDOM_CASES), ids=list(RANDOM_CASES))
def test_nll_matches_reference(case):
    x, family, w = RANDOM_CASES[case]
    got = np.asarray(nll(x, RANDOM_LAMBDAS, family=family, weights=w), dtype=float)
    assert got.shape == RANDOM_LAMBDAS.shape
    want = np.array([float(mpref.exact_nll(x, lam, family, weights=w)) for lam in RANDOM_LAMBDAS])
    err = np.abs(got - want) / np.maximum(1.0, np.abs(want))
    bad = ~(err <= 1e-12)
    assert not bad.any(), "; ".join(
        f"lambda={lam!r}: nll {g!r} vs exact {e!r} (rel {r:.2e})"
        for lam, g, e, r in zip(RANDOM_LAMBDAS[bad], got[bad], want[bad], err[bad], strict=True)
    )


# ---------------------------------------------------------------------------------------------
# validation of the reference itself against scipy on an easy sample
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_mpref_agrees_with_scipy(family):
    x = np.random.default_rng(0).lognormal(size=50)
    exact = float(mpref.exact_lambda(x, family))
    if family == "boxcox":
        ref = stats.boxcox_normmax(x, method="mle")
        llf = stats.boxcox_llf
    else:
        ref = stats.yeojohnson_normmax(x)
        llf = stats.yeojohnson_llf
    assert abs(exact - ref) <= 1e-6 * max(1.0, abs(ref))  # scipy's Brent tolerance
    for lam in (-1.0, 0.0, 0.5, 2.0):
        assert float(mpref.exact_nll(x, lam, family)) == pytest.approx(-llf(lam, x), rel=1e-12)
    # the score vanishes at the minimiser and is the derivative of the NLL
    lam_mp = mpref.exact_lambda(x, family)
    assert abs(mpref.exact_score(x, lam_mp, family)) < 1e-30
    x0 = mpmath.mpf(0.3)  # the float 0.3, exact at any precision
    with mpmath.workdps(30):
        num = mpmath.diff(lambda t: mpref.exact_nll(x, t, family, dps=60), x0)
    assert abs(num - mpref.exact_score(x, x0, family)) < 1e-20


# --- slow: random frames against the exact optimum -------------------------------------------

_VALUES = st.one_of(st.floats(-1e3, 1e3), st.floats(1e-3, 1e6), st.just(np.nan), st.just(0.0))


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    cols=st.lists(st.lists(_VALUES, min_size=6, max_size=12), min_size=2, max_size=4),
    family=st.sampled_from(["boxcox", "yeojohnson"]),
)
def test_random_frames_against_mpmath(cols, family):
    """Any DataFrame (missing values, zeros, mixed signs): every column's lambda is the exact
    optimum, the batched fit equals the one-column fit, and the interval contains it."""
    import pandas as pd

    n = min(len(c) for c in cols)
    df = pd.DataFrame({f"c{j}": c[:n] for j, c in enumerate(cols)})
    try:
        r = boxcoxstat.fit(df, family=family)
    except boxcoxstat.BoxCoxError:
        return
    for name in df:
        x = df[name].dropna().to_numpy()
        single = boxcoxstat.fit(x, family=family)
        assert r.lmbda[name] == pytest.approx(single.lmbda, rel=1e-9, abs=1e-9)
        exact = float(mpref.exact_lambda(x, family))
        assert single.lmbda == pytest.approx(exact, rel=1e-9, abs=1e-9)
        ci = single.conf_int()  # a DataFrame (lower, upper) since issue 11
        assert ci["lower"].iloc[0] < single.lmbda < ci["upper"].iloc[0]
