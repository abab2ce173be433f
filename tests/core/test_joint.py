"""The joint profile likelihood (core/joint.py): the NLL and its gradient against mpmath, and
the likelihood profiled to one power at a time (``ColumnProfiles``) against a direct
minimisation written here from the textbook formula."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize

import boxcoxstat as bcs
from boxcoxstat.core import inference as inf
from boxcoxstat.core.design import qr_design
from boxcoxstat.core.joint import ColumnProfiles, JointProfile
from boxcoxstat.core.joint_solve import fit_joint_lambda
from tests.joint.carref import direct_nll


def _mp_joint_nll(y, lam, family, x_design, dps=400):
    """Joint NLL in ``dps``-digit arithmetic, straight from the definition (an mpf); 400
    digits because at lambda = 150 the variation of 0.1**lambda sits 150 digits below the
    constant (at lambda = 700, 700 digits: more digits for larger powers)."""
    import mpmath as mp

    with mp.workdps(dps):
        n, p = y.shape
        cols, logjac = [], mp.mpf(0)
        for j in range(p):
            lj = mp.mpf(lam[j])
            col = []
            for v in y[:, j]:
                v = mp.mpf(float(v))
                if family == "boxcox":
                    col.append(mp.log(v) if lj == 0 else (v ** lj - 1) / lj)
                    logjac += (lj - 1) * mp.log(v)
                elif v >= 0:
                    col.append(mp.log1p(v) if lj == 0 else ((1 + v) ** lj - 1) / lj)
                    logjac += (lj - 1) * mp.log1p(v)
                else:
                    k = 2 - lj
                    col.append(-(mp.log1p(-v) if k == 0 else ((1 - v) ** k - 1) / k))
                    logjac -= (lj - 1) * mp.log1p(-v)
            cols.append(col)
        ymat = mp.matrix(n, p)
        for j in range(p):
            for i in range(n):
                ymat[i, j] = cols[j][i]
        xm = mp.matrix(x_design.tolist())
        beta = mp.inverse(xm.T * xm) * (xm.T * ymat)
        resid = ymat - xm * beta
        sigma = (resid.T * resid) / n
        # det of the correlation matrix times the variances (mp.det of a matrix whose
        # entries span hundreds of orders of magnitude would underflow its pivoting)
        corr = mp.matrix(p, p)
        for a in range(p):
            for b in range(p):
                corr[a, b] = sigma[a, b] / mp.sqrt(sigma[a, a] * sigma[b, b])
        logdet = mp.log(mp.det(corr)) + mp.fsum(mp.log(sigma[a, a]) for a in range(p))
        return n / 2 * logdet - logjac


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_joint_nll_and_score_against_mpmath(family):
    """The scaled, QR-based NLL equals the textbook formula evaluated in 400 digits, also
    where psi is astronomically large or the data are tightly clustered."""
    import mpmath as mp

    rng = np.random.default_rng(3)
    n = 12
    g = np.repeat([0.0, 1.0, 2.0], 4)
    x_design = np.column_stack([np.ones(n), g == 1, g == 2]).astype(float)
    y = np.column_stack([
        rng.lognormal(3.0, 0.4, n),
        0.1 + 1e-4 * rng.random(n),  # clustered: lambda in the hundreds is natural
        rng.lognormal(0.0, 1.0, n) * (1.0 if family == "boxcox" else -1.0),
        rng.normal(size=n) if family == "yeojohnson" else rng.lognormal(1.0, 0.2, n),
    ])
    prob = JointProfile.build(y, qr_design(x_design), family)
    for lam in ([0.3, -300.0, 1.2, 0.0], [2.0, 150.0, -0.5, 1.0], [-1.0, 0.0, 3.0, 2.5]):
        lam = np.array(lam)
        want = float(_mp_joint_nll(y, lam, family, x_design))
        val, grad = prob.nll(lam, grad=True)
        assert val == pytest.approx(want, rel=1e-11, abs=1e-9)
        for j in range(4):
            h = 1e-10
            up, down = lam.copy(), lam.copy()
            up[j] += h
            down[j] -= h
            with mp.workdps(400):
                d = float((_mp_joint_nll(y, up, family, x_design)
                           - _mp_joint_nll(y, down, family, x_design)) / (up[j] - down[j]))
            assert grad[j] == pytest.approx(d, rel=1e-9, abs=1e-9)


def _mp_hessian(y, lam, family, x_design, dps, h=1e-6):
    """Second differences of :func:`_mp_joint_nll` at step ``h``."""
    import mpmath as mp

    p = len(lam)
    want = np.empty((p, p))
    with mp.workdps(dps):
        f0 = _mp_joint_nll(y, lam, family, x_design, dps)
        for j in range(p):
            for k in range(j, p):
                def f(dj, dk, j=j, k=k):
                    at = [mp.mpf(float(v)) for v in lam]
                    at[j] += dj
                    at[k] += dk
                    return _mp_joint_nll(y, at, family, x_design, dps)
                if j == k:
                    d2 = (f(h, 0) - 2 * f0 + f(-h, 0)) / h**2
                else:
                    d2 = (f(h, h) - f(h, -h) - f(-h, h) + f(-h, -h)) / (4 * h * h)
                want[j, k] = want[k, j] = float(d2)
    return want


@pytest.mark.slow
@pytest.mark.parametrize("lam", [[2.0, 700.0, 0.0], [0.3, -3000.0, 1.2]])
def test_joint_hessian_at_powers_in_the_thousands(lam):
    """The closed-form Hessian where a power is in the hundreds or thousands (clustered data,
    0.1 + 1e-4 u): a 400-digit reference is too short there (0.1**700 lies 700 digits below
    the constant; a report of the Hessian 6.7% off at (-2000, 700) came from such a
    reference); with 1500 digits the Hessian agrees to 1e-12 (measured 2.8e-13). Slow:
    19 evaluations of the 1500-digit NLL per point, 6 s."""
    rng = np.random.default_rng(5)
    n = 10
    x_design = np.column_stack([np.ones(n), np.arange(n) % 2]).astype(float)
    y = np.column_stack([rng.lognormal(3.0, 0.4, n), 0.1 + 1e-4 * rng.random(n),
                         1e-300 * rng.lognormal(0, 1, n)])
    prob = JointProfile.build(y, qr_design(x_design), "boxcox")
    lam = np.array(lam)
    want = _mp_hessian(y, lam, "boxcox", x_design, 1500)
    # 1e-12: the reference's step of 1e-6 leaves about 1e-12 of the fourth derivative
    np.testing.assert_allclose(prob.hessian(lam), want, rtol=1e-12)
    np.testing.assert_allclose(prob.second_order(lam, exact=False)[2], want, rtol=1e-12)


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_joint_hessian_against_mpmath(family):
    """JointProfile.hessian (closed form: the transforms' second derivatives in lambda are
    ``d^3 exprel''(k d)``) and its Gram-matrix form (the Newton iterations') equal second
    differences of the 400-digit NLL, columns with the constant absorbed (Box-Cox, including
    values near 1e-300) and two-sided Yeo-Johnson columns alike.

    Tolerance 1e-11 of the largest entry and 1e-10 of each entry: the reference's step of
    1e-6 leaves about 1e-12 of the fourth derivative; measured 5e-14 and 3e-13.
    """
    rng = np.random.default_rng(5)
    n = 10
    x_design = np.column_stack([np.ones(n), np.arange(n) % 2]).astype(float)
    y = np.column_stack([
        rng.lognormal(3.0, 0.4, n),
        0.1 + 1e-4 * rng.random(n),  # clustered: lambda in the hundreds is natural
        rng.normal(size=n) if family == "yeojohnson" else 1e-300 * rng.lognormal(0, 1, n),
    ])
    prob = JointProfile.build(y, qr_design(x_design), family)
    for lam in ([0.3, -300.0, 1.2], [2.0, 150.0, 0.0]):
        lam = np.array(lam)
        got = prob.hessian(lam)
        want = _mp_hessian(y, lam, family, x_design, 400)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-11 * np.abs(want).max())
        fast = prob.second_order(lam, exact=False)
        np.testing.assert_allclose(fast[2], want, rtol=1e-10, atol=1e-11 * np.abs(want).max())
        val, grad = prob.nll(lam, grad=True)
        assert fast[0] == pytest.approx(val, rel=1e-13)
        np.testing.assert_allclose(fast[1], grad, rtol=1e-10, atol=1e-9)


def test_absurd_lambdas_give_inf_not_warnings():
    """The optimiser may probe anywhere: no overflow warning, just +inf (or a finite value)."""
    y = bcs.datasets.load("highway1")[["len", "adt"]].to_numpy(float)
    prob = JointProfile.build(y, qr_design(np.ones((len(y), 1))), "boxcox")
    for lam in ([1e300, 0.0], [-1e308, 1.0], [np.inf, 0.0], [np.nan, 1.0]):
        val, grad = prob.nll(np.array(lam), grad=True)
        assert val > 1e100
    val, grad = prob.nll(np.array([1e5, 1e5]), grad=True)
    assert np.isfinite(val) and np.all(np.isfinite(grad))


@pytest.fixture(scope="module")
def three_columns():
    hw = bcs.datasets.load("highway1")
    y = hw[["len", "adt", "sigs1"]].to_numpy(float)
    x = np.column_stack([np.ones(len(y)), hw["slim"].to_numpy(float)])
    prob = JointProfile.build(y, qr_design(x), "boxcox")
    fit = fit_joint_lambda(prob)
    return y, x, prob, fit


def test_column_profile_is_the_minimum_over_the_other_powers(three_columns):
    """Profile values against Nelder-Mead on the direct NLL (tolerances 1e-12 in lambda and
    1e-13 in the NLL: its value is then within ~1e-12 of the minimum, whose size is ~1e2)."""
    y, x, prob, fit = three_columns
    prof = prob.column_profiles(fit.lmbda, np.linalg.inv(fit.hessian))
    assert isinstance(prof, ColumnProfiles) and prof.ncols == 3
    for j, t in ((0, fit.lmbda[0] + 0.4), (1, -0.3), (2, fit.lmbda[2] - 0.25)):
        others = [k for k in range(3) if k != j]

        def direct(o, j=j, t=t, others=others):
            lam = np.empty(3)
            lam[j], lam[others] = t, o
            return direct_nll(y, x, lam)

        best = optimize.minimize(direct, np.ones(2), method="Nelder-Mead",
                                 options={"xatol": 1e-12, "fatol": 1e-13, "maxiter": 20000})
        val, score = prof.evaluate([t], [j])
        assert val[0] == pytest.approx(best.fun, rel=1e-11)
        # envelope theorem: the score is the profile's slope (central difference of the
        # profile values; step 1e-5, so the difference is exact to ~1e-9 of the slope)
        up, down = prof.evaluate([t + 1e-5, t - 1e-5], [j, j], score=False)[0]
        assert score[0] == pytest.approx((up - down) / 2e-5, rel=1e-6, abs=1e-7)


def test_column_profile_curvature_is_the_inverse_covariance(three_columns):
    """At the MLE the profile of power j curves as 1 / cov[j, j] (the Schur complement of the
    Hessian): the core's curvature of the profile against the joint Hessian, two numerical
    routes (the profile's score carries the inner minimisation's ~1e-9 error, and its
    differences are taken at ~1e-3, hence 5e-6)."""
    _, _, prob, fit = three_columns
    cov = np.linalg.inv(fit.hessian)
    prof = prob.column_profiles(fit.lmbda, cov)
    np.testing.assert_allclose(inf.standard_error(prof, fit.lmbda), np.sqrt(np.diag(cov)),
                               rtol=5e-6)
    assert np.all(prof.nobs() == prob.nobs)
    np.testing.assert_allclose(prof.llf_offset(), prob.llf_constant(), rtol=1e-15)


def test_one_column_profile_is_the_columns_own():
    """One column: no other power to profile out, the column's (sample's) own profile."""
    y = bcs.datasets.load("highway1")[["len"]].to_numpy(float)
    prob = JointProfile.build(y, qr_design(np.ones((len(y), 1))), "boxcox")
    assert prob.column_profiles([0.1], [[0.04]]) is prob.single


def test_newton_reaches_the_direct_minimum_without_bfgs(monkeypatch):
    """From the per-column MLEs, Newton with the closed-form Hessian converges on its own
    (BFGS is not called) in a few evaluations, to the minimum of the textbook NLL
    (``direct_nll``: scipy's transform, lstsq, slogdet) found by Nelder-Mead, and no higher
    than it; correlated columns, so the joint powers differ from the columns' own."""
    rng = np.random.default_rng(11)
    n = 400
    z = rng.multivariate_normal([0.0, 0.0, 0.0], [[1.0, 0.6, 0.3], [0.6, 1.0, 0.5],
                                                   [0.3, 0.5, 1.0]], size=n)
    y = np.column_stack([np.exp(0.3 * z[:, 0]) + 1.0, (2.0 + 0.4 * z[:, 1]) ** 2,
                         np.exp(0.5 * z[:, 2])])
    x = np.column_stack([np.ones(n), rng.normal(size=n)])
    prob = JointProfile.build(y, qr_design(x), "boxcox")
    calls = []
    second = JointProfile.second_order

    def counted(self, lam, exact=True):
        calls.append(exact)
        return second(self, lam, exact)

    def no_bfgs(*args, **kwargs):
        raise AssertionError("BFGS was called")

    monkeypatch.setattr(JointProfile, "second_order", counted)
    monkeypatch.setattr("boxcoxstat.core.joint_solve.optimize.minimize", no_bfgs)
    fit = fit_joint_lambda(prob)
    monkeypatch.undo()
    assert fit.converged and len(calls) <= 8
    assert np.max(np.abs(fit.lmbda - fit.start)) > 0.01  # a joint fit, not the start
    best = optimize.minimize(lambda lam: direct_nll(y, x, lam), fit.start,
                             method="Nelder-Mead",
                             options={"xatol": 1e-10, "fatol": 1e-14, "maxiter": 20000})
    # Nelder-Mead resolves lambda to about 1e-7 here: along the flattest direction
    # (curvature 17) a change of 1e-7 moves the NLL (-731) by 1e-13, its rounding level
    np.testing.assert_allclose(fit.lmbda, best.x, rtol=0, atol=1e-6)
    assert direct_nll(y, x, fit.lmbda) <= best.fun + 1e-12 * abs(best.fun)
    assert fit.nll == pytest.approx(direct_nll(y, x, fit.lmbda), rel=1e-12)
    np.testing.assert_allclose(fit.hessian, prob.hessian(fit.lmbda), rtol=1e-6)


def test_starts_are_the_columns_own_fits():
    """The joint solver starts from bcs.fit of each column (one sample of all columns),
    solved to START_XRTOL (1e-7 relative: Newton refines the joint powers from there)."""
    y = bcs.datasets.load("highway1")[["len", "adt", "trks"]].to_numpy(float)
    prob = JointProfile.build(y, qr_design(np.ones((len(y), 1))), "boxcox")
    own = [bcs.fit(y[:, j]).lmbda for j in range(3)]
    np.testing.assert_allclose(prob.own_powers(), own, rtol=1e-7)
