"""Tests for boxcoxstat._special against mpmath, across the series/closed-form seams."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from boxcoxstat._special import (
    d2exprel,
    dexprel,
    log1prel,
    log_d2exprel,
    log_dexprel,
    log_exprel,
)

POINTS = [0.0, 1e-300, -1e-12, 3e-9, 0.1, -0.3, 0.4999, 0.5, -0.5001, 1.0, -1.0, 2.5, -7.0,
          40.0, -300.0, 300.0, -1e6]


def _ref(a):
    # the closed forms cancel like a^3 near 0: carry enough digits for that
    mp.mp.dps = 60 + (int(-3 * np.log10(abs(a))) if a else 0)
    A = mp.mpf(a)
    if a == 0:
        return mp.mpf(0), mp.mpf(1) / 2, mp.mpf(1) / 3
    e = mp.e**A
    return (mp.log(mp.expm1(A) / A), ((A - 1) * e + 1) / A**2,
            (e * (A * A - 2 * A + 2) - 2) / A**3)


@pytest.mark.parametrize("a", POINTS)
def test_against_mpmath(a):
    lexp, d1, d2 = _ref(a)
    assert float(log_exprel(a)) == pytest.approx(float(lexp), rel=1e-14, abs=1e-300)
    assert float(dexprel(a)) == pytest.approx(float(d1), rel=1e-14)
    assert float(log_dexprel(a)) == pytest.approx(float(mp.log(d1)), rel=1e-14, abs=1e-15)
    if abs(a) <= 300:
        assert float(d2exprel(a)) == pytest.approx(float(d2), rel=1e-13)


@pytest.mark.parametrize("a", [-0.75, -1.0, -1.5, -37.3, -299.7, -1234.5, -999999.7, 0.7,
                               2.5, 37.3, 700.5])
def test_d2exprel_and_its_log_against_mpmath(a):
    """exprel'' on both sides of the a = -1 seam and far below it (where the expm1 form
    would lose a^2 eps: 1e-10 at -1234.5), and its log up to where exprel'' overflows:
    within 4 eps relative (the definition's one cancellation, e^a (a^2 - 2a + 2) against 2,
    is at most 12-fold, at a = -1)."""
    mp.mp.dps = 80
    A = mp.mpf(a)
    want = (mp.e**A * (A * A - 2 * A + 2) - 2) / A**3
    if a < 700:  # beyond, exprel'' itself overflows (its log does not)
        assert float(d2exprel(a)) == pytest.approx(float(want), rel=4 * np.finfo(float).eps)
    assert float(log_d2exprel(np.array([a]))[0]) == pytest.approx(
        float(mp.log(want)), rel=4 * np.finfo(float).eps)


def test_log_dexprel_beyond_overflow():
    assert float(log_dexprel(1e5)) == pytest.approx(
        float(mp.log((mp.mpf(1e5) - 1) * mp.e ** mp.mpf(1e5) + 1) - 2 * mp.log(mp.mpf(1e5))),
        rel=1e-15)


def test_log1prel():
    t = np.array([0.0, 1e-20, -0.5, 3.0])
    expected = [1.0, 1.0, np.log(0.5) / -0.5, np.log(4.0) / 3.0]
    np.testing.assert_allclose(log1prel(t), expected, rtol=1e-15)


A2_POINTS = [0.0, 1e-150, -1e-12, 3e-9, 0.01, -0.1, 0.12499, 0.125, -0.12501, 0.3, -0.9, 1.0,
             2.5, -7.0, 40.0, -300.0, 300.0, -1e6]


@pytest.mark.parametrize("a", A2_POINTS)
def test_a2_dexprel_against_mpmath(a):
    """a^2 exprel'(a) = a e^a - expm1(a), fused from a precomputed expm1, on both sides of the
    series seam at |a| = 1/8: within 16 eps (the closed form's bound there is 2 eps/|a|)."""
    from boxcoxstat._special import a2_dexprel

    mp.mp.dps = 60 + (int(-2 * np.log10(abs(a))) if a else 0)
    want = mp.mpf(a) * mp.e ** mp.mpf(a) - mp.expm1(mp.mpf(a))
    got = float(a2_dexprel(np.array([a]), np.expm1(np.array([a])))[0])
    assert got == pytest.approx(float(want), rel=16 * np.finfo(float).eps, abs=1e-300)
