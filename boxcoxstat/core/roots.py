"""Roots of increasing functions, many at once: bracketing by doubling and Chandrupatla's method.

:func:`bracket_increasing` and :func:`find_root` work on every column together (one
call of ``f`` per step for all columns not yet done); the solver (``solve.py``), the interval
ends (``inference.py``), bcnPower's shift, Guerrero's criterion and prediction intervals use
them.

References
----------
Chandrupatla, T. R. (1997). A new hybrid quadratic/bisection algorithm for finding the zero of
a nonlinear function without using derivatives. Advances in Engineering Software 28, 145-149.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

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
    limit: ArrayLike = 1e18,
    max_iter: int = 1000,
    plateau: bool = False,
) -> tuple[NDArray, NDArray, NDArray, NDArray, NDArray[np.bool_], NDArray[np.int64]]:
    """Expand ``[lo, hi]`` geometrically until an increasing ``f`` changes sign in it.

    While ``f(hi) < 0`` the interval moves right and doubles its width; while ``f(lo) > 0`` it
    moves left likewise. Stops when ``|x|`` would exceed ``limit`` (the flag is then False);
    with ``plateau``, also when a move leaves ``f`` exactly unchanged (a function that has
    reached a constant limit, as a profile likelihood with its nuisance parameter at
    infinity does, never changes sign).
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
    need_lo, need_hi = np.flatnonzero(np.isnan(flo)), np.flatnonzero(np.isnan(fhi))
    if need_lo.size + need_hi.size:  # both ends in one evaluation (one round)
        fx = f(np.r_[lo[need_lo], hi[need_hi]], np.r_[need_lo, need_hi])
        flo[need_lo], fhi[need_hi] = fx[: need_lo.size], fx[need_lo.size :]
        nfev[np.union1d(need_lo, need_hi)] += 1
    ok = np.ones(p, dtype=bool)
    lim = np.broadcast_to(np.asarray(limit, dtype=np.float64), (p,))
    for _ in range(max_iter):
        right = fhi < 0
        left = (flo > 0) & ~right
        todo = np.flatnonzero((right | left) & ok)
        if todo.size == 0:
            break
        width = hi[todo] - lo[todo]
        r = right[todo]
        new = np.where(r, hi[todo] + 2.0 * width, lo[todo] - 2.0 * width)
        too_far = ~(np.abs(new) <= lim[todo])
        ok[todo[too_far]] = False
        keep = ~too_far
        todo, new, r = todo[keep], new[keep], r[keep]
        if todo.size == 0:
            break
        fn = f(new, todo)
        nfev[todo] += 1
        if plateau:
            ok[todo[fn == np.where(r, fhi[todo], flo[todo])]] = False
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
    predict: bool = False,
    c: NDArray[np.float64] | None = None,
    fc: NDArray[np.float64] | None = None,
) -> RootResult:
    """Chandrupatla's bracketing root finder, vectorised over columns.

    ``f(a)`` and ``f(b)`` must not have the same strict sign. The first step is a secant step
    (inverse quadratic interpolation where a third point ``c``, ``f(c)`` outside the bracket
    is given and that is safe); later steps use inverse quadratic interpolation when it is
    safe, else bisection. A column stops when its bracket is below ``2 (xrtol |x| + xatol)``
    or ``f`` is exactly 0. With ``predict=True`` a column also stops when two interpolation
    steps in a row shrink fast enough that the next iterate's predicted error, ``|step|^2 /
    |previous step|``, is below half the tolerance; that iterate is returned unevaluated
    (``fx`` NaN there), which saves the evaluations that would only close the far side of the
    bracket.
    """
    x1 = np.array(b, dtype=np.float64)
    f1 = np.array(fb, dtype=np.float64)
    x2 = np.array(a, dtype=np.float64)
    f2 = np.array(fa, dtype=np.float64)
    p = x1.shape[0]
    nfev = np.zeros(p, dtype=np.int64)
    if c is not None and fc is not None:  # x1 the end on the third point's side, as after
        x3, f3 = np.array(c, dtype=np.float64), np.array(fc, dtype=np.float64)  # a step
        swap = np.sign(f2) == np.sign(f3)
        x1, x2 = np.where(swap, x2, x1), np.where(swap, x1, x2)
        f1, f2 = np.where(swap, f2, f1), np.where(swap, f1, f2)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.clip(f1 / (f1 - f2), 0.0, 1.0)
    t = np.where(np.isfinite(t), t, 0.5)
    if c is None or fc is None:
        x3, f3 = x2.copy(), f2.copy()
        used_iqi = np.zeros(p, dtype=bool)
    else:  # the first step may interpolate (and then counts as such for predict)
        tq, used_iqi = _iqi(x1, f1, x2, f2, x3, f3)
        t = np.where(used_iqi, tq, t)
    done = (f1 == 0) | (f2 == 0)
    xout = np.full(p, np.nan)
    for _ in range(max_iter):
        xm = np.where(np.abs(f1) < np.abs(f2), x1, x2)
        tol = 2.0 * (xrtol * np.abs(xm) + xatol)
        with np.errstate(divide="ignore", invalid="ignore"):
            tl = tol / np.abs(x2 - x1)
        done |= (tl > 0.5) | (f1 == 0) | (f2 == 0)
        act = np.flatnonzero(~done)
        if act.size == 0:
            break
        # the active columns' state, gathered once (scattered back at the end of the step)
        a1, b1, a2, b2, ta, tla = x1[act], f1[act], x2[act], f2[act], t[act], tl[act]
        tt = np.clip(ta, tla, 1.0 - tla)
        xt = a1 + tt * (a2 - a1)
        ft = f(xt, act)
        nfev[act] += 1
        same = np.sign(ft) == np.sign(b1)
        # same sign as f1: x3 <- x1 ; else x3 <- x2, x2 <- x1 ; then x1 <- xt
        a3, b3 = np.where(same, a1, a2), np.where(same, b1, b2)
        a2, b2 = np.where(same, a2, a1), np.where(same, b2, b1)
        xprev = a1
        a1, b1 = xt, ft
        tq, good = _iqi(a1, b1, a2, b2, a3, b3)
        ta = np.where(good, tq, 0.5)
        x1[act], f1[act], x2[act], f2[act], x3[act], f3[act], t[act] = a1, b1, a2, b2, a3, b3, ta
        if predict:
            lo_, hi_ = np.minimum(a1, a2), np.maximum(a1, a2)
            nxt = a1 + ta * (a2 - a1)
            step, prev = np.abs(nxt - a1), np.abs(a1 - xprev)
            tol_a = xrtol * np.abs(nxt) + xatol
            ok = (good & used_iqi[act] & (step < 0.5 * prev) & (nxt > lo_) & (nxt < hi_)
                  & (step * step <= 0.5 * tol_a * prev))
            hit = act[ok]
            xout[hit] = nxt[ok]
            done[hit] = True
            used_iqi[act] = good
    xm = np.where(np.abs(f1) < np.abs(f2), x1, x2)
    fm = np.where(np.abs(f1) < np.abs(f2), f1, f2)
    pred = np.isfinite(xout)
    return RootResult(np.where(pred, xout, xm), np.where(pred, np.nan, fm), done, nfev)


def _iqi(a1: NDArray, b1: NDArray, a2: NDArray, b2: NDArray, a3: NDArray, b3: NDArray
         ) -> tuple[NDArray, NDArray[np.bool_]]:
    """Chandrupatla's (1997) inverse quadratic interpolation through ``(a_i, b_i = f(a_i))``:
    the next point's fraction ``t`` of the way from ``a1`` to ``a2``, and whether the step is
    safe (his test on the three points; ``t`` finite)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        xi = (a1 - a2) / (a3 - a2)
        ph = (b1 - b2) / (b3 - b2)
        iqi = (ph * ph < xi) & ((1.0 - ph) ** 2 < 1.0 - xi)
        tq = (b1 / (b2 - b1) * b3 / (b2 - b3)
              + (a3 - a1) / (a2 - a1) * b1 / (b3 - b1) * b2 / (b3 - b2))
    return tq, iqi & np.isfinite(tq)
