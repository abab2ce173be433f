"""Bounds on lambda: those that keep every transformed value inside ``[-ymax, ymax]``, and
the user's ``bounds=(lo, hi)`` (checked by the gate, ``_validation.columns.check_bounds``;
the solver and the inference take them, ``solve.solve`` and ``inference.bounded_inference``).

The Box-Cox transform is increasing in lambda (Xu & Cormode 2025, Theorem 3.1), so
``|psi(lambda, x)| <= ymax`` for all data holds exactly on an interval of lambda whose ends solve
``psi(lambda, b) = +-ymax`` at the extreme bases. The solution is given by the Lambert W
function (Xu & Cormode 2025, eqs. 13-16 and Appendix C):

.. math::

    \\lambda = -\\frac{1}{y} - \\frac{W_k(z)}{\\log b}, \\qquad
    z = -c\\, e^{-c}, \\quad c = \\frac{\\log b}{y}.

``x**0 = 1 + 0*y`` makes ``lambda = 0`` a spurious solution, reached by the branch with
``W_k(z) = -c``; the other branch is the answer: ``k = -1`` when ``c < 1`` (the usual overflow
case, ``|lambda| >> 1``) and ``k = 0`` when ``c > 1``. W is evaluated by SciPy and then polished by
Newton's method on ``log(-w) + w = log c - c``, which stays accurate when ``z`` underflows.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import lambertw

from .._validation.columns import BoxCoxError, check_bounds, normalize_family

__all__ = ["boxcox_lambda_at", "lambda_bounds", "check_bounds", "FLOAT_MAX"]

FLOAT_MAX = float(np.finfo(np.float64).max)


def _w_branch(c: float) -> float:
    """The non-spurious real solution ``w`` of ``w e^w = -c e^{-c}`` (``w != -c``)."""
    if c == 1.0:
        return -1.0
    target = np.log(c) - c  # log(-z)
    if c < 1.0:  # spurious root on branch 0: take branch -1 (w < -1)
        z = -np.exp(target)
        w = float(lambertw(z, -1).real) if z < -1e-300 else target - np.log(-target)
    else:  # spurious root on branch -1: take branch 0 (-1 < w < 0)
        if target < -700.0:  # w = -e^target (1 + O(e^target)): below the smallest normal
            return -float(np.exp(target))
        w = float(lambertw(-np.exp(target), 0).real)
    if not np.isfinite(w) or w >= 0:
        w = target - np.log(-target) if c < 1.0 else -np.exp(target)
    for _ in range(50):  # Newton on g(w) = log(-w) + w - target, g'(w) = 1/w + 1
        step = (np.log(-w) + w - target) / (1.0 / w + 1.0)
        w_new = w - step
        if w_new >= 0:
            w_new = w / 2.0
        if abs(w_new - w) <= 4e-16 * abs(w):
            w = w_new
            break
        w = w_new
    return w


def boxcox_lambda_at(b: float, y: float) -> float:
    """The lambda at which the Box-Cox transform of ``b > 0`` equals ``y``.

    ``y`` must have the sign of ``log b`` (the transform of ``b > 1`` is positive for every
    lambda, of ``b < 1`` negative).

    Examples
    --------
    >>> from boxcoxstat.core.bounds import boxcox_lambda_at
    >>> lam = boxcox_lambda_at(10.0, 1e300)
    >>> round(lam, 6)
    302.480698
    >>> round(boxcox_lambda_at(0.5, -2.0), 6)
    -2.659861
    """
    return _lambda_at_log(float(np.log(b)), y)


def _lambda_at_log(logb: float, y: float) -> float:
    """:func:`boxcox_lambda_at` from ``log b`` (Yeo-Johnson passes ``log1p(|x|)``, which keeps
    data on a tiny scale, where ``1 + x`` rounds to 1)."""
    if logb == 0.0 or y == 0.0 or np.sign(logb) != np.sign(y):
        raise BoxCoxError("the transform of b has the sign of log(b); no lambda reaches y")
    with np.errstate(over="ignore", divide="ignore"):
        c = logb / y
        if not np.isfinite(c):  # y below ~1e-308 |log b|: lambda ~ -1/y is beyond float64
            return float(-np.sign(y) * np.inf)
        return float(-1.0 / y - _w_branch(c) / logb)


def lambda_bounds(
    x: ArrayLike, ymax: float, family: str = "boxcox"
) -> tuple[float, float]:
    """Interval of lambda on which every ``|psi(lambda, x_i)| <= ymax``.

    Parameters
    ----------
    x : array_like
        The data (finite; positive for Box-Cox).
    ymax : float
        Largest magnitude allowed for a transformed value (``> 0``).
    family : {"boxcox", "yeojohnson"}

    Returns
    -------
    (lower, upper) : tuple of float
        ``-inf`` / ``inf`` where the data impose no bound on that side.

    Raises
    ------
    BoxCoxError
        If no lambda satisfies both bounds (``ymax`` too small for the data's spread).

    Examples
    --------
    >>> from boxcoxstat.core.bounds import lambda_bounds
    >>> lo, hi = lambda_bounds([0.1, 0.1, 0.1, 0.101], 1e300)
    >>> round(lo, 3), hi
    (-302.481, inf)
    """
    if family not in ("boxcox", "yeojohnson"):  # the gate's names pass as they are
        family = normalize_family(family, allow_auto=False)
    if isinstance(ymax, (bool, np.bool_)) or not isinstance(
            ymax, (int, float, np.integer, np.floating)) or not (np.isfinite(ymax) and ymax > 0):
        raise BoxCoxError(f"ymax must be a positive finite number, got {ymax!r}")
    x = np.asarray(x, dtype=np.float64)
    xmin, xmax = float(np.min(x)), float(np.max(x))
    lo, hi = -np.inf, np.inf
    if family == "boxcox":
        if xmax > 1.0:
            hi = boxcox_lambda_at(xmax, ymax)
        if xmin < 1.0:
            lo = boxcox_lambda_at(xmin, -ymax)
    else:
        if xmax > 0.0:
            hi = _lambda_at_log(float(np.log1p(xmax)), ymax)
        if xmin < 0.0:
            lo = 2.0 - _lambda_at_log(float(np.log1p(-xmin)), ymax)
    if not lo <= hi or lo == np.inf or hi == -np.inf:  # NaN or no representable lambda
        raise BoxCoxError(
            f"no lambda keeps every transformed value within +-{ymax:g} for data from "
            f"{xmin:g} to {xmax:g} (it would need lambda >= {lo:.6g} and <= {hi:.6g}); "
            "use a larger ymax"
        )
    return float(lo), float(hi)
