"""boxcoxstat.core.profile: evaluation at pairs ``(lmbda[k], cols[k])``, ``as_pairs``, the
systematic subsample of large samples and the callback profile.

The reference is the profile NLL written out, ``(1 - lambda) J + n/2 log Var(psi)`` with
``J = sum log x`` (Box-Cox) or ``sum sign(x) log(1 + |x|)`` (Yeo-Johnson) and the variance with
divisor n, evaluated in mpmath at 50 digits from the raw values (no log-ratios, no shifts).

Tolerances: at the moderate lambdas used here the NLL is the sum of two terms of size up to
about 100, each computed in float64 from sums of at most 40 values, so its rounding error is a
few hundred ulps of the terms at most (4e-15 of their size seen); the tests allow 1e-12 of
the terms' size (``_close``). A pair evaluated in a batch and alone may differ only by the
order of the same sums (1e-13 of the terms' size allowed, 1e-12 relative for the score;
identical seen).
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from boxcoxstat.core import profile as profile_module
from boxcoxstat.core.profile import CallbackProfile, SampleProfile, as_pairs
from boxcoxstat.core.solve import solve


def _data(family):
    """Three columns with different n: Box-Cox positive; Yeo-Johnson mixed-sign, positive
    only and negative only (one missing value in the last column)."""
    rng = np.random.default_rng(11)
    if family == "boxcox":
        x = np.column_stack([rng.lognormal(0.0, 0.6, 40), rng.gamma(2.0, 1.5, 40) + 0.2,
                             rng.uniform(0.5, 4.0, 40)])
    else:
        x = np.column_stack([rng.normal(0.3, 1.5, 40), rng.gamma(2.0, 1.0, 40),
                             -rng.gamma(3.0, 0.7, 40)])
    x[7, 2] = np.nan
    return x


def _mp_terms(col, lam, family):
    """The two terms ``(1 - lambda) J`` and ``n/2 log Var(psi)`` of the NLL, in mpmath."""
    with mp.workdps(50):
        return _terms(col, lam, family)


def _terms(col, lam, family):
    vals = [mp.mpf(float(v)) for v in col[~np.isnan(col)]]
    lam = mp.mpf(lam)

    def power(b, k):  # (b**k - 1) / k, the log at k = 0
        return mp.log(b) if k == 0 else mp.expm1(k * mp.log(b)) / k

    if family == "boxcox":
        jac = mp.fsum(mp.log(v) for v in vals)
        psi = [power(v, lam) for v in vals]
    else:
        jac = mp.fsum(mp.sign(v) * mp.log(1 + abs(v)) for v in vals)
        psi = [power(1 + v, lam) if v >= 0 else -power(1 - v, 2 - lam) for v in vals]
    n = len(vals)
    mean = mp.fsum(psi) / n
    var = mp.fsum((p - mean) ** 2 for p in psi) / n
    return (1 - lam) * jac, mp.mpf(n) / 2 * mp.log(var)


def _mp_nll(col, lam, family):
    a, b = _mp_terms(col, lam, family)
    return float(a + b), float(abs(a) + abs(b))


def _close(got, col, lam, family):
    want, scale = _mp_nll(col, lam, family)
    assert got == pytest.approx(want, rel=0, abs=1e-12 * scale), (lam, family)


def _alone(x, family, lam, j):
    """The pair evaluated on column ``j`` alone (its own one-column profile)."""
    val, sc = SampleProfile.from_array(x[:, j], family).evaluate([lam], [0])
    return val[0], sc[0]


def _same(batch, alone, x, j, lam, family):
    _, scale = _mp_nll(x[:, j], lam, family)
    assert batch == pytest.approx(alone, rel=0, abs=1e-13 * scale)


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_one_lambda_per_column(family):
    x = _data(family)
    lam = np.array([0.3, -0.7, 1.6])
    val, sc = SampleProfile.from_array(x, family).evaluate(lam, [0, 1, 2])
    for j in range(3):
        _close(val[j], x[:, j], lam[j], family)
        v1, s1 = _alone(x, family, lam[j], j)
        _same(val[j], v1, x, j, lam[j], family)
        assert sc[j] == pytest.approx(s1, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
@pytest.mark.parametrize("j", [0, 2])
def test_many_lambdas_of_one_column(family, j):
    x = _data(family)
    lam = np.array([-2.0, -0.5, 0.0, 0.25, 1.0, 1.5, 2.0, 3.0])
    val, sc = SampleProfile.from_array(x, family).evaluate(lam, j)
    assert val.shape == sc.shape == lam.shape
    for k, lk in enumerate(lam):
        _close(val[k], x[:, j], lk, family)
        v1, s1 = _alone(x, family, lk, j)
        _same(val[k], v1, x, j, lk, family)
        assert sc[k] == pytest.approx(s1, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_mixed_pairs_with_repeated_columns(family):
    x = _data(family)
    cols = np.array([2, 0, 2, 1, 0, 2, 1])
    lam = np.array([0.5, -1.0, 1.5, 0.0, 2.5, -0.3, 0.9])
    prof = SampleProfile.from_array(x, family)
    val, sc = prof.evaluate(lam, cols)
    for k, (lk, j) in enumerate(zip(lam, cols, strict=True)):
        _close(val[k], x[:, j], lk, family)
        v1, s1 = _alone(x, family, lk, j)
        _same(val[k], v1, x, j, lk, family)
        assert sc[k] == pytest.approx(s1, rel=1e-12, abs=1e-12)
    # the same pairs in another order give the same values, in that order
    perm = np.array([6, 3, 0, 5, 1, 4, 2])
    val2, _ = prof.evaluate(lam[perm], cols[perm])
    np.testing.assert_allclose(val2, val[perm], rtol=1e-13)


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_score_is_the_derivative_of_the_nll(family):
    """The score against mpmath's derivative of the written-out NLL (away from lambda = 0,
    where the reference switches to the log). Score = -J + n Cov/Var: rounding is a few ulps
    of |J| + n (3e-16 of it seen), 1e-12 of it allowed."""
    x = _data(family)
    lam = np.array([-1.2, 0.4, 2.2])
    _, sc = SampleProfile.from_array(x, family).evaluate(lam, [0, 1, 2])
    for j in range(3):
        col = x[:, j]
        with mp.workdps(50):
            want = mp.diff(lambda t, c=col: mp.fsum(_terms(c, t, family)), mp.mpf(lam[j]))
        jac = np.nansum(np.log(col) if family == "boxcox"
                        else np.sign(col) * np.log1p(np.abs(col)))
        n = np.count_nonzero(~np.isnan(col))
        assert sc[j] == pytest.approx(float(want), rel=0, abs=1e-12 * (abs(jac) + n))


def test_without_score_the_score_is_nan_and_values_unchanged():
    x = _data("yeojohnson")
    prof = SampleProfile.from_array(x, "yeojohnson")
    lam, cols = [0.5, 1.5, 0.5, 1.0], [0, 1, 2, 0]
    val, sc = prof.evaluate(lam, cols, score=False)
    assert np.isnan(sc).all()
    np.testing.assert_allclose(val, prof.evaluate(lam, cols)[0], rtol=1e-14)


def test_as_pairs_broadcasts_a_scalar():
    lam, idx = as_pairs(0.5, [0, 1, 2])
    np.testing.assert_array_equal(lam, [0.5, 0.5, 0.5])
    np.testing.assert_array_equal(idx, [0, 1, 2])
    assert lam.dtype == np.float64 and idx.dtype == np.intp
    lam, idx = as_pairs([-1, 0.25, 3], 4)
    np.testing.assert_array_equal(lam, [-1.0, 0.25, 3.0])
    np.testing.assert_array_equal(idx, [4, 4, 4])
    lam, idx = as_pairs(2, 1)
    assert lam.shape == idx.shape == (1,) and lam[0] == 2.0 and idx[0] == 1
    lam, idx = as_pairs([0.1, 0.2], [1, 0])
    np.testing.assert_array_equal(lam, [0.1, 0.2])
    np.testing.assert_array_equal(idx, [1, 0])
    # writable, contiguous arrays of their own (a broadcast view would be read-only)
    for a in as_pairs(0.5, [0, 1, 2]):
        assert a.flags.c_contiguous and a.flags.writeable
    with pytest.raises(ValueError):
        as_pairs([0.1, 0.2, 0.3], [0, 1])


def test_no_subsample_up_to_the_threshold(monkeypatch):
    monkeypatch.setattr(profile_module, "SUBSAMPLE_FROM", 100)
    monkeypatch.setattr(profile_module, "SUBSAMPLE_SIZE", 20)
    x = np.random.default_rng(2).lognormal(size=100)
    assert SampleProfile.from_array(x).subsample() is None
    assert SampleProfile.from_array(x[:50]).subsample() is None


@pytest.mark.parametrize(("n", "step"), [(85, 8), (101, 10), (250, 25), (399, 39)])
def test_subsample_is_every_kth_row_above_the_threshold(monkeypatch, n, step):
    """A matrix of p columns above 8 r rows, r = max(SUBSAMPLE_MIN_ROWS, SUBSAMPLE_SIZE // p),
    is started from rows 0, k, 2k, ... with k = n // r (the steps written out here for the
    patched 20 and 10: r = 10, so from 81 rows on)."""
    monkeypatch.setattr(profile_module, "SUBSAMPLE_SIZE", 20)
    monkeypatch.setattr(profile_module, "SUBSAMPLE_MIN_ROWS", 10)
    rng = np.random.default_rng(n)
    x = np.column_stack([rng.lognormal(0.0, 0.8, n), rng.gamma(3.0, size=n)])
    assert SampleProfile.from_array(x[:80]).subsample() is None
    x[::7, 1] = np.nan  # missing values stay with their rows
    sub = SampleProfile.from_array(x).subsample()
    assert sub is not None
    rows = x[::step]
    assert rows.shape[0] == len(range(0, n, step))
    np.testing.assert_array_equal(sub.nobs(), np.sum(~np.isnan(rows), axis=0))
    lam = np.array([-0.4, 0.7, 1.3, 0.2])
    cols = np.array([0, 1, 1, 0])
    val, _ = sub.evaluate(lam, cols)
    for k in range(4):
        _close(val[k], rows[:, cols[k]], lam[k], "boxcox")


@pytest.mark.parametrize(("n", "step"), [(101, 5), (250, 12), (399, 19)])
def test_one_column_subsample_above_subsample_from(monkeypatch, n, step):
    """One column above SUBSAMPLE_FROM rows: every k-th value, k = n // SUBSAMPLE_SIZE
    (written out for the patched 100 and 20)."""
    monkeypatch.setattr(profile_module, "SUBSAMPLE_FROM", 100)
    monkeypatch.setattr(profile_module, "SUBSAMPLE_SIZE", 20)
    x = np.random.default_rng(n).lognormal(0.0, 0.8, n)
    sub = SampleProfile.from_array(x).subsample()
    assert sub is not None
    np.testing.assert_array_equal(sub.nobs(), [len(range(0, n, step))])
    val, _ = sub.evaluate(np.array([0.3]), np.array([0]))
    _close(val[0], x[::step], 0.3, "boxcox")


class _Counter:
    """A callback that answers from a sample's profile and records every round."""

    def __init__(self, inner, as_lists=False):
        self.inner = inner
        self.calls = []
        self.as_lists = as_lists

    def __call__(self, lam, cols, score=True):
        self.calls.append((lam.copy(), cols.copy(), score))
        val, sc = self.inner.evaluate(lam, cols, score=score)
        return (val.tolist(), sc.tolist()) if self.as_lists else (val, sc)


def test_callback_profile_makes_one_call_per_evaluation():
    x = _data("boxcox")
    inner = SampleProfile.from_array(x)
    cb = _Counter(inner, as_lists=True)
    prof = CallbackProfile(cb, inner.nobs())
    lam = np.array([0.3, 1.1, -0.2, 0.8, 2.0])
    cols = np.array([0, 2, 2, 1, 0])
    val, sc = prof.evaluate(lam, cols)
    assert len(cb.calls) == 1  # five pairs, one round
    np.testing.assert_array_equal(cb.calls[0][0], lam)
    np.testing.assert_array_equal(cb.calls[0][1], cols)
    assert cb.calls[0][2] is True
    assert isinstance(val, np.ndarray) and val.dtype == np.float64 and sc.dtype == np.float64
    want_val, want_sc = inner.evaluate(lam, cols)
    np.testing.assert_array_equal(val, want_val)
    np.testing.assert_array_equal(sc, want_sc)
    # a scalar lambda reaches the callback broadcast over the columns; score=False passes on
    prof.evaluate(0.5, [0, 1, 2], score=False)
    assert len(cb.calls) == 2
    np.testing.assert_array_equal(cb.calls[1][0], [0.5, 0.5, 0.5])
    np.testing.assert_array_equal(cb.calls[1][1], [0, 1, 2])
    assert cb.calls[1][2] is False


def test_callback_profile_counts_and_offsets():
    n = np.array([40.0, 40.0, 39.0])
    sub = SampleProfile.from_array(_data("boxcox"))
    prof = CallbackProfile(_Counter(sub), n, sub=sub)
    assert prof.ncols == 3 and prof.subsample() is sub
    np.testing.assert_array_equal(prof.nobs(), n)
    np.testing.assert_allclose(prof.llf_offset(), -n / 2 * (np.log(2 * np.pi) + 1), rtol=1e-15)
    assert CallbackProfile(_Counter(sub), n).subsample() is None


def test_solver_on_a_callback_profile_matches_the_sample():
    """Every solver step through the callback is one call; the answer is the sample's."""
    x = _data("boxcox")
    inner = SampleProfile.from_array(x)
    cb = _Counter(inner)
    via = solve(CallbackProfile(cb, inner.nobs()))
    direct = solve(inner)
    np.testing.assert_allclose(via.lmbda, direct.lmbda, rtol=1e-12)
    assert len(cb.calls) >= 2
    assert all(c[0].ndim == 1 and c[0].shape == c[1].shape for c in cb.calls)


def test_a_subsample_skips_the_series_and_the_solver_lands_on_the_same_root(monkeypatch):
    """A subsample's profile only starts the solver: its scores skip the small-argument
    series (within the closed form's error of the exact scores), and the full data's root
    is the one an exact subsample leads to (the polish's own scores are exact)."""
    from boxcoxstat.core.profile import SampleProfile
    from boxcoxstat.core.solve import solve

    rng = np.random.default_rng(21)
    x = rng.lognormal(0.0, np.linspace(0.2, 2.0, 20), size=(30_000, 20)) - 1.0
    profile = SampleProfile.from_array(x, "yeojohnson")
    sub = profile.subsample()
    assert sub is not None and sub.series is False and profile.series is True
    lam = np.linspace(-0.5, 1.5, 20)
    cols = np.arange(20)
    quick = sub.evaluate(lam, cols)
    exact = SampleProfile(sub.sample).evaluate(lam, cols)
    np.testing.assert_array_equal(quick[0], exact[0])  # the NLL does not use the series
    # the closed form errs by ~eps |a| a value where |a| < 1/8: far below 1e-10 of a score
    np.testing.assert_allclose(quick[1], exact[1], rtol=1e-10, atol=1e-10)
    got = solve(profile).lmbda
    monkeypatch.setattr(SampleProfile, "subsample",  # an exact start
                        lambda self: SampleProfile(sub.sample) if self is profile else None)
    want = solve(profile).lmbda
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)
