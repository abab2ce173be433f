"""Batched bracketing and root finding: many columns advance together.

Layer 3. The functions here never loop over columns: each step evaluates the objective once,
for every column that has not yet converged, through a callback ``f(x, idx)`` that returns the
values at ``x`` for the columns ``idx``.

References
----------
Chandrupatla, T. R. (1997). A new hybrid quadratic/bisection algorithm for finding the zero of
a nonlinear function without using derivatives. Advances in Engineering Software 28, 145-149.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = ["RootResult", "bracket_increasing", "find_root"]

Func = Callable[[NDArray[np.float64], NDArray[np.intp]], NDArray[np.float64]]


@dataclass(frozen=True)
class RootResult:
    """Roots found column by column.

    ``x`` roots, ``fx`` function values there, ``converged`` flags, ``nfev`` evaluations per
    column.
    """

    x: NDArray[np.float64]
    fx: NDArray[np.float64]
    converged: NDArray[np.bool_]
    nfev: NDArray[np.int64]


def bracket_increasing(
    f: Func,
    lo: NDArray[np.float64],
    hi: NDArray[np.float64],
    *,
    flo: NDArray[np.float64] | None = None,
    fhi: NDArray[np.float64] | None = None,
    limit: float = 1e18,
    max_iter: int = 200,
) -> tuple[NDArray, NDArray, NDArray, NDArray, NDArray[np.bool_], NDArray[np.int64]]:
    """Expand ``[lo, hi]`` geometrically until an increasing ``f`` changes sign in it.

    While ``f(hi) < 0`` the interval moves right and doubles its width; while ``f(lo) > 0`` it
    moves left likewise. Stops when ``|x|`` would exceed ``limit`` (the flag is then False).
    Known end values may be passed in ``flo``/``fhi``; NaN entries are evaluated.

    Returns
    -------
    lo, hi, flo, fhi, ok, nfev
    """
    lo = np.array(lo, dtype=np.float64)
    hi = np.array(hi, dtype=np.float64)
    p = lo.shape[0]
    nfev = np.zeros(p, dtype=np.int64)
    flo = np.full(p, np.nan) if flo is None else np.array(flo, dtype=np.float64)
    fhi = np.full(p, np.nan) if fhi is None else np.array(fhi, dtype=np.float64)
    for x, fx in ((lo, flo), (hi, fhi)):
        need = np.flatnonzero(np.isnan(fx))
        if need.size:
            fx[need] = f(x[need], need)
            nfev[need] += 1
    ok = np.ones(p, dtype=bool)
    for _ in range(max_iter):
        right = fhi < 0
        left = (flo > 0) & ~right
        todo = np.flatnonzero((right | left) & ok)
        if todo.size == 0:
            break
        width = hi[todo] - lo[todo]
        r = right[todo]
        new = np.where(r, hi[todo] + 2.0 * width, lo[todo] - 2.0 * width)
        too_far = np.abs(new) > limit
        ok[todo[too_far]] = False
        keep = ~too_far
        todo, new, r = todo[keep], new[keep], r[keep]
        if todo.size == 0:
            break
        fn = f(new, todo)
        nfev[todo] += 1
        ri, li = todo[r], todo[~r]
        lo[ri], flo[ri] = hi[ri], fhi[ri]
        hi[ri], fhi[ri] = new[r], fn[r]
        hi[li], fhi[li] = lo[li], flo[li]
        lo[li], flo[li] = new[~r], fn[~r]
    ok &= ~((fhi < 0) | (flo > 0))
    return lo, hi, flo, fhi, ok, nfev


def find_root(
    f: Func,
    a: NDArray[np.float64],
    b: NDArray[np.float64],
    fa: NDArray[np.float64],
    fb: NDArray[np.float64],
    *,
    xatol: float = 1e-14,
    xrtol: float = 4 * np.finfo(float).eps,
    max_iter: int = 200,
) -> RootResult:
    """Chandrupatla's bracketing root finder, vectorised over columns.

    ``f(a)`` and ``f(b)`` must not have the same strict sign. The first step is a secant step;
    later steps use inverse quadratic interpolation when it is safe, else bisection. A column
    stops when its bracket is below ``2 (xrtol |x| + xatol)`` or ``f`` is exactly 0.
    """
    x1 = np.array(b, dtype=np.float64)
    f1 = np.array(fb, dtype=np.float64)
    x2 = np.array(a, dtype=np.float64)
    f2 = np.array(fa, dtype=np.float64)
    p = x1.shape[0]
    x3, f3 = x2.copy(), f2.copy()
    nfev = np.zeros(p, dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.clip(f1 / (f1 - f2), 0.0, 1.0)
    t = np.where(np.isfinite(t), t, 0.5)
    done = (f1 == 0) | (f2 == 0)
    for _ in range(max_iter):
        xm = np.where(np.abs(f1) < np.abs(f2), x1, x2)
        tol = 2.0 * (xrtol * np.abs(xm) + xatol)
        with np.errstate(divide="ignore", invalid="ignore"):
            tl = tol / np.abs(x2 - x1)
        done |= (tl > 0.5) | (f1 == 0) | (f2 == 0)
        act = np.flatnonzero(~done)
        if act.size == 0:
            break
        tt = np.clip(t[act], tl[act], 1.0 - tl[act])
        xt = x1[act] + tt * (x2[act] - x1[act])
        ft = f(xt, act)
        nfev[act] += 1
        same = np.sign(ft) == np.sign(f1[act])
        # same sign as f1: x3 <- x1 ; else x3 <- x2, x2 <- x1 ; then x1 <- xt
        n3x = np.where(same, x1[act], x2[act])
        n3f = np.where(same, f1[act], f2[act])
        x2[act] = np.where(same, x2[act], x1[act])
        f2[act] = np.where(same, f2[act], f1[act])
        x3[act], f3[act] = n3x, n3f
        x1[act], f1[act] = xt, ft
        with np.errstate(divide="ignore", invalid="ignore"):
            xi = (x1[act] - x2[act]) / (x3[act] - x2[act])
            ph = (f1[act] - f2[act]) / (f3[act] - f2[act])
            iqi = (ph * ph < xi) & ((1.0 - ph) ** 2 < 1.0 - xi)
            tq = (f1[act] / (f2[act] - f1[act]) * f3[act] / (f2[act] - f3[act])
                  + (x3[act] - x1[act]) / (x2[act] - x1[act])
                  * f1[act] / (f3[act] - f1[act]) * f2[act] / (f3[act] - f2[act]))
        t[act] = np.where(iqi & np.isfinite(tq), tq, 0.5)
    xm = np.where(np.abs(f1) < np.abs(f2), x1, x2)
    fm = np.where(np.abs(f1) < np.abs(f2), f1, f2)
    return RootResult(xm, fm, done, nfev)
