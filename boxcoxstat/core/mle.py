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

from .likelihood import nll_score
from .optimize import bracket_increasing, find_root
from .sample import Sample

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
    h = 1/100 of the natural scale 1/sqrt(curvature), kept within 1e-6..1e-2 of max(1,
    |lambda|)), which is accurate to about 1e-10 relative because the score itself is accurate
    to rounding error.
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


class _Recorder:
    """Score callback that remembers the NLL at every point it evaluated, per column, and
    counts the evaluations."""

    def __init__(self, sample: Sample):
        self.sample = sample
        self.seen: dict[int, dict[float, float]] = {}
        self.nfev = np.zeros(sample.ncols, dtype=np.int64)

    def __call__(self, lam: NDArray[np.float64], idx: NDArray[np.intp]) -> NDArray[np.float64]:
        val, sc = nll_score(self.sample.columns(idx), lam)
        self.nfev[idx] += 1
        for j, x, v in zip(idx.tolist(), lam.tolist(), val.tolist(), strict=True):
            self.seen.setdefault(j, {})[x] = v
        return sc

    def nll_at(self, lam: NDArray[np.float64]) -> NDArray[np.float64]:
        """The NLL at ``lam`` (one value per column), evaluated only where not yet seen."""
        out = np.array([self.seen.get(j, {}).get(x, np.nan) for j, x in enumerate(lam.tolist())])
        need = np.flatnonzero(np.isnan(out))
        if need.size:
            out[need] = nll_score(self.sample.columns(need), lam[need], score=False)[0]
        return out


def _solve(
    sample: Sample,
    lo: NDArray,
    hi: NDArray,
    flo: NDArray | None = None,
    fhi: NDArray | None = None,
    rec: _Recorder | None = None,
) -> tuple[NDArray, NDArray, NDArray, NDArray]:
    """Root of the score in each column from a starting interval; also the NLL there."""
    rec = _Recorder(sample) if rec is None else rec
    lo, hi, flo, fhi, ok, _ = bracket_increasing(rec, lo, hi, flo=flo, fhi=fhi)
    res = find_root(rec, lo, hi, flo, fhi, xatol=1e-13)
    return res.x, rec.nll_at(res.x), ok & res.converged, rec.nfev


def _polish_start(sample: Sample, sub: Sample, rec: _Recorder):
    """A starting bracket for the full data from the subsample's root and curvature.

    One full score evaluation at the subsample root and one Newton step (with the subsample's
    curvature scaled to the full size, overshooting by 20%) usually bracket the root, so the
    full data need only a few more evaluations.
    """
    p = sample.ncols
    lam_s, _, ok_s, _ = _solve(sub, np.zeros(p), np.ones(p))
    c = curvature(sub, lam_s) * (sample.nobs() / sub.nobs())
    good = ok_s & np.isfinite(c) & (c > 0)
    if not good.any():
        return np.zeros(p), np.ones(p), None, None
    s0 = rec(lam_s, np.arange(p))
    step = -1.2 * s0 / np.where(good, c, 1.0)
    step = np.where(step == 0, 1e-12 * np.maximum(1.0, np.abs(lam_s)), step)
    up = step > 0
    lo = np.where(good, np.where(up, lam_s, lam_s + step), 0.0)
    hi = np.where(good, np.where(up, lam_s + step, lam_s), 1.0)
    flo = np.where(good & up, s0, np.nan)
    fhi = np.where(good & ~up, s0, np.nan)
    return lo, hi, flo, fhi


def mle_lambda(sample: Sample) -> LambdaFit:
    """Maximum-likelihood lambda for every column of ``sample``.

    Large samples are first solved on a systematic subsample of about 20,000 rows; one score
    evaluation and a Newton step on the full data then bracket the root, and a few more close
    it.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.core.sample import Sample
    >>> from boxcoxstat.core.mle import mle_lambda
    >>> fit = mle_lambda(Sample.from_array([0.1, 0.1, 0.1, 0.101], "boxcox"))
    >>> round(float(fit.lmbda[0]), 3)
    -361.145
    """
    p = sample.ncols
    rec = _Recorder(sample)
    lo, hi, flo, fhi = np.zeros(p), np.ones(p), None, None
    if sample.nrows > SUBSAMPLE_FROM:
        sub = sample.every(sample.nrows // SUBSAMPLE_SIZE)
        lo, hi, flo, fhi = _polish_start(sample, sub, rec)
    lam, val, ok, nfev = _solve(sample, lo, hi, flo, fhi, rec)
    return LambdaFit(lam, val, ok & np.isfinite(val), nfev)
