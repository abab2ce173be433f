"""The profile likelihood of one short column, at many lambdas in one expression.

Beside ``likelihood.py``, whose :func:`~boxcoxstat.core.likelihood.nll_score` hands
it one unweighted column of at most ``SHORT_ROWS`` values a side (:func:`short_ok`). For such
a column the general path's cost is its Python calls, not its arithmetic; here every lambda
of a call is one (lambdas x values) expression (:func:`short_nll_score`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .._special import _D1_REV, A2_SERIES_RADIUS, SHIFT_THRESHOLD
from .sample import Sample

__all__ = ["SHORT_ROWS", "short_ok", "short_nll_score"]

SHORT_ROWS = 500  # one unweighted column with at most this many values a side: see below


def short_ok(sample: Sample) -> bool:
    """Whether :func:`short_nll_score` may evaluate ``sample``: one unweighted column of at
    most ``SHORT_ROWS`` values a side, on the natural length scale (``Sample.unit`` 1)."""
    sides = sample.sides
    if sides[0].v.shape[1] != 1:
        return False
    for side in sides:
        if side.w is not None or side.v.shape[0] > SHORT_ROWS:
            return False
    return sample.family == "boxcox" or bool(sample.unit[0] == 1.0)


# Taylor coefficients of exprel(a) = sum_j a^j/(j+1)! and exprel'(a) = sum_j (j+1)/(j+2)! a^j,
# j = 1..10 (for |a| < 1/8 the first omitted terms are below 1e-18 of the sums)
_SERIES_ED = np.array([[1.0 / np.prod(np.arange(1.0, j + 2.0)) for j in range(1, 11)],
                       _D1_REV[::-1][1:11]])


def _exprel_parts(a: NDArray, score: bool) -> tuple[NDArray, NDArray | None]:
    """``exprel(a) = expm1(a)/a`` and (with ``score``) ``exprel'(a)`` element by element from
    one ``expm1``: ``exprel'`` by the closed form ``((a - m) + a m)/a^2`` of
    :func:`~boxcoxstat._special.a2_dexprel`; where ``|a| < 1/8`` both by their Taylor series
    (11 terms, from the powers ``a .. a^10`` formed once for both)."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        m = np.expm1(a)
        e = m / a
        d = None
        if score:
            d = a - m
            d += a * m
            d /= a * a
    flat = a.reshape(-1)
    small = np.flatnonzero(np.abs(flat) < A2_SERIES_RADIUS)
    if small.size:
        at = flat[small]
        powers = np.empty((10, at.size))
        powers[0] = at
        for j in range(1, 10):
            np.multiply(powers[j - 1], at, out=powers[j])
        series = np.einsum("kj,ji->ki", _SERIES_ED, powers)
        e.reshape(-1)[small] = series[0] + 1.0
        if d is not None:
            d.reshape(-1)[small] = series[1] + 0.5
    return e, d


_SIGNS = np.array([1.0, -1.0])  # (positive, negative) side: exponent sign lambda + off
_OFFS = np.array([0.0, 2.0])


def short_nll_score(sample: Sample, lmbda: NDArray, score: bool
                     ) -> tuple[NDArray[np.float64], NDArray[np.float64]] | None:
    """:func:`~boxcoxstat.core.likelihood.nll_score` of one short column (:func:`short_ok`)
    at every lambda at once, or ``None`` where it does not apply.

    The same likelihood as :func:`~boxcoxstat.core.likelihood.side_moments` and
    :func:`~boxcoxstat.core.likelihood.nll_score_from_moments`, for the
    case where those cost their Python calls rather than their arithmetic (a fit of 50 values
    evaluates three times): both sides' values in one (lambdas x values) array
    (``Sample.stacked``), ``phi = v exprel(k v)`` and ``chi = v^2 exprel'(k v)`` in the
    median's frame without a shift (so only while ``|kappa| max|v| <= 300``, where
    :func:`~boxcoxstat.core.likelihood.choose_shift` chooses none), the side's moments by
    sums against its marks.
    One-sided data take the exact one-sided form; mixed-sign Yeo-Johnson data combine the
    sides on the natural scale,

    .. math::

        S = \\sum_s e^{2 k_s r_s} m_{2s} + \\frac{W_+ W_-}{n} (\\bar\\psi_+ - \\bar\\psi_-)^2,
        \\quad C = \\sum_s \\pm e^{2 k_s r_s}(r_s m_{2s} + c_{2s})
            + \\frac{W_+ W_-}{n}(\\bar\\psi_+ - \\bar\\psi_-)(\\bar\\psi'_+ - \\bar\\psi'_-),

    ``NLL = (1 - lambda) J + n/2 log(S/n)`` and ``score = -J + n C/S`` (``r`` the sides'
    ``log b_ref``; the means of the transformed values and of their derivatives in lambda
    from the values ``log b`` themselves), which needs ``|kappa| (|r| + max|v|) <= 300`` so
    nothing overflows. Anything else, and any non-finite result, goes to the general path.
    """
    st = sample.stacked
    lam = lmbda.reshape(-1)
    two = st.W.size == 2
    neg_only = not two and bool(st.side_neg[0])
    kmax = float(np.abs(lam).max()) + (2.0 if two or neg_only else 0.0)
    if not kmax * st.reach <= SHIFT_THRESHOLD:
        return None
    n = st.n
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if two:
            k = lam[:, None] * st.sign + st.off  # each value's exponent: lambda or 2 - lambda
        else:
            k = (2.0 - lam if neg_only else lam)[:, None]
        vu = st.vu[:, None, :]  # the frame's v (and with two sides the natural u = log b)
        e, d = _exprel_parts(k * vu, score)
        y = e * vu  # phi (and psi = expm1(k u)/k)
        y_sum = np.add.reduceat(y, st.starts, axis=2)
        W = st.W
        phi = y[0]
        mean = y_sum[0] / W
        pc = phi - (mean[:, st.side_of] if two else mean)
        m2 = np.add.reduceat(pc * pc, st.starts, axis=1)
        c2 = z_sum = None
        if d is not None:
            z = d * st.vu2[:, None, :]  # chi (and d psi / d k)
            z_sum = np.add.reduceat(z, st.starts, axis=2)
            c2 = (np.add.reduceat(pc * z[0], st.starts, axis=1)
                  - z_sum[0] / W * np.add.reduceat(pc, st.starts, axis=1))
        if not two:  # the exact one-sided form
            wv, m2_ = float(st.wv[0]), m2[:, 0]
            nll_val = (n * float(st.log_ref[0]) + wv) - k[:, 0] * wv + 0.5 * n * np.log(m2_ / n)
            sc = (n * c2[:, 0] / m2_ - wv) * (-1.0 if neg_only else 1.0) if c2 is not None \
                else None
        else:
            r = st.log_ref
            e2 = np.exp((2.0 * r) * (lam[:, None] * _SIGNS + _OFFS))  # side exponents
            psi = y_sum[1] / W  # |mean psi| per side
            gap = psi[:, 0] + psi[:, 1]
            B = float(W[0] * W[1]) / n
            S = (e2 * m2).sum(axis=1) + B * gap * gap
            nll_val = (1.0 - lam) * st.J + 0.5 * n * np.log(S / n)
            sc = None
            if c2 is not None and z_sum is not None:
                dpsi = z_sum[1] / W
                C = (e2 * (r * m2 + c2) * _SIGNS).sum(axis=1) + B * gap * (dpsi[:, 0]
                                                                          - dpsi[:, 1])
                sc = n * C / S - st.J
        if not np.isfinite(nll_val if sc is None else nll_val + sc).all():
            return None
    if sc is None:
        sc = np.full(lam.shape, np.nan)
    return nll_val.reshape(lmbda.shape), sc.reshape(lmbda.shape)
