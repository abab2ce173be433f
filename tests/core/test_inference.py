"""Tests for boxcoxstat.core.inference against R (car 3.1-1), using the committed reference.

``tests/reference/car_reference.R`` produced ``car_reference.json``. Each case carries car's own
output (``car``: optim stops about 1e-7..1e-6 short of the optimum) and values computed in R to
full precision from the same likelihood (``tight``). We compare with both: with car to the
precision car delivers, and with the tight values to 1e-6 or better.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import boxcoxstat as bcs
from boxcoxstat.core.inference import rounded_power

REF = json.loads((Path(__file__).parent.parent / "reference" / "car_reference.json").read_text())


def _column(case):
    from tests import mpref  # house_prices_train is not bundled: mpref finds it in ../shared/data

    df = pd.read_csv(mpref.data_file(case["dataset"]))
    name = case["variable"]
    if name == "ecoli_gvh_centered":
        x = df["gvh"] - 0.5
    elif name == "wdbc_area1_neg_scaled":
        x = -df["area1"] / 1000
    else:
        x = df[name]
    return x.rename(name)


CASES = [pytest.param(c, id=f"{c['dataset']}-{c['variable']}-{c['family']}") for c in REF["cases"]]


@pytest.fixture(scope="module")
def fits():
    return {}  # filled on demand, so a case fails alone if its data file is missing


def _fit(fits, case):
    key = (case["dataset"], case["variable"], case["family"])
    if key not in fits:
        fits[key] = bcs.fit(_column(case), family=case["family"])
    return fits[key]


@pytest.mark.parametrize("case", CASES)
def test_same_data_as_r(case):
    x = _column(case).dropna()
    chk = case["data_check"]
    assert len(x) == case["n"]
    assert x.sum() == pytest.approx(chk["sum"], rel=1e-14)
    assert (x.min(), x.max()) == (chk["min"], chk["max"])


@pytest.mark.parametrize("case", CASES)
def test_estimate_se_llf_against_tight(fits, case):
    r, t = _fit(fits, case), case["tight"]
    assert r.lmbda == pytest.approx(t["lambda"], rel=1e-9, abs=1e-12)
    assert r.bse.iloc[0] == pytest.approx(t["se"], rel=1e-7)
    assert r.llf == pytest.approx(t["llf"], rel=1e-12)
    assert r.nobs == case["n"]


@pytest.mark.parametrize("case", CASES)
def test_estimate_se_llf_against_car(fits, case):
    r, c = _fit(fits, case), case["car"]
    assert r.lmbda == pytest.approx(c["lambda"], abs=1e-5)
    assert r.bse.iloc[0] == pytest.approx(c["se"], rel=1e-5)
    assert r.llf == pytest.approx(c["llf"], abs=1e-6)


@pytest.mark.parametrize("case", CASES)
def test_lr_tests_against_car(fits, case):
    r, c, t = _fit(fits, case), case["car"], case["tight"]
    for lam0, key in ((0, "lr_lambda0"), (1, "lr_lambda1")):
        test = r.test(lam0)
        assert test.df == c[key]["df"] == 1
        assert test.statistic == pytest.approx(c[key]["statistic"], abs=1e-6, rel=1e-9)
        assert test.statistic == pytest.approx(t[key]["statistic"], abs=1e-8, rel=1e-10)
        if t[key]["pvalue"] > 1e-300:
            assert test.pvalue == pytest.approx(t[key]["pvalue"], rel=1e-6)
        else:
            assert np.log(max(test.pvalue, 1e-320)) <= -690


@pytest.mark.parametrize("case", CASES)
def test_intervals_against_r(fits, case):
    r, c, t = _fit(fits, case), case["car"], case["tight"]
    lo, hi = r.conf_int().iloc[0]
    assert lo == pytest.approx(t["profile_ci_lower"], abs=1e-8)
    assert hi == pytest.approx(t["profile_ci_upper"], abs=1e-8)
    wlo, whi = r.conf_int(interval="wald").iloc[0]
    assert wlo == pytest.approx(t["wald_lower_qnorm"], abs=1e-7)
    assert whi == pytest.approx(t["wald_upper_qnorm"], abs=1e-7)
    # car prints lambda -+ 1.96 se
    assert r.lmbda - 1.96 * r.bse.iloc[0] == pytest.approx(c["wald_lower"], abs=1e-5)
    assert r.lmbda + 1.96 * r.bse.iloc[0] == pytest.approx(c["wald_upper"], abs=1e-5)


@pytest.mark.parametrize("case", CASES)
def test_rounded_power_matches_car_rule_on_car_interval(fits, case):
    """Our rounding rule, fed car's Wald interval, gives car's "Rounded Pwr"."""
    r, c = _fit(fits, case), case["car"]
    got = rounded_power(np.array([r.lmbda]), np.array([c["wald_lower"]]),
                        np.array([c["wald_upper"]]))[0]
    assert got == pytest.approx(c["rounded_pwr"], abs=0.006)


def test_profile_interval_level_is_exact(fits):
    r = _fit(fits, REF["cases"][0])
    for alpha in (0.01, 0.05, 0.2):
        lo, hi = r.conf_int(alpha).iloc[0]
        q = stats.chi2.isf(alpha, 1)
        for end in (lo, hi):
            assert r.test(end).statistic == pytest.approx(q, rel=1e-9)


def test_far_endpoint_is_found():
    """Tightly clustered data: the interval spans thousands of units; no failure."""
    x = np.r_[np.full(30, 0.1), np.full(3, 0.101), np.full(5, 0.1005)]
    r = bcs.fit(x)
    lo, hi = r.conf_int().iloc[0]
    assert np.isfinite(lo) and np.isfinite(hi) and lo < r.lmbda < hi
    assert r.test(lo).statistic == pytest.approx(stats.chi2.isf(0.05, 1), rel=1e-7)
    assert r.test(hi).statistic == pytest.approx(stats.chi2.isf(0.05, 1), rel=1e-7)


def test_rounded_power_prefers_nearest_inside():
    got = rounded_power(np.array([0.45, 0.05, -0.4]), np.array([0.2, -0.4, -0.9]),
                        np.array([1.1, 0.6, 0.1]))
    np.testing.assert_array_equal(got, [0.5, 0.0, -1 / 3])


def test_rounded_power_none_inside_rounds_estimate():
    got = rounded_power(np.array([4.1133]), np.array([3.9]), np.array([4.3]))
    assert got[0] == 4.11


def _table1_cases():
    from tests import mpref

    return [pytest.param(r, id=f"{r['family']}-{r['precision']}-{r['data'][-1]}")
            for r in mpref.table1()]


@pytest.mark.parametrize("row", _table1_cases())
def test_inference_on_adversarial_data_against_mpmath(row):
    """Paper 1, Table 1: interval ends and the SE are right where the NLL is nearly flat."""
    import mpmath as mp

    from tests import mpref

    x, fam = np.array(row["data"]), row["family"]
    r = bcs.fit(x, family=fam)
    lam = mpref.exact_lambda(x, fam)
    nll_hat = mpref.exact_nll(x, lam, fam)
    q = stats.chi2.isf(0.05, 1)
    for end in r.conf_int().iloc[0]:
        lr = 2 * (mpref.exact_nll(x, mp.mpf(float(end)), fam) - nll_hat)
        assert float(lr) == pytest.approx(q, rel=1e-6)
    h = abs(lam) * mp.mpf("1e-6") + mp.mpf("1e-6")
    info = (mpref.exact_score(x, lam + h, fam) - mpref.exact_score(x, lam - h, fam)) / (2 * h)
    assert r.bse.iloc[0] == pytest.approx(float(1 / mp.sqrt(info)), rel=1e-6)


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_newton_interval_ends_match_the_bracketed_ones(family):
    """profile_interval solves both ends by Newton on the score and accepts an end on
    Newton's predicted error; the bracketed fallback (Chandrupatla on NLL values) must give
    the same ends to the interval's tolerance (1e-13 of the distance, plus rounding)."""
    from boxcoxstat.core.inference import _bracketed_ends, profile_interval, standard_error
    from boxcoxstat.core.profile import SampleProfile
    from boxcoxstat.core.solve import solve

    rng = np.random.default_rng(12)
    x = rng.gamma(2.0, size=400) + (0.0 if family == "boxcox" else -1.5)
    profile = SampleProfile.from_array(x, family)
    fit = solve(profile)
    bse = standard_error(profile, fit.lmbda, fit.slope)
    lo, hi = profile_interval(profile, fit.lmbda, fit.nll, bse)
    half_q = 0.5 * stats.chi2.isf(0.05, 1)
    t = _bracketed_ends(profile, np.r_[fit.lmbda, fit.lmbda], np.array([1.0, -1.0]),
                        np.array([0, 0]), np.r_[fit.nll, fit.nll], np.r_[bse, bse], half_q)
    assert hi[0] - fit.lmbda[0] == pytest.approx(t[0], rel=1e-11)
    assert fit.lmbda[0] - lo[0] == pytest.approx(t[1], rel=1e-11)


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_interval_started_in_the_curvature_pass_matches_a_cold_start(family):
    """standard_inference evaluates the interval's first Newton points (from the solver's
    slope) in the curvature's pass; its ends equal those of a cold start (the quadratic guess
    from the standard error) to the interval's tolerance, 1e-13 of the distance (plus
    rounding), and a callback profile then needs one round fewer."""
    from boxcoxstat.core.curvature import curvature
    from boxcoxstat.core.inference import profile_interval, standard_inference
    from boxcoxstat.core.profile import CallbackProfile, SampleProfile
    from boxcoxstat.core.solve import solve

    rng = np.random.default_rng(21)
    x = rng.gamma(2.0, size=(300, 3)) + (0.0 if family == "boxcox" else -1.5)
    profile = SampleProfile.from_array(x, family)
    fit = solve(profile)
    rounds = []

    def counted(lam, cols, score=True):
        rounds.append(len(lam))
        return profile.evaluate(lam, cols, score=score)

    cb = CallbackProfile(counted, profile.nobs())
    # a slope as good as the solver's after a subsample start (about 1e-3; short samples
    # have none)
    slope = curvature(profile, fit.lmbda) * (1.0 + 1e-3)
    warm = standard_inference(cb, fit.lmbda, fit.nll, slope=slope)
    warm_rounds = len(rounds)
    rounds.clear()
    cold = standard_inference(cb, fit.lmbda, fit.nll)  # no slope: no pre-evaluated ends
    lo, hi = profile_interval(profile, fit.lmbda, fit.nll, warm["bse"])
    for got in (warm, cold):
        np.testing.assert_allclose(got["upper"] - fit.lmbda, hi - fit.lmbda, rtol=1e-11)
        np.testing.assert_allclose(fit.lmbda - got["lower"], fit.lmbda - lo, rtol=1e-11)
    rounds.clear()
    profile_interval(cb, fit.lmbda, fit.nll, warm["bse"])  # the ends alone, cold
    assert warm_rounds <= len(rounds)  # was one round for the curvature and tests more
    # a partly pre-evaluated start (one column's ends unknown) gives the same ends
    t0 = np.sqrt(stats.chi2.isf(0.05, 1)) * warm["bse"]
    lam = np.r_[fit.lmbda + t0, fit.lmbda - t0]
    val, sc = profile.evaluate(lam, np.r_[0:3, 0:3])
    val[[1, 4]] = np.nan
    lo2, hi2 = profile_interval(profile, fit.lmbda, fit.nll, warm["bse"],
                                first=(np.r_[t0, t0], val, sc))
    np.testing.assert_allclose(hi2 - fit.lmbda, hi - fit.lmbda, rtol=1e-11)
    np.testing.assert_allclose(fit.lmbda - lo2, fit.lmbda - lo, rtol=1e-11)


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_curvature_from_the_interval_points_matches_mpmath(family, monkeypatch):
    """Above SUBSAMPLE_FROM observations standard_inference takes the curvature from the
    interval's first Newton points (``2 V - S``, curvature_from_pair) instead of a central
    difference of its own: the round holds two lambdas a column fewer, and the standard
    error equals mpmath's, the central difference of the analytic score at 30 digits with
    h = 1e-12 (its error about 1e-18). Tolerance 1e-8: the extrapolation's remainder is
    below 1e-9 of the curvature wherever it is used (PAIR_RTOL), and the NLL differences
    carry about 1e-10 of rounding at n = 3e5."""
    import mpmath

    from boxcoxstat.core import inference as inference_module
    from boxcoxstat.core.curvature import curvature, curvature_from_pair
    from boxcoxstat.core.inference import standard_inference
    from boxcoxstat.core.profile import SUBSAMPLE_FROM, CallbackProfile, SampleProfile
    from boxcoxstat.core.solve import solve
    from tests.mpref import exact_score

    rng = np.random.default_rng(31)
    n = 3 * SUBSAMPLE_FROM  # drawn from 400 values a column (for mpmath: 400 weighted)
    pool = (1.0 + rng.lognormal(size=(400, 2)) if family == "boxcox"
            else np.c_[rng.normal(size=400), rng.exponential(size=400) - 0.3])
    x = np.take_along_axis(pool, rng.integers(0, 400, size=(n, 2)), axis=0)
    profile = SampleProfile.from_array(x, family)
    fit = solve(profile)
    slope = fit.slope
    assert np.all(slope > 0)  # the solver's, from its subsample start
    # the premise: over those points the profile is close enough to quadratic
    t0 = np.sqrt(stats.chi2.isf(0.05, 1) / slope)
    val, sc = profile.evaluate(np.r_[fit.lmbda + t0, fit.lmbda - t0], np.r_[0, 1, 0, 1])
    assert curvature_from_pair(t0, fit.nll, val, sc)[1].all()
    rounds: list[int] = []

    def counted(lam, cols, score=True):
        rounds.append(len(lam))
        return profile.evaluate(lam, cols, score=score)

    cb = CallbackProfile(counted, profile.nobs())
    new = standard_inference(cb, fit.lmbda, fit.nll, slope=slope)
    new_first = rounds[0]
    in_memory = standard_inference(profile, fit.lmbda, fit.nll, slope=slope)
    rounds.clear()
    monkeypatch.setattr(inference_module, "SUBSAMPLE_FROM", 10**12)  # as before: no pair
    old = standard_inference(cb, fit.lmbda, fit.nll, slope=slope)
    # both ends and both tests of the two columns, and no lambda of the curvature's own
    # (two a column before: one central difference)
    assert (rounds[0], new_first) == (12, 8)
    for j in range(2):
        # the column as its 400 distinct values with their counts (frequency weights)
        vals, counts = np.unique(x[:, j], return_counts=True)
        w = counts.astype(np.float64)
        with mpmath.workdps(30):
            lam, h = mpmath.mpf(float(fit.lmbda[j])), mpmath.mpf(10) ** -12
            c = (exact_score(vals, lam + h, family, w, dps=30)
                 - exact_score(vals, lam - h, family, w, dps=30)) / (2 * h)
            want = float(1 / mpmath.sqrt(c))
        for got in (new, in_memory, old):
            assert got["bse"][j] == pytest.approx(want, rel=1e-8)
        assert curvature(profile, fit.lmbda)[j] == pytest.approx(float(c), rel=1e-8)
    # the interval and tests do not depend on where the curvature came from
    for key in ("lower", "upper", "lr0", "lr1"):
        np.testing.assert_allclose(new[key], old[key], rtol=1e-11)


def test_curvature_from_points_where_the_profile_is_not_quadratic_falls_back(monkeypatch):
    """Where the NLL's second difference and the score's central difference over the
    interval's first points differ by more than PAIR_RTOL (a short column, whose profile is
    far from quadratic over two standard errors), the curvature is the central differences'
    after all (one more round) and equals curvature()'s own."""
    from boxcoxstat.core import inference as inference_module
    from boxcoxstat.core.curvature import PAIR_RTOL, curvature, curvature_from_pair
    from boxcoxstat.core.inference import standard_inference
    from boxcoxstat.core.profile import CallbackProfile, SampleProfile
    from boxcoxstat.core.solve import solve

    x = np.random.default_rng(32).lognormal(size=300)
    profile = SampleProfile.from_array(x)
    fit = solve(profile)
    c = curvature(profile, fit.lmbda)
    t = np.sqrt(stats.chi2.isf(0.05, 1) / c)
    val, sc = profile.evaluate(np.r_[fit.lmbda + t, fit.lmbda - t], np.r_[0, 0])
    central, second = (sc[0] - sc[1]) / (2 * t), (val[0] + val[1] - 2 * fit.nll) / t**2
    assert abs(central - second) > PAIR_RTOL * second  # the premise: not quadratic enough
    assert not curvature_from_pair(t, fit.nll, val, sc)[1][0]
    rounds: list[int] = []

    def counted(lam, cols, score=True):
        rounds.append(len(lam))
        return profile.evaluate(lam, cols, score=score)

    monkeypatch.setattr(inference_module, "SUBSAMPLE_FROM", 100)
    got = standard_inference(CallbackProfile(counted, profile.nobs()), fit.lmbda, fit.nll,
                             slope=c)
    assert rounds[1] == 4  # the fallback's round: Richardson's four lambdas
    assert got["bse"][0] == pytest.approx(1 / np.sqrt(c[0]), rel=1e-12)


@pytest.mark.parametrize("family, make", [
    ("boxcox", lambda r, n: 1 + r.lognormal(size=n)),
    ("yeojohnson", lambda r, n: np.r_[r.normal(size=n // 2), r.exponential(size=n - n // 2)]),
])
def test_long_column_interval_steered_without_the_series_is_the_exact_one(family, make,
                                                                          monkeypatch):
    """A long column's interval ends and curvature are found with scores that skip the
    small-argument series (``profile.steering``): the standard error, the interval and the
    tests are those of the exact scores to 1e-11 relative (the ends are set by NLL values;
    the curvature's score difference errs by ~1e-13), and the long column's flat moments
    (``kernel.column_moments``) equal the block path's."""
    from boxcoxstat.core import kernel as K
    from boxcoxstat.core import likelihood as LK
    from boxcoxstat.core import profile as P

    x = make(np.random.default_rng(31), 3 * K.COLUMN_BLOCK + 999)
    steered = bcs.fit(x, family=family)
    got = np.r_[np.ravel(steered.bse), np.ravel(steered.conf_int()),
                np.ravel(steered.test(0).statistic)]
    monkeypatch.setattr(P, "steering", lambda profile: {})
    import boxcoxstat.core.curvature as C
    import boxcoxstat.core.inference as I
    monkeypatch.setattr(C, "steering", lambda profile: {})
    monkeypatch.setattr(I, "steering", lambda profile: {})
    exact = bcs.fit(x, family=family)
    want = np.r_[np.ravel(exact.bse), np.ravel(exact.conf_int()),
                 np.ravel(exact.test(0).statistic)]
    assert got.size == 4
    np.testing.assert_allclose(got, want, rtol=1e-11, atol=0)
    # the flat path (one column, two exponents, each block read once) against the blocks
    side = steered._source.fitted[0].sample.pos
    lam = float(np.ravel(steered.lmbda)[0])
    k = np.array([lam + 0.01, lam - 0.02])
    flat = LK.side_moments(side, k)
    monkeypatch.setattr(LK, "COLUMN_BLOCK", 10**12)  # the matrix path's (rows, 2) blocks
    blocks = LK.side_moments(side, k)
    for f in ("W", "mean_phi", "m2", "mean_chi", "c2", "d_sum"):
        np.testing.assert_allclose(getattr(flat, f), getattr(blocks, f), rtol=1e-13, atol=0)
