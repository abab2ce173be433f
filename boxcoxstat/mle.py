"""Maximum-likelihood lambda: the root of the stable score, found for all columns at once.

Layer 3. The profile NLL is strictly convex in lambda (Kouider & Chen 1995), so its derivative
is increasing with one sign change. Bracketing that sign change by doubling and closing it with
Chandrupatla's method resolves lambda to a few units in the last place of the score's accuracy,
where a minimiser working on NLL values alone stops near the square root of machine precision.

References
----------
Kouider, E. and Chen, H. (1995). Concavity of Box-Cox log-likelihood function. Statistics &
Probability Letters 25, 171-175.
Xu, X. and Cormode, G. (2025). Power transform revisited: numerically stable, and federated.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from .likelihood import Sample, nll_score
from .optimize import bracket_increasing, find_root

__all__ = ["LambdaFit", "mle_lambda", "score_function", "curvature"]

SUBSAMPLE_SIZE = 20_000
SUBSAMPLE_FROM = 100_000  # rows above which lambda is first solved on a systematic subsample


@dataclass(frozen=True)
class LambdaFit:
    """Per-column maximum-likelihood solution.

    ``lmbda`` the roots, ``nll`` the profile NLL there, ``converged`` whether a sign change was
    bracketed and closed, ``nfev`` score evaluations on the full data.
    """

    lmbda: NDArray[np.float64]
    nll: NDArray[np.float64]
    converged: NDArray[np.bool_]
    nfev: NDArray[np.int64]


def score_function(sample: Sample):
    """``f(lmbda, idx)``: the score of columns ``idx`` at ``lmbda`` (for the batched solvers)."""

    def f(lam: NDArray[np.float64], idx: NDArray[np.intp]) -> NDArray[np.float64]:
        return nll_score(sample.columns(idx), lam)[1]

    return f


def curvature(sample: Sample, lmbda: NDArray[np.float64]) -> NDArray[np.float64]:
    """Second derivative of the profile NLL (observed information) at ``lmbda``.

    Central differences of the analytic score with Richardson extrapolation (steps h and h/2,
    h = 1e-3 of the natural scale 1/sqrt(curvature)), which is accurate to about 1e-10 relative
    because the score itself is accurate to rounding error.
    """
    lmbda = np.asarray(lmbda, dtype=np.float64)
    f = score_function(sample)
    idx = np.arange(lmbda.shape[0])

    def slope(h):
        return (f(lmbda + h, idx) - f(lmbda - h, idx)) / (2.0 * h)

    h0 = 1e-4 * np.maximum(1.0, np.abs(lmbda))
    c0 = np.abs(slope(h0))
    h = 1e-2 / np.sqrt(np.where(c0 > 0, c0, 1.0))
    h = np.minimum(h, 1e-2 * np.maximum(1.0, np.abs(lmbda)))
    h = np.maximum(h, 1e-6 * np.maximum(1.0, np.abs(lmbda)))
    return (4.0 * slope(h / 2.0) - slope(h)) / 3.0


def _solve(
    sample: Sample, lo: NDArray, hi: NDArray, flo: NDArray | None = None
) -> tuple[NDArray, NDArray, NDArray]:
    f = score_function(sample)
    lo, hi, flo, fhi, ok, nb = bracket_increasing(f, lo, hi, flo=flo)
    res = find_root(f, lo, hi, flo, fhi, xatol=1e-13)
    return res.x, ok & res.converged, nb + res.nfev


def _polish_start(sample: Sample, sub: Sample) -> tuple[NDArray, NDArray, NDArray | None]:
    """A starting bracket for the full data from the subsample's root and curvature.

    One full score evaluation at the subsample root and one Newton step (with the subsample's
    curvature scaled to the full size, overshooting by 20%) usually bracket the root.
    """
    p = sample.ncols
    lam_s, ok_s, _ = _solve(sub, np.zeros(p), np.ones(p))
    c = curvature(sub, lam_s) * (sample.nobs() / sub.nobs())
    good = ok_s & np.isfinite(c) & (c > 0)
    if not good.any():
        return np.zeros(p), np.ones(p), None
    s0 = score_function(sample)(lam_s, np.arange(p))
    step = -1.2 * s0 / np.where(good, c, 1.0)
    step = np.where(step == 0, 1e-12 * np.maximum(1.0, np.abs(lam_s)), step)
    other = lam_s + step
    lo = np.where(good, np.minimum(lam_s, other), 0.0)
    hi = np.where(good, np.maximum(lam_s, other), 1.0)
    # the known value belongs to lam_s, which is lo only where the step went up
    up = good & (step > 0)
    if up.all():
        return lo, hi, s0
    if not up.any():
        return lo, hi, None
    return np.where(up, lo, lam_s), np.where(up, hi, lam_s + np.abs(step)), None


def mle_lambda(sample: Sample) -> LambdaFit:
    """Maximum-likelihood lambda for every column of ``sample``.

    Large samples are first solved on a systematic subsample of about 20,000 rows; the full
    data then only polish that estimate inside a bracket of a few standard errors.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.likelihood import Sample
    >>> from boxcoxstat.mle import mle_lambda
    >>> fit = mle_lambda(Sample.from_array([0.1, 0.1, 0.1, 0.101], "boxcox"))
    >>> round(float(fit.lmbda[0]), 3)
    -361.145
    """
    p = sample.ncols
    lo, hi, flo = np.zeros(p), np.ones(p), None
    if sample.nrows > SUBSAMPLE_FROM:
        lo, hi, flo = _polish_start(sample, sample.every(sample.nrows // SUBSAMPLE_SIZE))
    lam, ok, nfev = _solve(sample, lo, hi, flo)
    val, _ = nll_score(sample, lam)
    return LambdaFit(lam, val, ok & np.isfinite(val), nfev)
