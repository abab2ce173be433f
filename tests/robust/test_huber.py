"""Building blocks of the robust estimators (boxcoxstat.robust.huber), by hand and by R's
definitions in RewML_SPEC.md (sections 2, 4.1-4.3)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from boxcoxstat import families as fam
from boxcoxstat.robust import huber as blocks


def test_huber_loc_scale_by_hand():
    v = np.array([1.0, 2.0, 3.0, 4.0, 100.0])
    # median 3, MAD 1 * 1.4826...: |u| = 1.349 for 1, 4 -> weight 1; 100 -> 1.5/65.4
    s0 = blocks.K_MAD
    w100 = 1.5 / (97 / s0)
    mu = (1 + 2 + 3 + 4 + w100 * 100) / (4 + w100)
    got_mu, got_s = blocks.huber_loc_scale(v)
    # a handful of operations on five numbers: rounding only
    assert got_mu[0] == pytest.approx(mu, rel=1e-14)
    r = v - mu
    s1 = s0 * np.median(np.abs(r))
    rho = np.minimum((r / s1) ** 2, 2.25) / 1.556931
    assert got_s[0] == pytest.approx(s1 * np.sqrt(rho.sum() / 2.5), rel=1e-14)


def test_huber_proposal2_is_consistent_at_the_normal():
    # Huber's proposal 2 with beta = E min(Z^2, 1.5^2) is consistent for sigma at the normal:
    # on the 20000 normal quantiles it returns (7, 3) to the discreteness of the sample (1e-3)
    q = stats.norm.ppf((np.arange(1, 20001) - 0.5) / 20000)
    mu, s = blocks.huber_proposal2(3.0 * q + 7.0)
    assert (mu[0], s[0]) == pytest.approx((7.0, 3.0), rel=1e-3)
    # and it is affine equivariant (rounding only)
    mu2, s2 = blocks.huber_proposal2(-2.0 * (3.0 * q + 7.0) + 1.0)
    assert (mu2[0], s2[0]) == pytest.approx((-2.0 * mu[0] + 1.0, 2.0 * s[0]), rel=1e-12)


def test_bisquare_rho_and_cutoff():
    # RewML_SPEC 4.3: 0.5 (1 - (1 - (d/0.5)^2)^3) inside |d| <= 0.5, 0.5 beyond
    d = np.array([0.0, 0.25, 0.5, 2.0])
    want = [0.0, 0.5 * (1 - (1 - 0.25) ** 3), 0.5, 0.5]
    np.testing.assert_allclose(blocks.bisquare_rho(d), want, rtol=1e-15)
    # sqrt(chi2_1(0.99)) = Phi^-1(0.995), RewML_SPEC section 0
    assert blocks.rejection_cutoff(0.99) == pytest.approx(2.5758293035489004, rel=1e-15)


def test_robust_criterion_is_small_for_normal_quantiles():
    n = 50
    q = stats.norm.ppf((np.arange(1, n + 1) - 1 / 3) / (n + 1 / 3))
    assert blocks.robust_criterion(3 * q + 1)[0] < 1e-3
    assert np.isnan(blocks.robust_criterion(np.ones(n))[0])  # Huber scale 0


def test_change_points_quartile_rule_and_cellwise_rule():
    x = np.sort(np.exp(np.linspace(-2, 2, 40)))[:, None]
    # the paper's rule: the quartiles themselves, x_(ceil(n/4)) and x_(n - ceil(n/4) + 1)
    q3 = blocks.change_points(x, np.array([0.5]), "boxcox", "quartile")
    q1 = blocks.change_points(x, np.array([1.5]), "boxcox", "quartile")
    assert q3[0] == x[40 - 10, 0] and q1[0] == x[9, 0]
    # cellWise: C = T^-1(1.5 T(Q)), clamped to the data
    c = blocks.change_points(x, np.array([0.5]), "boxcox")
    want = fam.boxcox_inverse(1.5 * fam.boxcox(x[30, 0], 0.5), 0.5)
    assert c[0] == pytest.approx(min(want, x[-1, 0]), rel=1e-14)


def test_rectified_transform_by_hand():
    x = np.array([0.5, 2.0, 4.0, 9.0])
    got = fam.rectified_transform(x, 0.5, 4.0, "boxcox")
    expect = np.r_[2 * (np.sqrt(x[:3]) - 1), 2 * (2 - 1) + (9 - 4) * 4**-0.5]
    np.testing.assert_allclose(got, expect, rtol=1e-14)
    # lambda > 1, Yeo-Johnson: linear below the change point with slope h'(C)
    xy = np.array([-5.0, -1.0, 0.0, 3.0])
    got = fam.rectified_transform(xy, 1.5, -1.0, "yeojohnson")
    h_c = -((2.0) ** 0.5 - 1) / 0.5
    slope = 2.0 ** -0.5  # (1 + |C|)^(sign(C)(lambda - 1)) = 2^(-0.5)
    assert got[0] == pytest.approx(h_c + (-5.0 + 1.0) * slope, rel=1e-14)
    np.testing.assert_allclose(got[1:], fam.yeojohnson(xy[1:], 1.5), rtol=1e-14)
    # lambda = 1: linear everywhere
    np.testing.assert_array_equal(fam.rectified_transform(x, 1.0, 4.0, "boxcox"), x - 1)


def test_prestandardization_round_trip():
    x = np.sort(np.exp(np.linspace(-1, 2, 25)))[:, None]
    for family, how in (("boxcox", "cellwise"), ("boxcox", "paper"), ("yeojohnson", "cellwise")):
        loc, scale = blocks.prestandardize(x, family, how)
        u = blocks.apply_prestandardization(x, loc, scale, family, how)
        # cellWise: x / median has median 1; paper (Box-Cox) and Yeo-Johnson: median 0 of
        # (log) x - median, so exp(0) = 1 and 0 (rounding only)
        want = 0.0 if family == "yeojohnson" else 1.0
        assert np.median(u) == pytest.approx(want, abs=1e-12)
        np.testing.assert_allclose(blocks.undo_prestandardization(u, loc, scale, family, how),
                                   x, rtol=1e-13)
    # R's mad() constant 1.4826 (RewML_SPEC section 0)
    loc, scale = blocks.prestandardize(x, "yeojohnson")
    assert scale[0] == pytest.approx(1.4826 * np.median(np.abs(x - np.median(x))), rel=1e-15)
