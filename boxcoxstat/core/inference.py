"""Inference on lambda: profile-likelihood and Wald intervals, LR tests, convenient powers.

Layer 4. Everything is batched over columns and built on the stable profile NLL of
``likelihood``; interval endpoints are roots of ``2 (NLL(lambda) - NLL(hat)) = chi2_1(1-alpha)``
found by geometric bracketing and Chandrupatla's method, so a far endpoint costs a few more
evaluations, never a failure.

References
----------
Box, G. E. P. and Cox, D. R. (1964). An analysis of transformations. JRSS B 26, 211-243.
Fox, J. and Weisberg, S. (2019). An R Companion to Applied Regression, 3rd ed. (car's
``powerTransform``, ``testTransform`` and convenient rounded powers).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from .._validation import BoxCoxError
from .likelihood import nll_score
from .mle import curvature
from .optimize import bracket_increasing, find_root
from .sample import Sample

__all__ = [
    "CONVENIENT_POWERS",
    "standard_error",
    "wald_interval",
    "profile_interval",
    "lr_statistic",
    "chi2_pvalue",
    "rounded_power",
]

CONVENIENT_POWERS = (-2.0, -1.0, -0.5, -1.0 / 3.0, 0.0, 1.0 / 3.0, 0.5, 1.0, 2.0)


def standard_error(sample: Sample, lmbda: NDArray[np.float64]) -> NDArray[np.float64]:
    """``1 / sqrt(observed information)`` at ``lmbda`` (the curvature of the profile NLL)."""
    info = curvature(sample, lmbda)
    return np.where(info > 0, 1.0 / np.sqrt(np.where(info > 0, info, 1.0)), np.nan)


def wald_interval(
    lmbda: NDArray[np.float64], bse: NDArray[np.float64], alpha: float = 0.05
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``lmbda -+ z_{1-alpha/2} bse``."""
    z = stats.norm.isf(alpha / 2.0)
    return lmbda - z * bse, lmbda + z * bse


def profile_interval(
    sample: Sample,
    lmbda: NDArray[np.float64],
    nll_hat: NDArray[np.float64],
    bse: NDArray[np.float64],
    alpha: float = 0.05,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Profile-likelihood interval ``{lambda : 2 (NLL(lambda) - NLL(hat)) <= chi2_1(1 - alpha)}``.

    Both endpoints of every column are solved together: for the upper one the function
    ``t -> NLL(hat + t) - NLL(hat) - q/2`` is increasing on ``t >= 0`` and negative at 0, so it
    is bracketed by doubling from ``t = 2 bse`` and closed by root finding (the lower one
    likewise with ``hat - t``).
    """
    half_q = 0.5 * stats.chi2.isf(alpha, 1)
    p = lmbda.shape[0]
    # stack (upper, lower) problems: column k < p is upper, k >= p lower
    direction = np.r_[np.ones(p), -np.ones(p)]
    cols = np.r_[np.arange(p), np.arange(p)]
    center = np.r_[lmbda, lmbda]
    base = np.r_[nll_hat, nll_hat]
    step = np.r_[bse, bse]
    step = np.where(np.isfinite(step) & (step > 0), 2.0 * step, 1e-3 * np.maximum(1, abs(center)))

    def f(t: NDArray, idx: NDArray) -> NDArray:
        val, _ = nll_score(sample.columns(cols[idx]), center[idx] + direction[idx] * t,
                           score=False)
        return val - base[idx] - half_q

    lo = np.zeros(2 * p)
    flo = np.full(2 * p, -half_q)
    a, b, fa, fb, ok, _ = bracket_increasing(f, lo, step, flo=flo, limit=1e300)
    res = find_root(f, a, b, fa, fb, xatol=0.0, xrtol=1e-13)
    if not np.all(ok & res.converged):
        raise BoxCoxError(
            "the profile likelihood does not fall to the interval's cut-off within any finite "
            "range of lambda; the data do not determine an interval"
        )
    t = res.x
    return lmbda - t[p:], lmbda + t[:p]


def lr_statistic(
    sample: Sample, nll_hat: NDArray[np.float64], lmbda0: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Likelihood-ratio statistic ``2 (NLL(lmbda0) - NLL(hat))`` (never negative)."""
    val, _ = nll_score(sample, np.asarray(lmbda0, dtype=np.float64), score=False)
    return np.maximum(2.0 * (val - nll_hat), 0.0)


def chi2_pvalue(statistic: NDArray[np.float64], df: int = 1) -> NDArray[np.float64]:
    """Upper-tail chi-square p-value."""
    return stats.chi2.sf(statistic, df)


def rounded_power(
    lmbda: NDArray[np.float64], lower: NDArray[np.float64], upper: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The convenient power inside ``[lower, upper]`` nearest the estimate, else the estimate
    rounded to two decimals.

    Candidates are -2, -1, -1/2, -1/3, 0, 1/3, 1/2, 1, 2 (Fox & Weisberg 2019). Ties go to the
    simpler power (1, 0, -1, 1/2, 1/3, -1/2, -1/3, 2, -2 in that order, car's preference).

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.core.inference import rounded_power
    >>> rounded_power(np.array([0.45, -0.11, 4.113]), np.array([0.2, -0.3, 3.9]),
    ...               np.array([0.6, 0.05, 4.3]))
    array([0.5 , 0.  , 4.11])
    """
    cand = np.array(CONVENIENT_POWERS)
    preference = {1.0: 0, 0.0: 1, -1.0: 2, 0.5: 3, 1 / 3: 4, -0.5: 5, -1 / 3: 6, 2.0: 7, -2.0: 8}
    rank = np.array([preference[c] for c in CONVENIENT_POWERS])
    out = np.round(lmbda, 2)
    for j in range(lmbda.shape[0]):
        inside = (cand >= lower[j]) & (cand <= upper[j])
        if inside.any():
            c, r = cand[inside], rank[inside]
            dist = np.abs(c - lmbda[j])
            best = np.lexsort((r, np.round(dist, 12)))[0]
            out[j] = c[best]
    return out
