"""R's ``optimize()`` (Brent's ``fmin``: golden section + parabolic interpolation), batched.

Used by the robust estimators so that they land on the same local minimum as the
authors' R code (Raymaekers & Rousseeuw 2021; cellWise 2.5.3).

References
----------
Brent, R. P. (1973). Algorithms for Minimization without Derivatives. Prentice-Hall.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["DBL_MAX", "TOL_R", "fmin"]

DBL_MAX = float(np.finfo(np.float64).max)
TOL_R = 2.0**-13  # R's optimize() default: .Machine$double.eps^0.25
_GOLD = (3.0 - np.sqrt(5.0)) / 2.0
_SQRT_EPS = 2.0**-26


def fmin(
    f: Callable[[NDArray[np.float64], NDArray[np.intp]], NDArray[np.float64]],
    a: ArrayLike,
    b: ArrayLike,
    tol: float = TOL_R,
    maxiter: int = 500,
) -> NDArray[np.float64]:
    """Brent's ``fmin`` (R's ``optimize``), run for many independent problems at once.

    Golden-section search with successive parabolic interpolation, step for step as R's
    ``Brent_fmin`` (Brent 1973), so it lands on the same local minimum as R. Non-finite
    function values are replaced by the largest double, as R does.

    Parameters
    ----------
    f : callable
        ``f(u, idx)`` returns the objectives of problems ``idx`` at the points ``u`` (both of
        the same length).
    a, b : array_like
        Interval ends, one per problem.
    tol : float, default=2**-13
        R's default tolerance (``.Machine$double.eps^0.25``).

    Returns
    -------
    ndarray
        The minimisers.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.robust._rfmin import fmin
    >>> centres = np.array([0.3, -1.2])
    >>> fmin(lambda u, idx: (u - centres[idx]) ** 2, [-4, -4], [6, 6]).round(4)
    array([ 0.3, -1.2])
    """

    def ev(u: NDArray, idx: NDArray) -> NDArray:
        val = np.asarray(f(u, idx), dtype=np.float64)
        return np.where(np.isfinite(val), val, DBL_MAX)

    a = np.array(a, dtype=np.float64, ndmin=1)
    b = np.array(b, dtype=np.float64, ndmin=1)
    p = a.size
    tol3 = tol / 3.0
    x = a + _GOLD * (b - a)
    v, w = x.copy(), x.copy()
    fx = ev(x, np.arange(p))
    fv, fw = fx.copy(), fx.copy()
    d = np.zeros(p)
    e = np.zeros(p)
    active = np.ones(p, dtype=bool)
    for _ in range(maxiter):
        xm = 0.5 * (a + b)
        tol1 = _SQRT_EPS * np.abs(x) + tol3
        t2 = 2.0 * tol1
        active &= ~(np.abs(x - xm) <= t2 - 0.5 * (b - a))
        if not active.any():
            break
        i = np.flatnonzero(active)
        xi, ai, bi, wi, vi = x[i], a[i], b[i], w[i], v[i]
        fxi, fwi, fvi, di, ei = fx[i], fw[i], fv[i], d[i], e[i]
        tol1i, t2i, xmi = tol1[i], t2[i], xm[i]
        par = np.abs(ei) > tol1i
        err = np.seterr(all="ignore")  # DBL_MAX stand-ins can overflow the parabola
        r = (xi - wi) * (fxi - fvi)
        q = (xi - vi) * (fxi - fwi)
        pp = (xi - vi) * q - (xi - wi) * r
        q = 2.0 * (q - r)
        pp = np.where(q > 0, -pp, pp)
        q = np.abs(q)
        pp = np.where(par, pp, 0.0)
        q = np.where(par, q, 0.0)
        r = np.where(par, ei, 0.0)
        ei = np.where(par, di, ei)
        golden = (
            (np.abs(pp) >= np.abs(0.5 * q * r)) | (pp <= q * (ai - xi)) | (pp >= q * (bi - xi))
            | ~np.isfinite(pp) | ~np.isfinite(q)  # (R would step to NaN here)
        )
        eg = np.where(xi < xmi, bi - xi, ai - xi)
        dpar = pp / q
        np.seterr(**err)
        upar = xi + dpar
        near = ((upar - ai) < t2i) | ((bi - upar) < t2i)
        dpar = np.where(near, np.where(xi < xmi, tol1i, -tol1i), dpar)
        ei = np.where(golden, eg, ei)
        di = np.where(golden, _GOLD * eg, dpar)
        u = np.where(
            np.abs(di) >= tol1i, xi + di, np.where(di > 0, xi + tol1i, xi - tol1i)
        )
        fu = ev(u, i)
        better = fu <= fxi
        # better: shrink towards x and shift (v, w, x) <- (w, x, u)
        a[i] = np.where(better, np.where(u < xi, ai, xi), np.where(u < xi, u, ai))
        b[i] = np.where(better, np.where(u < xi, xi, bi), np.where(u < xi, bi, u))
        c1 = ~better & ((fu <= fwi) | (wi == xi))
        c2 = ~better & ~c1 & ((fu <= fvi) | (vi == xi) | (vi == wi))
        v[i] = np.where(better | c1, wi, np.where(c2, u, vi))
        fv[i] = np.where(better | c1, fwi, np.where(c2, fu, fvi))
        w[i] = np.where(better, xi, np.where(c1, u, wi))
        fw[i] = np.where(better, fxi, np.where(c1, fu, fwi))
        x[i] = np.where(better, u, xi)
        fx[i] = np.where(better, fu, fxi)
        d[i], e[i] = di, ei
    return x
