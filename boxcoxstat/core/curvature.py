"""The curvature of any profile at its estimate: the observed information behind standard errors.

Layer 3. Central differences of the analytic score, Richardson-extrapolated
(:func:`curvature`), and the same evaluation extended with other lambdas
(:func:`curvature_and_values`: the interval's first Newton points and the tests' NLL values in
one round of a federated or Dask profile). Used by the inference module and the joint solver.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .profile import SUBSAMPLE_FROM, Profile, rescaled

__all__ = ["curvature", "curvature_and_nll", "curvature_and_values", "richardson_slope"]


def richardson_slope(central: list[NDArray[np.float64]]) -> NDArray[np.float64]:
    """Richardson extrapolation of central differences taken at steps h, h/2, h/4, ...

    ``central[k]`` is ``(f(x + h_k) - f(x - h_k)) / (2 h_k)`` with ``h_k = h / 2**k``; each
    level removes the next even power of h from the error (the last entry of the last row of
    the Richardson table is returned).
    """
    table: list[NDArray[np.float64]] = []
    for d in central:
        row = [np.asarray(d, dtype=np.float64)]
        for m, prev in enumerate(table):
            fac = 4.0 ** (m + 1)
            row.append((fac * row[m] - prev) / (fac - 1.0))
        table = row
    return table[-1]


def curvature(profile: Profile, lmbda: NDArray[np.float64],
              slope: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
    """Second derivative of the profile NLL (observed information) of every column at
    ``lmbda``.

    Central differences of the analytic score, Richardson-extrapolated from steps h and h/2
    with h = 1/100 of the natural scale 1/sqrt(curvature), kept within 1e-6..1e-2 of
    max(1, |lambda|). The natural scale comes from ``slope`` (an estimate of the curvature,
    such as :attr:`Solution.slope`) where it is given and positive, else from a first
    difference at 1e-4 max(1, |lambda|) (one more evaluation). Accurate to about 1e-10
    relative because the score itself is accurate to rounding error. Columns whose profile
    has more than ``SUBSAMPLE_FROM`` observations and a known scale take one central
    difference at h = 1/1000 of the natural scale instead (two lambdas, not four: the
    truncation error is then below 1e-9 because the profile is nearly quadratic on that
    scale, and the rounding error below 1e-9 as well).
    """
    return curvature_and_nll(profile, lmbda, slope)[0]


def curvature_and_nll(
    profile: Profile, lmbda: NDArray[np.float64], slope: NDArray[np.float64] | None = None,
    extra_lmbda: NDArray[np.float64] | None = None, extra_cols: NDArray[np.intp] | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """:func:`curvature`, and the NLL at the pairs ``(extra_lmbda, extra_cols)`` computed in
    the same evaluation (one round for a federated or Dask profile)."""
    out, val, _ = curvature_and_values(profile, lmbda, slope, extra_lmbda, extra_cols)
    return out, val


def curvature_and_values(
    profile: Profile, lmbda: NDArray[np.float64], slope: NDArray[np.float64] | None = None,
    extra_lmbda: NDArray[np.float64] | None = None, extra_cols: NDArray[np.intp] | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """:func:`curvature`, and the NLL and score at the pairs ``(extra_lmbda, extra_cols)``
    computed in the same evaluation."""
    xl = np.zeros(0) if extra_lmbda is None else np.asarray(extra_lmbda, dtype=np.float64)
    xc = np.zeros(0, dtype=np.intp) if extra_cols is None else np.asarray(extra_cols,
                                                                         dtype=np.intp)
    scaled = rescaled(profile)
    if scaled is not None:  # in lambda * unit; the curvature in lambda may underflow
        u = scaled.unit
        with np.errstate(under="ignore"):
            c, extra, extra_sc = curvature_and_values(
                scaled, np.asarray(lmbda) * u,
                None if slope is None else np.asarray(slope) / u / u, xl * u[xc], xc)
            return c * u * u, extra, extra_sc * u[xc]
    lam = np.asarray(lmbda, dtype=np.float64)
    p = lam.shape[0]
    scale = np.maximum(1.0, np.abs(lam))
    c0 = np.full(p, np.nan) if slope is None else np.asarray(slope, dtype=np.float64)
    need = np.flatnonzero(~(c0 > 0) | ~np.isfinite(c0))
    if need.size:
        h0 = 1e-4 * scale[need]
        ln = lam[need]
        _, s0 = profile.evaluate(np.r_[ln + h0, ln - h0], np.r_[need, need])
        c0 = c0.copy()
        c0[need] = np.abs((s0[: need.size] - s0[need.size :]) / (2.0 * h0))
    natural = 1.0 / np.sqrt(np.where(c0 > 0, c0, 1.0))
    big = np.broadcast_to(profile.nobs() > SUBSAMPLE_FROM, (p,)).copy()
    big[need] = False
    h = np.clip(np.where(big, 1e-3, 1e-2) * natural, 1e-6 * scale, 1e-2 * scale)
    out = np.empty(p)
    one, four = np.flatnonzero(big), np.flatnonzero(~big)
    lam_q = np.r_[lam[one] + h[one], lam[one] - h[one], lam[four] + h[four],
                  lam[four] - h[four], lam[four] + h[four] / 2, lam[four] - h[four] / 2]
    col_q = np.r_[one, one, four, four, four, four]
    val, s = profile.evaluate(np.r_[lam_q, xl], np.r_[col_q, xc])
    extra, extra_sc = val[lam_q.size :], s[lam_q.size :]
    s = s[: lam_q.size]
    k1, k4 = one.size, four.size
    out[one] = (s[:k1] - s[k1 : 2 * k1]) / (2.0 * h[one])
    s4 = s[2 * k1 :].reshape(4, k4)
    out[four] = richardson_slope([(s4[0] - s4[1]) / (2.0 * h[four]),
                                  (s4[2] - s4[3]) / h[four]])
    return out, extra, extra_sc
