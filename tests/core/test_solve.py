"""Tests for boxcoxstat.core.solve: batched bracketing, Chandrupatla root finding, the solver."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from boxcoxstat.core.curvature import curvature
from boxcoxstat.core.likelihood import nll
from boxcoxstat.core.profile import SUBSAMPLE_FROM, SampleProfile
from boxcoxstat.core.roots import bracket_increasing, find_root
from boxcoxstat.core.solve import (
    _Recorder,
    _solve_score,
    solve,
)


def _counting(fun):
    calls = []

    def f(x, idx):
        calls.append(idx.copy())
        return fun(x, idx)

    return f, calls


def test_roots_of_many_columns_at_once():
    roots = np.array([-3.3e9, -361.0, 0.0, 1e-7, 2.5, 4.0e5])
    f, calls = _counting(lambda x, idx: np.tanh((x - roots[idx]) / (1 + abs(roots[idx]))))
    p = roots.size
    lo, hi, flo, fhi, ok, nb = bracket_increasing(f, np.zeros(p), np.ones(p))
    assert ok.all() and np.all(lo <= roots) and np.all(roots <= hi)
    res = find_root(f, lo, hi, flo, fhi, xatol=1e-14)
    assert res.converged.all()
    np.testing.assert_allclose(res.x, roots, rtol=1e-12, atol=1e-13)
    # every call evaluates a set of still-active columns, never one column at a time per call
    # (the first one both ends of every column)
    assert len(calls[0]) == 2 * p and max(len(c) for c in calls[1:]) >= p - 1  # root 0: done
    assert len(calls) < 80


def test_converged_columns_drop_out():
    roots = np.array([0.5, 1e6])
    f, calls = _counting(lambda x, idx: x - roots[idx])
    lo, hi, flo, fhi, ok, _ = bracket_increasing(f, np.zeros(2), np.ones(2))
    res = find_root(f, lo, hi, flo, fhi)
    assert ok.all() and res.converged.all()
    assert any(len(c) == 1 for c in calls)


def test_bracketing_reports_failure_beyond_limit():
    f, _ = _counting(lambda x, idx: np.full_like(x, -1.0))
    *_, ok, _ = bracket_increasing(f, np.zeros(1), np.ones(1), limit=1e6)
    assert not ok[0]


@pytest.mark.parametrize("root", [1e-300, -7.25, 123456.789])
def test_secant_and_interpolation_reach_machine_precision(root):
    f, calls = _counting(lambda x, idx: (x - root) * (1 + (x - root) ** 2))
    lo, hi, flo, fhi, ok, _ = bracket_increasing(f, np.array([-10.0]), np.array([-9.0]))
    res = find_root(f, lo, hi, flo, fhi, xatol=0.0)
    assert res.x[0] == pytest.approx(root, rel=1e-14, abs=1e-300)


# ------------------------------------------------------------------ the solver on a sample
@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_subsample_then_polish_matches_direct_solution(family):
    rng = np.random.default_rng(21)
    n = 3 * SUBSAMPLE_FROM
    x = rng.lognormal(sigma=0.7, size=n) if family == "boxcox" else rng.normal(size=n) ** 3
    fit = solve(SampleProfile.from_array(x, family))
    ref = stats.boxcox_normmax(x, method="mle") if family == "boxcox" else (
        stats.yeojohnson_normmax(x))
    assert fit.converged[0]
    assert fit.lmbda[0] == pytest.approx(ref, abs=1e-6)
    # the polished root is a true root: the NLL is larger on both sides at 1e-7
    lam = fit.lmbda[0]
    vals = nll(x, [lam - 1e-6, lam, lam + 1e-6], family)
    assert vals[1] < vals[0] and vals[1] < vals[2]


def test_curvature_matches_finite_difference_of_nll():
    x = np.random.default_rng(5).gamma(3.0, size=300)
    profile = SampleProfile.from_array(x)
    lam = solve(profile).lmbda
    h = 1e-3
    v = nll(x, [lam[0] - h, lam[0], lam[0] + h])
    fd = (v[0] - 2 * v[1] + v[2]) / h**2
    assert curvature(profile, lam)[0] == pytest.approx(fd, rel=1e-5)


def test_score_evaluations_are_few_on_ordinary_data():
    x = np.random.default_rng(0).lognormal(size=(500, 40))
    fit = solve(SampleProfile.from_array(x))
    assert fit.converged.all()
    assert fit.nfev.max() <= 16


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_secant_polish_agrees_with_the_bracketed_root(family):
    """The polish accepts its next iterate unevaluated on a predicted error; the root must
    equal the one closed by Chandrupatla to the bracket tolerance (no subsample), and its
    NLL (the last evaluated one corrected by the score) the NLL evaluated there."""
    rng = np.random.default_rng(8)
    n = 3 * SUBSAMPLE_FROM
    x = 1 + rng.lognormal(size=n) if family == "boxcox" else np.r_[rng.normal(size=n // 2),
                                                                    rng.exponential(size=n // 2)]
    profile = SampleProfile.from_array(x, family)
    fast = solve(profile)
    assert profile.subsample() is not None and fast.nfev[0] <= 5
    direct = _solve_score(profile, _Recorder(profile), (np.zeros(1), np.ones(1), None, None))
    assert fast.lmbda[0] == pytest.approx(direct.lmbda[0], rel=1e-12, abs=1e-13)
    val, sc = profile.evaluate(fast.lmbda, [0])
    # to rounding of the terms the NLL is summed from (n/2 log var and (1 - lambda) J)
    scale = abs(val[0]) + n + abs(1 - fast.lmbda[0]) * np.sum(np.abs(np.log1p(np.abs(x))))
    assert fast.nll[0] == pytest.approx(val[0], rel=0, abs=1e-14 * scale)
    # the score at the accepted root is at the level of its rounding error
    assert abs(sc[0]) <= 1e-9 * np.sum(np.abs(np.log(np.abs(x) + (family != "boxcox"))))


_POLISH_DATA = {
    "boxcox": [lambda r, n: 1 + r.lognormal(size=n), lambda r, n: r.gamma(2.0, size=n),
               lambda r, n: r.lognormal(sigma=0.3, size=n), lambda r, n: 1 + r.pareto(3.0, size=n),
               lambda r, n: r.uniform(1.0, 5.0, size=n)],
    "yeojohnson": [lambda r, n: r.lognormal(0.0, 0.75, size=n), lambda r, n: r.normal(size=n) ** 3,
                   lambda r, n: r.standard_t(3, size=n), lambda r, n: -r.gamma(2.0, size=n),
                   lambda r, n: np.r_[r.normal(size=n), r.exponential(size=n)]],
}


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_model_steps_keep_the_root_within_the_tolerance(family):
    """The polish (one column: Newton's method with the score's derivative and the Hermite
    cubic; see test_newton_polish_*) accepts a root after two passes where the interpolation
    error estimate allows it; on every shape and seed the root must still lie within the solver's
    tolerance (1e-13 + 4 eps |lambda|) of the root Chandrupatla closes to 1e-16 without the
    subsample."""
    n = 3 * SUBSAMPLE_FROM // 2
    passes = []
    for k, make in enumerate(_POLISH_DATA[family]):
        for seed in range(3):
            x = make(np.random.default_rng(100 * k + seed), n)
            profile = SampleProfile.from_array(x, family)
            fit = solve(profile)
            ref = _solve_score(profile, _Recorder(profile), (np.zeros(1), np.ones(1), None, None),
                               xatol=1e-16, xrtol=1e-16)
            tol = 1e-13 + 4 * np.finfo(float).eps * abs(ref.lmbda[0])
            assert fit.converged[0]
            assert abs(fit.lmbda[0] - ref.lmbda[0]) <= tol
            passes.append(int(fit.nfev[0]))
    # the point of the Newton polish: these fits end after two full passes (three with the
    # secant polish's model steps, four before them), except where there is no subsample
    # (two Yeo-Johnson shapes: each side below SUBSAMPLE_FROM), lambda * d is small
    # throughout (Box-Cox sigma 0.3: the secant polish) or the pass without the series is
    # not provably harmless (-gamma: one exact pass more)
    assert np.mean(np.array(passes) == 2) >= 0.4, passes


def test_polish_without_the_subsample_derivatives_still_converges():
    """Where the subsample's second and third derivatives are unknown (NaN, or not given) the
    polish steps as Newton's method and the secant, then the parabola, and must reach the
    same root."""
    from boxcoxstat.core.solve import XATOL, XRTOL, _secant_polish, _subsample_start

    x = 1 + np.random.default_rng(6).lognormal(size=3 * SUBSAMPLE_FROM // 2)
    profile = SampleProfile.from_array(x)
    sub = profile.subsample()
    x0, c, higher = _subsample_start(sub, profile.nobs() / sub.nobs())
    roots = []
    for h in (higher, None, np.full_like(higher, np.nan)):
        lam, _, done, _, _ = _secant_polish(_Recorder(profile), x0, c, XATOL, XRTOL, h)
        assert done[0]
        roots.append(lam[0])
    # each within the solver's tolerance of the first
    assert roots[1] == pytest.approx(roots[0], rel=0, abs=2e-13)
    assert roots[2] == pytest.approx(roots[0], rel=0, abs=2e-13)


def test_curvature_in_one_call_matches_richardson():
    """With the solver's slope, curvature() takes one evaluation (a single central difference
    above SUBSAMPLE_FROM observations); it must match the two-call Richardson value."""
    x = 1 + np.random.default_rng(4).lognormal(size=2 * SUBSAMPLE_FROM)
    profile = SampleProfile.from_array(x)
    fit = solve(profile)
    calls = []
    orig = profile.evaluate

    class Counting(SampleProfile):
        def evaluate(self, lmbda, cols, *, score=True):
            calls.append(1)
            return orig(lmbda, cols, score=score)

    counted = Counting(profile.sample)
    fast = curvature(counted, fit.lmbda, fit.slope)
    assert len(calls) == 1
    slow = curvature(profile, fit.lmbda)  # no slope: the first difference, then Richardson
    assert fast[0] == pytest.approx(slow[0], rel=1e-8)


@pytest.mark.parametrize("family,x", [
    ("boxcox", np.random.default_rng(11).lognormal(size=50)),
    ("yeojohnson", np.random.default_rng(12).normal(size=40) * 3.0),
    ("boxcox", np.array([0.1, 0.1, 0.1, 0.101])),  # optimum near -361: beyond the ladder
    ("yeojohnson", np.array([1.0, 2.0, 2.5, 3.0, 40.0, 41.0])),
])
def test_short_column_ladder_start_reaches_the_exact_root(family, x):
    """A short column starts from the score on the ladder (one evaluation of 40 lambdas) and
    still lands on the exact optimum, also where the optimum lies beyond the ladder's ends
    (doubling goes on from the outermost pair)."""
    from boxcoxstat.core.solve import LADDER, LADDER_ROWS
    from tests.mpref import exact_lambda

    profile = SampleProfile.from_array(x, family)
    assert profile.sample.nrows <= LADDER_ROWS
    rec = _Recorder(profile)
    sol = _solve_score(profile, rec, None)
    assert rec.seen[0][1].size == LADDER.size  # the first evaluation is the ladder
    ref = float(exact_lambda(x, family))
    # the score is accurate to rounding, so the root is exact to about 1e-12 relative
    assert sol.converged[0] and sol.lmbda[0] == pytest.approx(ref, rel=1e-11, abs=1e-12)
    assert sol.nll[0] == pytest.approx(profile.evaluate(sol.lmbda, [0], score=False)[0][0],
                                       rel=1e-14)


@pytest.mark.parametrize("side", ["below", "above"])
def test_third_point_starts_by_interpolation(side):
    """With a third point beside the bracket (either side) the first step is inverse quadratic
    interpolation: on exp(x) - 2 (root log 2) one evaluation and the predicted next iterate
    reach the root, where the bare bracket takes more."""
    root = np.log(2.0)

    def g(x):
        return np.expm1(x) - 1.0

    f, calls = _counting(lambda x, idx: g(x))
    a, b = np.array([root - 3e-4]), np.array([root + 1e-4])
    c = a - 2e-4 if side == "below" else b + 2e-4
    res = find_root(f, a, b, g(a), g(b), xatol=1e-13, predict=True, c=c, fc=g(c))
    assert len(calls) == 1
    assert res.converged[0] and res.x[0] == pytest.approx(root, rel=4e-16)  # a few ulps
    calls.clear()
    bare = find_root(f, a, b, g(a), g(b), xatol=1e-13, predict=True)
    assert len(calls) >= 2 and bare.x[0] == pytest.approx(root, rel=4e-16)


def test_short_column_zoom_takes_three_evaluations():
    """The ladder, the zoom around its interpolated root and one step of Chandrupatla's method:
    three evaluations on ordinary short samples (the ladder's bracket alone needed four or
    five), and the root is still the exact one."""
    from tests.mpref import exact_lambda

    rng = np.random.default_rng(7)
    for family, x in [("boxcox", rng.lognormal(size=50)),
                      ("yeojohnson", rng.lognormal(size=50) - 1.0),
                      ("yeojohnson", rng.normal(size=30)),
                      ("boxcox", rng.gamma(3.0, size=80))]:
        sol = solve(SampleProfile.from_array(x, family))
        assert sol.nfev[0] == 3
        ref = float(exact_lambda(x, family))
        assert sol.lmbda[0] == pytest.approx(ref, rel=1e-13, abs=1e-13)  # XATOL 1e-13


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_newton_polish_takes_two_full_passes_on_1e6_values(family):
    """A column of 1e6 values (Box-Cox; mixed-sign Yeo-Johnson) is solved in two full passes
    (the subsample's start, one pass of the score and its derivative without the series, one
    exact pass, the Hermite cubic's root accepted unevaluated; the secant polish took three,
    and four before its model steps), and the root lies within the solver's tolerance of the
    root Chandrupatla's method closes to 1e-16 from a bracket around it."""
    from boxcoxstat.core.roots import find_root

    rng = np.random.default_rng(31)
    n = 10**6
    x = (1.0 + rng.lognormal(size=n) if family == "boxcox"
         else np.r_[rng.normal(size=n // 2), rng.exponential(size=n - n // 2)])
    profile = SampleProfile.from_array(x, family)
    fit = solve(profile)
    assert fit.converged[0]
    assert int(fit.nfev[0]) == 2

    def f(lam, _):
        return profile.evaluate(lam, np.zeros(lam.size, dtype=np.intp))[1]

    lo, hi = fit.lmbda - 1e-7, fit.lmbda + 1e-7
    ref = find_root(f, lo, hi, f(lo, 0), f(hi, 0), xatol=1e-300, xrtol=1e-16)
    tol = 1e-13 + 4 * np.finfo(float).eps * abs(ref.x[0])  # the solver's own tolerance
    assert abs(fit.lmbda[0] - ref.x[0]) <= tol
    # the NLL at the accepted root (the last evaluated one corrected by the score) is the
    # NLL evaluated there, to the rounding of terms of size n log(var) (1e6 x 10 x eps)
    assert fit.nll[0] == pytest.approx(profile.evaluate(fit.lmbda, [0], score=False)[0][0],
                                       rel=0, abs=1e-8)


def test_newton_polish_falls_back_where_the_profile_has_no_derivative_pass():
    """Weighted data have no derivative pass (``evaluate_slope`` returns None): the secant
    polish runs as before, on the same root."""
    rng = np.random.default_rng(5)
    n = 3 * SUBSAMPLE_FROM // 2
    x = 1 + rng.lognormal(size=n)
    w = np.ones(n)
    weighted = SampleProfile.from_array(x, "boxcox", weights=w)
    assert weighted.evaluate_slope(np.array([0.5]), [0]) is None
    plain = SampleProfile.from_array(x, "boxcox")
    a, b = solve(weighted), solve(plain)
    assert int(a.nfev[0]) >= 3 and int(b.nfev[0]) == 2
    assert a.lmbda[0] == pytest.approx(b.lmbda[0], rel=0, abs=2e-13)  # two tolerances
