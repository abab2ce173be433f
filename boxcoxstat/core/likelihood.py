"""The profile negative log-likelihood of lambda and its score, computed so nothing overflows.

For a sample x_1..x_n (weights w_i) the profile NLL with the normal constants dropped is

.. math::

    \\mathrm{NLL}(\\lambda) = (1 - \\lambda) J + \\frac{n}{2} \\log \\widehat{\\mathrm{Var}}\\,
    \\psi(\\lambda, x), \\qquad J = \\sum_i w_i\\, \\mathrm{sgn}(x_i) \\log b_i,

with ``b = x`` (Box-Cox) or ``b = 1 + |x|`` (Yeo-Johnson) and the variance taken with divisor
n = sum(w) (Xu & Cormode 2025, eqs. 3-4). The profile log-likelihood reported as ``llf`` is
``-NLL - n/2 (log 2 pi + 1)``.

Numerical approach (Xu & Cormode 2025, section 4, extended):

* Every base b > 0 is stored once as a log-ratio ``v = log(b / b_ref)`` to a reference (the
  median), computed with ``log1p`` of the exact difference so clustered data keep their digits
  (``sample.py``).
* Within one side (Box-Cox data, or the x >= 0 / x < 0 part of Yeo-Johnson data) the transform
  is an affine image of ``phi = expm1(k d)/k`` with ``d = v - s`` and exponent ``k`` (lambda,
  or 2 - lambda for negatives). The constant and the scale ``exp(k (log b_ref + s))`` are kept
  out of the arithmetic; the shift ``s`` is 0 while ``|k| max|v| <= 300`` and otherwise the
  side's max (k > 0) or min (k < 0), so no exponent is positive.
* Mixed-sign Yeo-Johnson variances are split into within-side parts and a between-side part
  (the two side means have opposite signs, so their difference is a sum), combined on the log
  scale; with one side empty the formula reduces exactly to the one-sided one.
* The score dNLL/dlambda = -J + n Cov(psi, dpsi/dlambda) / Var(psi) is formed from the same
  scaled moments (``Cov/Var`` is invariant to the scale), so the MLE can be found by root
  finding on a derivative that is accurate to rounding error, even where the NLL is flat.
* All moments are sums over observations, mergeable across chunks by the pairwise formulas of
  Chan, Golub & LeVeque (1982); :func:`merge_moments` is what distributed fitting uses.

References
----------
- Xu, X. and Cormode, G. (2025). Power transform revisited: numerically stable, and federated.
- Chan, T. F., Golub, G. H. and LeVeque, R. J. (1982). Updating formulae and a pairwise algorithm
  for computing sample variances. COMPSTAT 1982, 30-41.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._special import (
    A2_SERIES_RADIUS,
    SHIFT_THRESHOLD,
    log_dexprel,
    log_exprel,
)
from .._validation.columns import BoxCoxError, normalize_family
from .kernel import (
    BLOCK_ELEMENTS,
    COLUMN_BLOCK,
    WIDE,
    ZERO_K,
    _block_moments,
    _work,
    column_moments,
    phi_chi,
    slope_moments,
)
from .sample import Sample, Side
from .short import short_nll_score, short_ok

__all__ = [
    "SideMoments",
    "side_moments",
    "merge_moments",
    "nll_score_from_moments",
    "nll_score",
    "nll",
    "score",
    "llf_constant",
    "phi_chi",
]

_LOG_2PI_1 = float(np.log(2.0 * np.pi) + 1.0)


def llf_constant(n: ArrayLike) -> NDArray[np.float64]:
    """The term ``-n/2 (log 2 pi + 1)`` that turns ``-NLL`` into the Gaussian log-likelihood."""
    return -0.5 * np.asarray(n, dtype=np.float64) * _LOG_2PI_1


@dataclass(frozen=True)
class SideMoments:
    """Sufficient statistics of one side at one exponent, mergeable across chunks.

    With ``d = v - shift``, ``phi = expm1(kappa d)/kappa`` and ``chi = d phi/d kappa``:
    ``W`` = sum w, ``wv`` = sum w v, ``d_sum`` = sum w d, ``mean_phi``, ``m2`` = sum w (phi -
    mean)^2, ``mean_chi``, ``c2`` = sum w (phi - mean)(chi - mean_chi). ``log_ref``,
    ``shift`` and ``kappa`` identify the frame; only moments in the same frame can be merged.
    The side's unshifted means (needed between the sides of mixed Yeo-Johnson data) follow
    from these by an affine identity, see :func:`_log_side_means`.
    """

    W: NDArray[np.float64]
    wv: NDArray[np.float64]
    d_sum: NDArray[np.float64]
    mean_phi: NDArray[np.float64]
    m2: NDArray[np.float64]
    mean_chi: NDArray[np.float64]
    c2: NDArray[np.float64]
    log_ref: NDArray[np.float64]
    shift: NDArray[np.float64]
    kappa: NDArray[np.float64]
    negative: bool


def choose_shift(side: Side, kappa: NDArray[np.float64],
                 cols: NDArray[np.intp] | None = None) -> NDArray[np.float64]:
    """Reference shift per column: 0 while ``|kappa| max|v| <= 300``, else the max or min
    (of columns ``cols`` of the side, default all)."""
    vmin, vmax = side.vrange
    if cols is not None:
        vmin, vmax = vmin[cols], vmax[cols]
    span = np.maximum(np.abs(vmin), np.abs(vmax))
    far = np.abs(kappa) * span > SHIFT_THRESHOLD
    return np.where(far, np.where(kappa > 0, vmax, vmin), 0.0)


_ARRAYS = ("W", "wv", "d_sum", "mean_phi", "m2", "mean_chi", "c2", "log_ref", "shift",
           "kappa")


def side_moments(
    side: Side,
    kappa: ArrayLike,
    *,
    shift: ArrayLike | None = None,
    score: bool = True,
    cols: ArrayLike | None = None,
    series: bool = True,
) -> SideMoments:
    """Moments of one side at exponent(s) ``kappa`` (one per column, or many for one column).

    One pass over the data in row blocks of about 64k values (the temporaries stay in cache),
    one ``expm1`` per value. With ``a = kappa d`` and ``m = expm1(a)``, a column whose largest
    ``|a|`` reaches 1/8 works with ``m = kappa phi`` and ``a^2 exprel'(a) = kappa^2 chi``
    (:func:`~boxcoxstat._special.a2_dexprel`) and divides ``kappa`` out of the block's
    moments, not out of every value; a column with every ``|a| < 1/8`` forms ``phi = d m/a``
    and ``chi = d^2 exprel'(a)`` (series) directly, and ``|kappa| <= 1e-280`` gives
    ``phi = d``, ``chi = d^2/2``. Moments are two-pass within a block; blocks are merged by
    the formulas of Chan, Golub & LeVeque (1982) for many groups at once (block means
    against the grand mean), so nothing of the form ``E[y^2] - E[y]^2`` is formed.

    Parameters
    ----------
    side : Side
    kappa : array_like, shape (p,) or (L,) when the side has one column
    shift : array_like, optional
        Force a frame (chunks that are to be merged must share it); default
        :func:`choose_shift`.
    score : bool, default=True
        Also compute the moments of ``chi`` (needed for the score only; NaN otherwise).
    cols : array_like of int, optional
        Evaluate these columns of the side only (each block takes them as it is read, so
        no copy of the side is made).
    series : bool, default=True
        ``False``: in a column whose largest ``|kappa d|`` reaches 1/8, ``chi`` of its values
        below 1/8 comes from the closed form, not the series (each errs by at most
        :data:`SERIES_ERR`): for callers whose score only steers (a solver's start, the
        profile interval's Newton steps).
    """
    idx_cols = None if cols is None else np.asarray(cols, dtype=np.intp)
    kappa_in = np.asarray(kappa, dtype=np.float64)
    k = np.atleast_1d(kappa_in)
    s = choose_shift(side, k, idx_cols) if shift is None else np.asarray(shift,
                                                                          dtype=np.float64)
    s = np.ascontiguousarray(np.broadcast_to(s, k.shape))
    vmin, vmax = side.vrange
    if idx_cols is not None:
        vmin, vmax = vmin[idx_cols], vmax[idx_cols]
    span = np.maximum(np.abs(vmin - s), np.abs(vmax - s))
    tier = np.where(np.abs(k) <= ZERO_K, 0, np.where(np.abs(k) * span < A2_SERIES_RADIUS, 1, 2))
    if np.all(tier == tier[0]):
        out = _moments(side, k, s, int(tier[0]), score, idx_cols, series)
    else:  # columns in different regimes: each group on its own
        p = side.v.shape[1] if idx_cols is None else idx_cols.size
        parts = {}
        for t in np.unique(tier):
            idx = np.flatnonzero(tier == t)
            sub = idx_cols if p == 1 else (idx if idx_cols is None else idx_cols[idx])
            parts[t] = (idx, _moments(side, k[idx], s[idx], int(t), score, sub))
        first = next(iter(parts.values()))[1]
        vals = {}
        for f in _ARRAYS:
            arr = np.empty(k.shape)
            for idx, m in parts.values():
                arr[idx] = np.broadcast_to(getattr(m, f), idx.shape)
            vals[f] = arr
        out = SideMoments(**vals, negative=first.negative)
    if kappa_in.ndim == 1:
        return out
    vals = {f: np.reshape(getattr(out, f), kappa_in.shape) for f in _ARRAYS}
    return SideMoments(**vals, negative=out.negative)


def _moments(side: Side, k: NDArray, s: NDArray, tier: int, score: bool,
             cols: NDArray[np.intp] | None, series: bool = True) -> SideMoments:
    """:func:`side_moments` for columns that share one regime (``tier`` 0, 1 or 2)."""
    n, p = side.v.shape
    if cols is not None:
        p = cols.size
    width = max(p, k.size)
    shifted = bool(np.any(s != 0))
    rows = max(1, BLOCK_ELEMENTS // width)
    if tier == 2 and p == 1 and side.w is None and n > COLUMN_BLOCK and width < WIDE:
        # one long column at a few exponents: flat blocks, each read once for all of them
        col = side.v[:, 0 if cols is None else int(cols[0])]
        parts = column_moments(np.ascontiguousarray(col), np.broadcast_to(k, (width,)),
                               np.broadcast_to(s, (width,)), shifted, score, series)
    else:
        work = _work() if tier == 2 and n > rows and rows * width <= BLOCK_ELEMENTS else None
        parts = [_block_moments(side, slice(a, a + rows), k, s, shifted, tier, score, cols,
                                work, series) for a in range(0, max(n, 1), rows)]
    if len(parts) == 1:  # one block: its moments are the side's
        Wt, mean_t, m2, meanN_t, c2, dsum_t = parts[0]
    else:
        W, mean, M2, meanN, C2, dsum = (np.stack(q) for q in zip(*parts, strict=True))
        Wt, dsum_t = W.sum(axis=0), dsum.sum(axis=0)
        Ws = np.where(Wt > 0, Wt, 1.0)
        mean_t = (W * mean).sum(axis=0) / Ws
        dm = mean - mean_t
        m2 = M2.sum(axis=0) + (W * dm * dm).sum(axis=0)
        meanN_t = (W * meanN).sum(axis=0) / Ws
        c2 = C2.sum(axis=0) + (W * dm * (meanN - meanN_t)).sum(axis=0)
    scale = k if tier == 2 else np.ones(width)
    if score:
        mean_chi = meanN_t / (scale * scale)
        c2 = c2 / (scale * scale * scale)
    else:
        mean_chi = c2 = np.full(width, np.nan)
    vsum = side.vsum if cols is None else side.vsum[cols]
    log_ref = side.log_ref if cols is None else side.log_ref[cols]
    wv = _full(vsum, width)
    return SideMoments(
        _full(Wt, width), wv, _full(dsum_t, width) if shifted else wv, mean_t / scale,
        m2 / (scale * scale), mean_chi, c2, _full(log_ref, width), _full(s, width),
        _full(k, width), side.negative,
    )


def _full(a: NDArray, width: int) -> NDArray[np.float64]:
    """``a`` as a float array of shape (width,) (a copy only where it must be broadcast)."""
    a = np.asarray(a, dtype=np.float64)
    return a if a.shape == (width,) else np.full(width, a.reshape(-1)[0]) if a.size == 1 \
        else np.array(np.broadcast_to(a, (width,)))


def _log_affine(log_b: NDArray, a: NDArray, alpha: NDArray) -> NDArray:
    """``log(B + A e^alpha)`` for ``B >= 0`` when the result is known to be positive."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        pos = np.logaddexp(alpha + np.log(np.where(a > 0, a, 1.0)), log_b)
        t = np.where(a < 0, a, 0.0) * np.exp(np.minimum(alpha - log_b, 700))
        neg = log_b + np.log1p(np.maximum(t, -1.0))  # rounding can cancel a tiny mean fully
    return np.where(a > 0, pos, np.where(a < 0, neg, log_b))


def _log_side_means(m: SideMoments) -> tuple[NDArray, NDArray]:
    """``log`` of the side's unshifted mean transform and mean derivative (bases >= 1).

    With ``u = u_s + d`` (``u_s = log_ref + shift``), ``expm1(k u)/k = e^{k u_s} phi(d) +
    expm1(k u_s)/k`` and its derivative in k is ``e^{k u_s}(u_s phi + chi) + chi(u_s)``; both
    are taken from the merged moments, on the log scale, so they never overflow.
    """
    u_s = np.maximum(m.log_ref + m.shift, 0.0)
    a = m.kappa * u_s
    with np.errstate(divide="ignore"):
        log_u = np.log(u_s)
    log_phi = _log_affine(log_u + log_exprel(a), m.mean_phi, a)
    log_chi = _log_affine(2.0 * log_u + log_dexprel(a), u_s * m.mean_phi + m.mean_chi, a)
    return log_phi, log_chi


def merge_moments(a: SideMoments, b: SideMoments) -> SideMoments:
    """Merge the moments of two chunks (Chan, Golub & LeVeque 1982), same frame required.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.core.likelihood import side_moments, merge_moments
    >>> from boxcoxstat.core.sample import Sample
    >>> x = np.random.default_rng(0).lognormal(size=100)
    >>> whole = side_moments(Sample.from_array(x).pos, [0.3])
    >>> full = Sample.from_array(x).pos
    >>> parts = [side_moments(full.columns([0]).__class__(full.log_ref, full.v[i:i + 50],
    ...          None, False), [0.3], shift=[0.0]) for i in (0, 50)]
    >>> bool(np.allclose(merge_moments(*parts).m2, whole.m2, rtol=1e-13))
    True
    """
    for name in ("log_ref", "shift", "kappa"):
        if not np.array_equal(getattr(a, name), getattr(b, name)):
            raise BoxCoxError(f"cannot merge moments computed in different frames ({name})")
    W = a.W + b.W
    Ws = np.where(W > 0, W, 1.0)
    fb = b.W / Ws
    dphi = b.mean_phi - a.mean_phi
    dchi = b.mean_chi - a.mean_chi
    cross = a.W * b.W / Ws
    return replace(
        a,
        W=W,
        wv=a.wv + b.wv,
        d_sum=a.d_sum + b.d_sum,
        mean_phi=a.mean_phi + dphi * fb,
        m2=a.m2 + b.m2 + dphi * dphi * cross,
        mean_chi=a.mean_chi + dchi * fb,
        c2=a.c2 + b.c2 + dphi * dchi * cross,
    )


def _one_sided(m: SideMoments, n: NDArray, unit: NDArray | None = None,
               score_factor: NDArray | None = None) -> tuple[NDArray, NDArray]:
    """NLL and dNLL/dkappa of a sample with a single side (exact form, no large cancellation);
    moments measured in ``unit`` (see :func:`nll_score_from_moments`) are converted back, the
    score multiplied by ``score_factor``."""
    j_abs = m.W * m.log_ref + m.wv
    with np.errstate(divide="ignore"):
        nll_val = -m.kappa * m.d_sum + 0.5 * n * (np.log(m.m2) - np.log(n))
        dk = -m.d_sum + n * m.c2 / m.m2
        if unit is None:
            return nll_val + j_abs, dk
        return (nll_val + unit * j_abs + n * np.log(unit),
                dk if score_factor is None else score_factor * dk)


def nll_score_from_moments(
    pos: SideMoments | None, neg: SideMoments | None, lmbda: ArrayLike,
    unit: NDArray[np.float64] | None = None, score_unit: NDArray[np.float64] | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Profile NLL and its derivative in lambda from (merged) side moments.

    ``unit`` (per pair, powers of two; ``Sample.unit``) says the moments were computed with
    every length divided by it and every exponent multiplied by it: the variance terms are
    then ``Var / unit**2`` and the score ``d/d(kappa unit)``, converted back here exactly.
    With ``score_unit`` (powers of two) the score returned is the derivative in
    ``lambda * score_unit`` (formed without the natural score, which can underflow).
    """
    lmbda = np.asarray(lmbda, dtype=np.float64)
    factor = None
    if unit is not None:
        factor = unit if score_unit is None else unit / score_unit
    elif score_unit is not None:
        unit, factor = np.ones_like(score_unit), 1.0 / score_unit
    if neg is None or pos is None:
        m = pos if neg is None else neg
        if m is None:
            raise BoxCoxError("no moments to evaluate: both sides are empty")
        val, dk = _one_sided(m, m.W, unit, factor)
        return val, (-dk if m.negative else dk)
    n = pos.W + neg.W
    only_p, only_n = neg.W == 0, pos.W == 0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        vp, dp = _one_sided(pos, n, unit, factor)
        vn, dn = _one_sided(neg, n, unit, factor)
        lnWp, lnWn, lnn = np.log(pos.W), np.log(neg.W), np.log(n)
        scale_p = pos.log_ref + pos.shift
        scale_n = neg.log_ref + neg.shift
        lnT1 = np.log(pos.m2) + 2.0 * pos.kappa * scale_p
        lnT2 = np.log(neg.m2) + 2.0 * neg.kappa * scale_n
        lphi_p, lchi_p = _log_side_means(pos)
        lphi_n, lchi_n = _log_side_means(neg)
        ln_msum = np.logaddexp(lphi_p, lphi_n)
        lnT3 = lnWp + lnWn - lnn + 2.0 * ln_msum
        lnT = np.stack([lnT1, lnT2, lnT3])
        top = lnT.max(axis=0)  # log-sum-exp of three terms (scipy's costs 0.4 ms a call)
        top = np.where(np.isfinite(top), top, 0.0)
        lse = top + np.log(np.exp(lnT - top).sum(axis=0))
        om = np.exp(lnT - lse)
        J = (pos.W * pos.log_ref + pos.wv) - (neg.W * neg.log_ref + neg.wv)
        if unit is not None:  # J in its natural length; the variance's unit back
            J = unit * J
            lse = lse + 2.0 * np.log(unit)
        mixed_nll = (1.0 - lmbda) * J + 0.5 * n * (lse - lnn)
        rho3 = np.exp(lchi_p - ln_msum) - np.exp(lchi_n - ln_msum)
        terms = (
            -pos.d_sum + neg.d_sum
            + (n * om[0] - pos.W) * scale_p - (n * om[1] - neg.W) * scale_n
            + np.where(om[0] > 0, n * om[0] * pos.c2 / pos.m2, 0.0)
            - np.where(om[1] > 0, n * om[1] * neg.c2 / neg.m2, 0.0)
            + np.where(om[2] > 0, n * om[2] * rho3, 0.0)
        )
        if factor is not None:
            terms = factor * terms  # every term is a length over the unit
    nll_val = np.where(only_p, vp, np.where(only_n, vn, mixed_nll))
    sc = np.where(only_p, dp, np.where(only_n, -dn, terms))
    return nll_val, sc


def nll_score(
    sample: Sample, lmbda: ArrayLike, *, score: bool = True, cols: ArrayLike | None = None,
    score_unit: NDArray[np.float64] | None = None, series: bool = True,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Profile NLL and score at ``lmbda`` (one value per column, or many for one column).

    With ``score=False`` only the NLL is computed (the score is returned as NaN). With
    ``score_unit`` (per pair, powers of two) the score is the derivative in
    ``lambda * score_unit`` (``profile.RescaledProfile``). ``series=False``: see
    :func:`side_moments` (the NLL is the same).
    """
    lmbda = np.asarray(lmbda, dtype=np.float64)
    if cols is None and score_unit is None and short_ok(sample):
        short = short_nll_score(sample, lmbda, score)
        if short is not None:
            return short
    unit = sample.unit if cols is None else sample.unit[np.asarray(cols, dtype=np.intp)]
    u: NDArray[np.float64] | None = None
    if np.any(unit != 1.0):  # Yeo-Johnson on a tiny scale: lengths in the unit
        u = np.broadcast_to(unit, lmbda.shape) if unit.size == 1 else unit
        sample = sample.in_units
    pm = nm = None
    if sample.pos is not None:
        pm = side_moments(sample.pos, lmbda if u is None else lmbda * u, score=score,
                          cols=cols, series=series)
    if sample.neg is not None:
        nm = side_moments(sample.neg, 2.0 - lmbda if u is None else (2.0 - lmbda) * u,
                          score=score, cols=cols, series=series)
    return nll_score_from_moments(pm, nm, lmbda, u, score_unit)


def _sample_and_lambdas(x: ArrayLike, lmbda: ArrayLike, family: str,
                        weights: ArrayLike | None) -> tuple[Sample, NDArray, bool]:
    """Validated sample of :func:`nll` / :func:`score` and its lambdas: a 1-D ``x`` with any
    array of lambdas, or an (n, p) ``x`` with one lambda (or one per column); the flag says
    which."""
    from .._validation.columns import as_columns, case_weights, check_lambdas

    fam = normalize_family(family, allow_auto=False)
    cols = as_columns(x, family=fam, missing="raise", min_n=2, tiny_scale=True)
    w = case_weights(weights, cols.values.shape[0])
    lam = np.asarray(lmbda)
    if lam.dtype.kind not in "iuf":
        raise BoxCoxError(f"lmbda must be a number or an array of numbers, got {lmbda!r:.80}")
    lam = check_lambdas(lam.astype(np.float64))
    if cols.univariate:
        return Sample.from_array(cols.values[:, 0], fam, w), lam, False
    p = cols.values.shape[1]
    if lam.ndim > 1 or lam.size not in (1, p):
        raise BoxCoxError(f"with {p} columns, lmbda must be one number or {p} numbers (one per "
                          f"column), got shape {lam.shape}; evaluate many lambdas on a 1-D "
                          "sample")
    return Sample.from_array(cols.values, fam, w), np.broadcast_to(lam.reshape(-1), (p,)), True


def nll(
    x: ArrayLike,
    lmbda: ArrayLike,
    family: str = "boxcox",
    weights: ArrayLike | None = None,
) -> NDArray[np.float64]:
    """Profile negative log-likelihood of a sample, vectorised over ``lmbda``.

    ``(1 - lmbda) * J + n/2 * log Var(psi)`` with ``J = sum log x`` (Box-Cox) or
    ``sum sign(x) log(1 + |x|)`` (Yeo-Johnson) and the variance with divisor n (weighted:
    sums and n are weighted). Never overflows, whatever ``lmbda``.

    Parameters
    ----------
    x : array_like, shape (n,) or (n, p)
        A sample, or ``p`` columns evaluated separately (as ``scipy.stats.boxcox_llf`` does
        along axis 0). Missing values are refused (drop them first).
    lmbda : float or array_like
        For 1-D ``x``, any array of powers (the result has its shape); for 2-D ``x``, one
        power or one per column (the result has one value per column).
    family : {"boxcox", "yeojohnson"}, default="boxcox"
    weights : array_like of shape (n,), optional
        Frequency weights of the rows.

    Raises
    ------
    BoxCoxError
        For data the package refuses (see ``bcs.fit``), fewer than 2 values, missing values,
        non-finite or non-numeric ``lmbda`` or ``|lmbda| > 1e150``, or a 2-D ``x`` with a
        ``lmbda`` of another shape.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.core.likelihood import nll
    >>> nll([0.1, 0.1, 0.1, 0.101], [-361.15, 0.0, 361.15]).round(3)
    array([-32.623, -30.989, -25.436])
    >>> nll(np.array([[1.0, 2.0], [2.0, 3.0], [4.0, 7.0]]), 0.0).round(3)
    array([0.372, 1.787])
    """
    sample, lam, columns = _sample_and_lambdas(x, lmbda, family, weights)
    val, _ = nll_score(sample, lam.reshape(-1), score=False)
    return val if columns else val.reshape(lam.shape)


def score(
    x: ArrayLike, lmbda: ArrayLike, family: str = "boxcox", weights: ArrayLike | None = None
) -> NDArray[np.float64]:
    """Derivative of :func:`nll` with respect to lambda (same shapes and errors).

    Examples
    --------
    >>> from boxcoxstat.core.likelihood import score
    >>> score([1.0, 2.0, 4.0, 7.0], [0.0, 1.0]).round(3)
    array([-0.155,  1.188])
    """
    sample, lam, columns = _sample_and_lambdas(x, lmbda, family, weights)
    _, sc = nll_score(sample, lam.reshape(-1))
    return sc if columns else sc.reshape(lam.shape)


def _slope_side(side: Side, kappa: NDArray, exact: bool, cols: NDArray[np.intp] | None
                ) -> tuple[SideMoments, NDArray, NDArray, NDArray] | None:
    """A side's moments at ``kappa`` and the kappa-derivatives of ``mean_chi`` and ``c2``
    (``mean_chi2``, ``v_chi + c_phi_chi2``), or None where the kernel has no such path (the
    regimes of small ``|kappa d|``, weights, wide blocks)."""
    s = choose_shift(side, kappa, cols)
    vmin, vmax = side.vrange
    if cols is not None:
        vmin, vmax = vmin[cols], vmax[cols]
    span = np.maximum(np.abs(vmin - s), np.abs(vmax - s))
    if not np.all(np.abs(kappa) * span >= A2_SERIES_RADIUS) or np.any(np.abs(kappa) <= ZERO_K):
        return None
    shifted = bool(np.any(s != 0))
    out = slope_moments(side, kappa, s, shifted, exact, cols)
    if out is None:
        return None
    W, mean, M2, meanN, C2, dsum, VN, meanK, CK = out
    k = kappa
    width = W.shape[0]
    vsum = side.vsum if cols is None else side.vsum[cols]
    log_ref = side.log_ref if cols is None else side.log_ref[cols]
    wv = _full(vsum, width)
    m = SideMoments(W, wv, dsum if shifted else wv, mean / k, M2 / (k * k), meanN / (k * k),
                    C2 / (k * k * k), _full(log_ref, width), _full(s, width), _full(k, width),
                    side.negative)
    k4 = k * k * k * k
    return m, meanK / (k * k * k), (VN + CK) / k4, np.asarray(width)


def nll_score_slope(sample: Sample, lmbda: ArrayLike, *, exact: bool = True,
                    cols: ArrayLike | None = None
                    ) -> tuple[NDArray[np.float64], NDArray[np.float64],
                               NDArray[np.float64], NDArray[np.float64]] | None:
    """Profile NLL, score, the score's derivative in lambda (the NLL's curvature) and a bound
    of the score's error from ``exact=False`` (0 when exact) at ``lmbda``, in one pass over
    the data, or None where no such pass exists (tiny-scale Yeo-Johnson units, weights, the
    regime ``|lambda d| < 1/8`` throughout, many columns).

    The curvature is ``n [(Var chi + Cov(phi, d chi/d kappa)) / Var phi - 2 (Cov(phi, chi)
    / Var phi)^2]`` for one side; with two (mixed-sign Yeo-Johnson) it is the derivative of
    :func:`nll_score_from_moments` along the moments' own derivatives, by Richardson's
    central differences of step 1e-3 / max|d| and twice that (about 1e-11 relative). With
    ``exact=False`` no series is used for small ``|lambda d|`` (the closed form errs by up
    to ``2.5 eps |lambda d|`` a value there): the bound returned is what that can change the
    score by (one side: ``SERIES_ERR W sqrt(W m2) / (kappa^2 m2)``; two sides: the
    score's sensitivity to each side's ``c2`` and ``mean_chi`` times their bounds). On
    ordinary data it is far below what moves the root (the small terms are lost in the
    rounding of the sums: the score is usually the same to the last bit).
    """
    lmbda = np.asarray(lmbda, dtype=np.float64)
    idx = None if cols is None else np.asarray(cols, dtype=np.intp)
    unit = sample.unit if idx is None else sample.unit[idx]
    if np.any(unit != 1.0):
        return None
    got = []
    for side in sample.sides:
        kappa = 2.0 - lmbda if side.negative else lmbda
        one = _slope_side(side, np.atleast_1d(kappa), exact, idx)
        if one is None:
            return None
        got.append(one)
    if len(got) == 1:
        m, _, dc2, _ = got[0]
        val, dk = _one_sided(m, m.W)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = m.c2 / m.m2
            curv = m.W * ((dc2 / m.m2) - 2.0 * r * r)
            err = 0.0 if exact else SERIES_ERR * m.W * _c2_err(m) / m.m2
        return val, (-dk if m.negative else dk), curv, np.broadcast_to(err, val.shape)
    (pm, pk, pdc, _), (nm, nk, ndc, _) = got
    val, sc = nll_score_from_moments(pm, nm, lmbda)
    if sample.pos is None or sample.neg is None:
        return None
    # every other evaluation of the moments' function in one vectorised call (nine calls
    # of one lambda cost about 3 ms, a third of an np.log pass over 1e7 values)
    moved_p: list[SideMoments] = []
    moved_n: list[SideMoments] = []
    at: list[NDArray] = []
    if not exact:  # the score's sensitivity to each side's c2 and mean_chi, times their bound
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            for which in ("pos", "neg"):
                m = pm if which == "pos" else nm
                for field, size in (("c2", _c2_err(m)), ("mean_chi", 1.0 / (m.kappa ** 2))):
                    big = 1e6 * SERIES_ERR * size  # far above the score's rounding, still linear
                    moved = {"pos": pm, "neg": nm}
                    moved[which] = replace(m, **{field: getattr(m, field) + big})
                    moved_p.append(moved["pos"])
                    moved_n.append(moved["neg"])
                    at.append(lmbda)
    reach = np.ones_like(lmbda)
    for side, m in ((sample.pos, pm), (sample.neg, nm)):
        vmin, vmax = side.vrange
        if idx is not None:
            vmin, vmax = vmin[idx], vmax[idx]
        reach = np.maximum(reach, np.maximum(np.abs(vmin - m.shift), np.abs(vmax - m.shift)))
    h = 1e-3 / reach

    def moved_by(m: SideMoments, dmc: NDArray, dc2: NDArray, u: NDArray) -> SideMoments:
        return replace(m, mean_phi=m.mean_phi + u * m.mean_chi, m2=m.m2 + 2.0 * u * m.c2,
                       mean_chi=m.mean_chi + u * dmc, c2=m.c2 + u * dc2, kappa=m.kappa + u)

    steps = (h, -h, 2.0 * h, -2.0 * h)
    for t in steps:
        moved_p.append(moved_by(pm, pk, pdc, t))
        moved_n.append(moved_by(nm, nk, ndc, -t))
        at.append(lmbda + t)
    width = lmbda.size
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        _, scores = nll_score_from_moments(_stack_moments(moved_p), _stack_moments(moved_n),
                                           np.concatenate([np.ravel(q) for q in at]))
        scores = scores.reshape(len(at), width)
        err = np.zeros_like(sc)
        for ds in scores[: len(at) - len(steps)]:
            err = err + np.abs(ds.reshape(sc.shape) - sc) * 1e-6
        if not exact:
            err = np.where(np.isfinite(err), err, np.inf)
        up, down, up2, down2 = (q.reshape(sc.shape) for q in scores[len(at) - len(steps) :])
        d1 = (up - down) / (2.0 * h)
        d2 = (up2 - down2) / (4.0 * h)
    return val, sc, (4.0 * d1 - d2) / 3.0, err


def _stack_moments(ms: list[SideMoments]) -> SideMoments:
    """Moments of one side side by side: one evaluation of many (lambda, moments) pairs."""
    width = np.size(ms[0].W)
    arrays: dict[str, Any] = {f: np.concatenate([np.broadcast_to(getattr(m, f), (width,))
                                                 for m in ms]) for f in _ARRAYS}
    return replace(ms[0], **arrays)


# Without the series, N = a^2 exprel'(a) = (a - m) + a m errs by at most 4.5 eps |a| where
# |a| < 1/8 (expm1's error, taken as 4 ulp as SIMD implementations promise, passes through
# the exact difference a - m; the product and the sum round): 4.5 eps / 8 a value, x 2 for
# the terms the bound leaves out (the block means' corrections, of order eps^2)
SERIES_ERR = 2.0 * 4.5 * float(np.finfo(float).eps) / 8.0


def _c2_err(m: SideMoments) -> NDArray[np.float64]:
    """Bound of the change of ``c2`` (per unit of :data:`SERIES_ERR`) when ``N`` is formed
    without the series: ``sum |m - mean| |dN| / |kappa|^3 <= sqrt(W M2) / |kappa|^3`` by
    Cauchy-Schwarz, ``M2 = kappa^2 m2``."""
    return np.sqrt(m.W * m.m2) / (m.kappa * m.kappa)
