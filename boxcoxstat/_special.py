"""Elementary functions the transforms and likelihoods are built from, accurate everywhere.

Pure NumPy/SciPy. ``exprel(a) = expm1(a)/a`` is SciPy's; its log and its first
two derivatives are here, each exact at ``a = 0`` and free of cancellation for small ``|a|``.
:func:`a2_dexprel` is the likelihood's fused form: ``a^2 exprel'(a)`` from ``a`` and an
``expm1(a)`` the caller has already computed, so one ``expm1`` serves the transform and its
derivative in lambda.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import exprel

__all__ = ["exprel", "log_exprel", "dexprel", "log_dexprel", "d2exprel", "log_d2exprel",
           "log1prel",
           "a2_closed", "a2_dexprel", "A2_SERIES_RADIUS", "SHIFT_THRESHOLD"]

# The largest exponent the likelihood's evaluations let exp reach (e^300 is about 1e130, so
# squares and products of two stay finite) before the reference moves to an extreme
# (core.likelihood.choose_shift) or the short-column path steps aside (core.short).
SHIFT_THRESHOLD = 300.0

_SERIES_RADIUS = 0.5
# Taylor coefficients of exprel'(a) = sum_k (k+1)/(k+2)! a^k and exprel''(a) =
# sum_k (k+1)(k+2)/(k+3)! a^k; 16 terms reach 1e-17 relative for |a| < 0.5.
_D1 = [1.0 / 2.0]
_D2 = [1.0 / 3.0]
for _k in range(1, 16):
    _D1.append((_k + 1) / np.prod(np.arange(1, _k + 3, dtype=float)))
    _D2.append((_k + 1) * (_k + 2) / np.prod(np.arange(1, _k + 4, dtype=float)))
_D1_REV = np.array(_D1[::-1])
_D2_REV = np.array(_D2[::-1])


def _horner(coef_rev: NDArray, a: NDArray) -> NDArray:
    if a.size <= 4:  # a few values: the same operations on Python floats (IEEE doubles,
        # rounded alike, so bit for bit NumPy's result) without a NumPy call per term
        coefs = coef_rev.tolist()
        vals = []
        for x in a.reshape(-1).tolist():
            acc = coefs[0]
            for c in coefs[1:]:
                acc = acc * x + c
            vals.append(acc)
        return np.array(vals, dtype=np.float64).reshape(a.shape)
    out = np.full_like(a, coef_rev[0])
    for c in coef_rev[1:]:
        out *= a
        out += c
    return out


# log(sinh z / z) = sum_n 2^(2n) B_2n z^(2n) / (2n (2n)!): 1/6, -1/180, 1/2835, -1/37800,
# 1/467775, -691/1915538625 (z^2 ... z^12); with z = a/2 this gives log exprel(a) - a/2.
_LOG_SINHC = np.array([-691.0 / 1915538625.0, 1.0 / 467775.0, -1.0 / 37800.0, 1.0 / 2835.0,
                       -1.0 / 180.0, 1.0 / 6.0])


def log_exprel(a: ArrayLike) -> NDArray[np.float64]:
    """``log(expm1(a)/a)`` for any real ``a`` without overflow (0 at ``a = 0``).

    A series for ``|a| < 1/4`` (``a/2 + log(sinh(a/2) / (a/2))``) keeps full relative
    precision near 0, where ``log(exprel(a))`` would lose it.
    """
    a = np.asarray(a, dtype=np.float64)
    out = np.empty_like(a)
    mag = np.abs(a)
    tiny = mag < 0.25
    if tiny.any():  # regimes without values are skipped (a few values: most are empty)
        at = a[tiny]
        z2 = (0.5 * at) ** 2
        out[tiny] = 0.5 * at + z2 * _horner(_LOG_SINHC, z2)
    mid = ~tiny & (mag < 1.0)
    if mid.any():
        out[mid] = np.log(exprel(a[mid]))
    hi = a >= 1.0
    if hi.any():
        ah = a[hi]
        out[hi] = ah + np.log(-np.expm1(-ah)) - np.log(ah)
    lo = a <= -1.0
    if lo.any():
        al = a[lo]
        out[lo] = np.log1p(-np.exp(al)) - np.log(-al)
    return out


def _closed_or_series(a: NDArray, closed, coef_rev: NDArray) -> NDArray[np.float64]:
    """The series below ``_SERIES_RADIUS`` and the closed form elsewhere, each evaluated only
    where it is used."""
    small = np.abs(a) < _SERIES_RADIUS
    count = int(np.count_nonzero(small))
    if count == a.size:
        return _horner(coef_rev, a)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if count == 0:
            return closed(a)
        out = np.empty_like(a)
        big = ~small
        out[big] = closed(a[big])
    out[small] = _horner(coef_rev, a[small])
    return out


def dexprel(a: ArrayLike) -> NDArray[np.float64]:
    """First derivative of ``exprel``: ``((a - 1) e^a + 1) / a^2`` (1/2 at ``a = 0``)."""
    a = np.asarray(a, dtype=np.float64)

    def closed(t):
        em1 = np.expm1(t)
        return (em1 * (t - 1.0) + t) / (t * t)

    return _closed_or_series(np.atleast_1d(a), closed, _D1_REV).reshape(a.shape)


def log_dexprel(a: ArrayLike) -> NDArray[np.float64]:
    """``log`` of :func:`dexprel`, finite for every real ``a`` (``dexprel > 0``)."""
    a = np.asarray(a, dtype=np.float64)
    out = np.empty_like(a)
    hi = a >= 1.0
    if hi.any():
        ah = a[hi]
        out[hi] = ah + np.log((ah - 1.0) + np.exp(-ah)) - 2.0 * np.log(ah)
    rest = ~hi
    if rest.any():
        out[rest] = np.log(dexprel(a[rest]))
    return out


def d2exprel(a: ArrayLike) -> NDArray[np.float64]:
    """Second derivative of ``exprel``: ``(e^a (a^2 - 2a + 2) - 2) / a^3`` (1/3 at 0).

    Written ``expm1(a) (a^2 - 2a + 2) + a^2 - 2a`` over ``a^3`` for ``a > -1`` (a series below
    ``|a| = 1/2``) and as the definition for ``a <= -1``, where ``e^a (a^2 - 2a + 2)`` is at
    most 1.84 against the 2 subtracted (the other form cancels two terms of size ``a^2``
    there, losing ``a^2 eps``: 1e-10 relative at ``a = -1000``).
    """
    a = np.asarray(a, dtype=np.float64)

    def closed(t):
        em1 = np.expm1(t)
        out = (em1 * (t * t - 2.0 * t + 2.0) + t * t - 2.0 * t) / (t * t * t)
        neg = t <= -1.0
        if np.any(neg):
            tn = t[neg]
            out[neg] = (np.exp(tn) * (tn * (tn - 2.0) + 2.0) - 2.0) / (tn * tn * tn)
        return out

    return _closed_or_series(np.atleast_1d(a), closed, _D2_REV).reshape(a.shape)


def log_d2exprel(a: ArrayLike) -> NDArray[np.float64]:
    """``log`` of :func:`d2exprel`, finite for every real ``a`` (``exprel'' > 0``: it is
    ``int_0^1 t^2 e^(a t) dt``).

    For ``a >= 1`` it is ``a + log(a^2 - 2a + 2 - 2 e^-a) - 3 log a`` (no overflow; the
    bracket is at least ``1 - 2/e``, so nothing cancels badly); below, the log of
    :func:`d2exprel` (which tends to 0 like ``-2/a^3``, a normal number down to
    ``a = -1e102``).

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat._special import d2exprel, log_d2exprel
    >>> a = np.array([-30.0, 0.0, 0.7, 5.0])
    >>> bool(np.allclose(np.exp(log_d2exprel(a)), d2exprel(a), rtol=1e-14, atol=0))
    True
    >>> round(float(log_d2exprel(np.array([2000.0]))[0]), 6)  # d2exprel itself overflows
    1992.398098
    """
    a = np.asarray(a, dtype=np.float64)
    out = np.empty_like(a)
    hi = a >= 1.0
    ah = a[hi]
    out[hi] = ah + np.log(ah * (ah - 2.0) + 2.0 - 2.0 * np.exp(-ah)) - 3.0 * np.log(ah)
    out[~hi] = np.log(d2exprel(a[~hi]))
    return out


# a^2 exprel'(a) = a e^a - expm1(a) = sum_j (j+1)/(j+2)! a^(j+2). Below this |a| the series
# (terms j = 0..10: the first omitted term is below 1e-17 of the sum for |a| < 1/8) replaces
# the closed form, whose relative error there would exceed 2 eps / |a| = 16 eps.
A2_SERIES_RADIUS = 0.125
_A2_REV = _D1_REV[-11:]
_A2_FIRST, *_A2_REST = _A2_REV.tolist()


def a2_closed(a: NDArray[np.float64], em1: NDArray[np.float64], *,
              out: NDArray[np.float64] | None = None,
              tmp: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
    """``a**2 * exprel'(a)`` by its closed form ``(a - em1) + a em1`` alone (``em1 =
    expm1(a)``): exact to ``2 eps / |a|`` relative, so where ``|a| < 1/8`` only for callers
    whose result merely steers a step (:func:`a2_dexprel` adds the series there). ``out``
    holds the result and ``tmp`` the product, arrays of ``a``'s shape, when given.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat._special import a2_closed
    >>> a = np.array([0.5, -2.0])
    >>> bool(np.allclose(a2_closed(a, np.expm1(a)), a * np.exp(a) - np.expm1(a), rtol=1e-14))
    True
    """
    out = np.subtract(a, em1, out=out)
    out += np.multiply(a, em1, out=tmp)
    return out


def a2_dexprel(a: NDArray[np.float64], em1: NDArray[np.float64], *,
               out: NDArray[np.float64] | None = None,
               tmp: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
    """``a**2 * exprel'(a) = a e^a - expm1(a)`` from ``a`` and ``em1 = expm1(a)``.

    This is ``lambda**2`` times the derivative in lambda of ``expm1(lambda v)/lambda`` at
    ``a = lambda v``. The closed form is written ``(a - em1) + a em1``: for ``|a| < 1`` the
    difference ``a - em1`` is exact (Sterbenz), so the only error is ``em1``'s own rounding,
    ``eps |a|`` against a result near ``a^2/2``; where that would exceed 16 eps relative
    (``|a| < 1/8``) a Taylor series is used for those entries only. Overflows to ``inf``
    exactly where ``a e^a`` does (the caller shifts the frame so that never happens).
    ``out`` (the result) and ``tmp`` (scratch), arrays of ``a``'s shape and C order, spare
    the allocations when the caller evaluates many blocks (``likelihood.side_moments``);
    the values are the same.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat._special import a2_dexprel
    >>> a = np.array([0.0, 1e-3, 0.5, -2.0])
    >>> bool(np.allclose(a2_dexprel(a, np.expm1(a)), a * np.exp(a) - np.expm1(a),
    ...                  rtol=1e-12, atol=0))
    True
    """
    out = a2_closed(a, em1, out=out, tmp=tmp)
    flat_a = a.reshape(-1)
    small = np.flatnonzero(np.abs(a, out=tmp) < A2_SERIES_RADIUS)
    if small.size:
        at = np.take(flat_a, small)  # take: twice as fast as indexing here
        series = at * _A2_FIRST  # Horner from the top, as _horner does
        series += _A2_REST[0]
        for c in _A2_REST[1:]:
            series *= at
            series += c
        at *= at
        series *= at
        out.reshape(-1)[small] = series
    return out


def log1prel(t: ArrayLike) -> NDArray[np.float64]:
    """``log1p(t)/t`` (1 at ``t = 0``), for ``t > -1``."""
    t = np.asarray(t, dtype=np.float64)
    num = np.log1p(t)
    return np.divide(num, t, out=np.ones_like(num), where=t != 0)
