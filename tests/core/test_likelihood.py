"""Tests for boxcoxstat.core.likelihood: mergeable moments, weights, frames and the score."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from boxcoxstat import BoxCoxError
from boxcoxstat.core.likelihood import (
    merge_moments,
    nll,
    nll_score,
    nll_score_from_moments,
    score,
    side_moments,
)
from boxcoxstat.core.sample import Sample


def _chunks(side, bounds, kappa, shift):
    from dataclasses import replace

    parts = []
    for a, b in bounds:
        sub = replace(side, v=side.v[a:b], w=None if side.w is None else side.w[a:b])
        parts.append(side_moments(sub, kappa, shift=shift))
    return parts


def _tree(parts):
    queue = list(parts)
    while len(queue) > 1:
        a, b = queue.pop(0), queue.pop(0)
        queue.append(merge_moments(a, b))
    return queue[0]


@pytest.mark.parametrize("lam", [-30.0, -1.0, 0.0, 0.4, 2.0, 7.0])
@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_chunked_moments_merge_to_whole(family, lam):
    rng = np.random.default_rng(11)
    x = rng.lognormal(size=997)
    if family == "yeojohnson":
        x = np.r_[x, -rng.lognormal(size=300)]
        rng.shuffle(x)
    sample = Sample.from_array(x, family)
    whole, ws = nll_score(sample, np.array([lam]))
    sides = []
    for side, kappa in ((sample.pos, lam), (sample.neg, 2.0 - lam)):
        if side is None:
            sides.append(None)
            continue
        m = side.v.shape[0]
        bounds = [(0, 100), (100, 101), (101, m // 2), (m // 2, m)]
        full = side_moments(side, np.array([kappa]))
        merged = _tree(_chunks(side, bounds, np.array([kappa]), full.shift))
        np.testing.assert_allclose(merged.m2, full.m2, rtol=1e-12)
        tol = 1e-12 * float(abs(full.m2[0]))
        np.testing.assert_allclose(merged.c2, full.c2, rtol=1e-11, atol=tol)
        sides.append(merged)
    val, sc = nll_score_from_moments(sides[0], sides[1], np.array([lam]))
    np.testing.assert_allclose(val, whole, rtol=1e-12)
    np.testing.assert_allclose(sc, ws, rtol=1e-9, atol=1e-9)


def test_merge_refuses_different_frames():
    sample = Sample.from_array(np.random.default_rng(0).lognormal(size=20))
    a = side_moments(sample.pos, np.array([0.5]), shift=np.array([0.0]))
    b = side_moments(sample.pos, np.array([0.6]), shift=np.array([0.0]))
    with pytest.raises(BoxCoxError, match="frames"):
        merge_moments(a, b)


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_integer_weights_equal_replication(family):
    rng = np.random.default_rng(4)
    x = rng.lognormal(size=40) if family == "boxcox" else rng.normal(size=40) * 2
    w = rng.integers(0, 4, size=40)
    w[0] = 1
    lam = np.array([-2.0, 0.0, 0.7, 3.0])
    np.testing.assert_allclose(nll(x, lam, family, weights=w),
                               nll(np.repeat(x, w), lam, family), rtol=1e-12)
    np.testing.assert_allclose(score(x, lam, family, weights=w),
                               score(np.repeat(x, w), lam, family), rtol=1e-10, atol=1e-10)


def test_nll_is_independent_of_the_frame():
    """Forcing the reference shift to the max or min changes nothing but rounding."""
    x = np.random.default_rng(2).lognormal(sigma=0.3, size=60)
    sample = Sample.from_array(x)
    vmin, vmax = sample.pos.vrange
    lam = np.array([1.3])
    ref = nll_score_from_moments(side_moments(sample.pos, lam, shift=np.array([0.0])), None,
                                 lam)
    for s in (vmin, vmax):
        got = nll_score_from_moments(side_moments(sample.pos, lam, shift=s), None, lam)
        np.testing.assert_allclose(got[0], ref[0], rtol=1e-13)
        np.testing.assert_allclose(got[1], ref[1], rtol=1e-9)


def _mp_nll(x, lam):
    mp.mp.dps = 60
    xs = [mp.mpf(float(v)) for v in x]
    lam = mp.mpf(lam)
    ys = [v**lam for v in xs]  # the constant -1/lambda dropped, as in Xu & Cormode eq. 12
    m = sum(ys) / len(ys)
    var = sum((y - m) ** 2 for y in ys) / len(ys)
    return (1 - lam) * sum(mp.log(v) for v in xs) + mp.mpf(len(xs)) / 2 * (
        mp.log(var) - 2 * mp.log(abs(lam)))


@pytest.mark.parametrize("lam", [-3.35e9, -400.0, 1e6])
def test_clustered_data_at_extreme_lambda(lam):
    """500 copies of 2.0 and 3 of 2.0000001: exact NLL and score where psi underflows."""
    x = [2.0] * 500 + [2.0000001] * 3
    ref = _mp_nll(x, lam)
    assert float(nll(x, lam)) == pytest.approx(float(ref), rel=1e-13)
    h = mp.mpf("1e-25") * abs(lam)
    ref_score = (_mp_nll(x, lam + h) - _mp_nll(x, lam - h)) / (2 * h)
    assert float(score(x, lam)) == pytest.approx(float(ref_score), rel=1e-9)


def test_vectorised_over_lambda_matches_loop():
    x = np.random.default_rng(8).normal(size=50) * 3
    lam = np.linspace(-5, 7, 13)
    vec = nll(x, lam, "yeojohnson")
    loop = np.array([nll(x, v, "yeojohnson") for v in lam])
    np.testing.assert_allclose(vec, loop, rtol=1e-14)


def test_columns_with_missing_values_match_separate_samples():
    rng = np.random.default_rng(1)
    X = rng.lognormal(size=(50, 3))
    X[[3, 7], 0] = np.nan
    X[10, 2] = np.nan
    lam = np.array([0.3, -1.0, 2.0])
    val, sc = nll_score(Sample.from_array(X), lam)
    for j in range(3):
        col = X[:, j][~np.isnan(X[:, j])]
        v1, s1 = nll_score(Sample.from_array(col), lam[j : j + 1])
        assert val[j] == pytest.approx(v1[0], rel=1e-13)
        assert sc[j] == pytest.approx(s1[0], rel=1e-10)


def test_tiny_yeojohnson_reference_keeps_its_log_gh2():
    """log(1 + 1e-38) rounds to 0; the side's reference must use log1p (was NaN)."""
    x = [0.0, 1.175494351e-38, 1.175494351e-38, -1.0]
    mp.mp.dps = 50
    for lam in (-10.0, 1.0, 10.0):
        xs = [mp.mpf(v) for v in x]
        L = mp.mpf(lam)
        psi = [((1 + v) ** L - 1) / L if v >= 0 else -((1 - v) ** (2 - L) - 1) / (2 - L)
               for v in xs]
        m = sum(psi) / 4
        var = sum((p - m) ** 2 for p in psi) / 4
        J = sum(mp.log1p(v) if v >= 0 else -mp.log1p(-v) for v in xs)
        ref = (1 - L) * J + 2 * mp.log(var)
        assert float(nll(x, lam, "yeojohnson")) == pytest.approx(float(ref), rel=1e-12)


# --- the short-column path (one unweighted column of at most 500 values a side) -------------
def _short_cases():
    rng = np.random.default_rng(20261124)
    return {
        "BC-lognormal-50": (rng.lognormal(size=50), "boxcox"),
        "YJ-mixed-50": (rng.lognormal(size=50) - 1.0, "yeojohnson"),
        "YJ-negative-30": (-rng.lognormal(size=30), "yeojohnson"),
        "YJ-nonneg-with-zeros": (np.r_[np.zeros(4), rng.exponential(2.0, 16)], "yeojohnson"),
        "YJ-clustered-far-from-0": (np.r_[1e3 + 1e-6 * rng.normal(size=19), -1e3],
                                    "yeojohnson"),
        "YJ-mixed-large": (rng.normal(0.0, 1e3, size=40), "yeojohnson"),
        "YJ-two-values": (np.array([-0.5, 2.0]), "yeojohnson"),
        "YJ-mixed-500": (rng.normal(0.3, 1.0, size=500), "yeojohnson"),
    }


SHORT_CASES = _short_cases()
SHORT_LAMBDAS = np.array([-8.0, -3.1, -1e-9, 0.0, 1e-9, 0.7, 1.0, 2.0 - 1e-9, 2.0,
                          2.0 + 1e-9, 3.9, 9.0])


@pytest.mark.parametrize("case", list(SHORT_CASES), ids=list(SHORT_CASES))
def test_short_path_matches_mpmath(case):
    """The vectorised path a short column takes (every lambda in one expression, both sides
    in one array) gives the exact NLL and score at every lambda of the solver's ladder."""
    from boxcoxstat.core.short import short_nll_score, short_ok
    from tests import mpref

    x, family = SHORT_CASES[case]
    sample = Sample.from_array(x, family)
    assert short_ok(sample)
    lam = SHORT_LAMBDAS if x.size < 500 else SHORT_LAMBDAS[1:-1]  # mpmath time
    got = short_nll_score(sample, lam, True)
    assert got is not None  # the short path itself is what is tested here
    val, _ = nll_score(sample, lam)  # and nll_score takes it
    np.testing.assert_array_equal(val, got[0])
    want_v = np.array([float(mpref.exact_nll(x, v, family)) for v in lam])
    want_s = np.array([float(mpref.exact_score(x, v, family)) for v in lam])
    # the same tolerance as test_exactness.py's NLL reference (rounding of sums over n
    # values, ~1e-14 relative seen); the score relative to max(1, |J|), its largest term
    J = abs(float(np.sum(np.sign(x) * np.log1p(np.abs(x)))) if family == "yeojohnson"
            else float(np.sum(np.log(x))))
    np.testing.assert_array_less(np.abs(got[0] - want_v) / np.maximum(1.0, np.abs(want_v)),
                                 1e-12)
    np.testing.assert_array_less(np.abs(got[1] - want_s) / max(1.0, J), 1e-12)


def test_short_path_hands_overflowing_lambdas_to_the_general_path():
    """Where ``|kappa| (|log b_ref| + max|v|)`` exceeds 300 the short path declines and the
    general (shifted-frame, log-scale) path answers, still exactly."""
    from boxcoxstat.core.short import short_nll_score
    from tests import mpref

    x = np.array([-30.0, -2.0, 0.5, 1.0, 4.0, 60.0])
    sample = Sample.from_array(x, "yeojohnson")
    lam = np.array([1.0, 80.0])
    assert short_nll_score(sample, lam[:1], True) is not None
    assert short_nll_score(sample, lam, True) is None
    val, sc = nll_score(sample, lam)
    for v, s, lm in zip(val, sc, lam, strict=True):
        want = float(mpref.exact_nll(x, lm, "yeojohnson"))
        assert v == pytest.approx(want, rel=1e-12)  # as test_exactness.py
        assert s == pytest.approx(float(mpref.exact_score(x, lm, "yeojohnson")), rel=1e-10)


@pytest.mark.parametrize("family, make, lmbda", [
    ("boxcox", lambda r: 1 + r.lognormal(size=200), -0.5),
    ("boxcox", lambda r: 1 + r.lognormal(size=200), 1.3),
    ("boxcox", lambda r: r.lognormal(sigma=3.0, size=200), 150.0),  # a shifted frame
    ("yeojohnson", lambda r: r.lognormal(0.0, 0.75, size=200), 0.7),
    ("yeojohnson", lambda r: -r.gamma(2.0, size=200), 1.4),
    ("yeojohnson", lambda r: np.r_[r.normal(size=100), r.exponential(size=100)], 0.8),
])
def test_score_derivative_pass_against_mpmath(family, make, lmbda):
    """``nll_score_slope``: the NLL and score equal ``nll_score``'s, and the score's
    derivative (one side: closed form; two sides: Richardson along the moments' derivatives)
    matches mpmath's central difference of the exact score (step 1e-25 at 60 digits)."""
    import mpmath

    from boxcoxstat.core.likelihood import nll_score_slope
    from tests.mpref import exact_score

    x = make(np.random.default_rng(12))
    s = Sample.from_array(x, family)
    got = nll_score_slope(s, np.array([lmbda]))
    assert got is not None
    val, sc = nll_score(s, np.array([lmbda]))
    # the same arithmetic as the value-only pass, or the short path's (to rounding)
    assert got[0][0] == pytest.approx(val[0], rel=1e-13)
    assert got[1][0] == pytest.approx(sc[0], rel=1e-10, abs=1e-10 * got[2][0])
    with mpmath.workdps(60):  # the step needs the digits, whatever another test left set
        h = mpmath.mpf("1e-25")
        lam = mpmath.mpf(lmbda)
        ref = (exact_score(x, lam + h, family) - exact_score(x, lam - h, family)) / (2 * h)
    assert ref != 0
    # the Newton polish needs 1e-8 relative and assumes NEWTON_SLOPE_REL = 1e-10
    assert got[2][0] == pytest.approx(float(ref), rel=1e-10)
    # without the series the score is as accurate here (the small |lambda d| terms are
    # below the rounding of the sums)
    sloppy = nll_score_slope(s, np.array([lmbda]), exact=False)
    assert sloppy is not None
    assert sloppy[1][0] == pytest.approx(got[1][0], rel=1e-12, abs=1e-12 * got[2][0])


@pytest.mark.parametrize("family, lmbda, exact", [("boxcox", 0.4, True),
                                                   ("yeojohnson", 0.8, False),
                                                   ("yeojohnson", 1.7, True)])
def test_one_column_derivative_pass_against_long_double_sums(family, lmbda, exact):
    """A long column's derivative pass (``kernel._slope_column``: flat blocks of
    ``COLUMN_BLOCK`` values, the last one partial) gives the nine sums of the per-value
    definitions, computed here in long double from ``expm1`` of each value (64-bit
    significand where the platform has it); and the matrix path of ``slope_moments`` (two
    kappas side by side) gives the same numbers for each kappa."""
    from boxcoxstat.core import kernel as K

    rng = np.random.default_rng(8)
    n = 3 * K.COLUMN_BLOCK + 4321  # x >= 0 side: more than two blocks either way
    x = (1 + rng.lognormal(size=n) if family == "boxcox"
         else np.r_[rng.normal(size=n // 3), rng.exponential(size=n - n // 3)])
    side = Sample.from_array(x, family).pos
    assert side is not None and side.v.shape[0] > 2 * K.COLUMN_BLOCK
    got = K.slope_moments(side, np.array([lmbda]), np.zeros(1), False, exact)
    assert got is not None
    ld = np.longdouble
    d = side.v[:, 0].astype(ld)
    a = d * ld(lmbda)
    m = np.expm1(a)
    N = a * np.exp(a) - m
    K_ = a * a * np.exp(a) - 2 * N
    W = ld(d.size)
    mean, meanN, meanK = m.sum() / W, N.sum() / W, K_.sum() / W
    mc, Nc = m - mean, N - meanN
    want = [W, mean, (mc * mc).sum(), meanN, (mc * Nc).sum(), 0.0, (Nc * Nc).sum(), meanK,
            (mc * (K_ - meanK)).sum()]
    # long double's expm1 carries about 1e-19 (where long double is float64, the reference
    # is as good as the code's and the bound still holds); the sums of 1.4e5 values round
    # to ~1e-13 of their magnitudes in float64; N's closed form (exact=False) errs by
    # eps |a| a value, well inside 1e-11 of the sums; VN is formed uncentred (eps (1 +
    # mean^2/var) relative); K's closed form loses eps / |a| a value (1e-10 is what the
    # Newton polish assumes of the derivative)
    tol = [0, 1e-13, 1e-12, 1e-11, 1e-11, 0, 1e-11, 1e-10, 1e-10]
    for j, (g, w) in enumerate(zip(got, want, strict=True)):
        assert float(g[0]) == pytest.approx(float(w), rel=tol[j], abs=1e-300), j
    both = K.slope_moments(side, np.array([lmbda, lmbda + 0.1]), np.zeros(2), False, exact)
    alone = K.slope_moments(side, np.array([lmbda + 0.1]), np.zeros(1), False, exact)
    assert both is not None and alone is not None
    for j in range(9):  # the same sums in the same order: equal to rounding of the dots
        assert both[j][0] == pytest.approx(got[j][0], rel=1e-13, abs=1e-300)
        assert both[j][1] == pytest.approx(alone[j][0], rel=1e-13, abs=1e-300)
