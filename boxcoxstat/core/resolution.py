"""Whether a power keeps the data's resolution in float64, and the safe power.

Pure NumPy on top of ``families``. The exact maximum-likelihood
power can map distinct values to one float: on tightly clustered data (values agreeing to
many digits) the likelihood is maximised at ``|lambda|`` of hundreds to billions, where
``x**lambda`` is negligible against 1 (or beyond float64) and ``psi(lambda, x)`` collapses to
``-1/lambda`` (scikit-learn #29595, #23319; SciPy #19016). This module says when that happens
and which power to use instead.

The measure
-----------
A transformed value ``y = psi(lambda, x)`` is stored with a relative rounding error of about
``eps``; mapped back, that error is multiplied by the condition number of the inverse
transform (Higham 2002), measured relative to ``x``:

.. math:: g(x, \\lambda) = \\frac{|1 - x^{-\\lambda}|}{|\\lambda|}
          \\quad\\text{(Box-Cox)},

computed as ``|log x| exprel(-lambda log x)`` (``b = x``), and for Yeo-Johnson
``exprel(-kappa u) / exprel(-u)`` with ``u = log(1 + |x|)`` (``kappa = lambda``
for ``x >= 0``, ``2 - lambda`` below). Computing the transform and its inverse adds errors of
about ``eps log b``, so the round trip ``inverse(transform(x))`` is off by at most

.. math:: B(x, \\lambda) = 2\\,\\varepsilon\\,(g + |\\log b| + 1)

relative (the factor 2 covers the measured worst case, 1.9, over random data and powers;
``tests/core/test_resolution.py`` checks it). ``g`` and ``|log b|`` are monotone in ``x`` on
each side of the transform's fixed point, so the largest ``B`` of a column is at its smallest
or largest value: the check needs the column's extremes only (no sort, no pass over the data
beyond its minimum and maximum). If ``B <= 1e-8`` at every value, two values can share an
output only when they agree to within ``2e-8`` relative (each maps back to the common output's
inverse within ``1e-8``), so the round-trip bound also rules out collapsed values at the
precision the check works to.

A power *loses the data's resolution* when ``B > 1e-8`` at an extreme or the transformed
values overflow float64. The exact facts for a message (how many distinct values share an
output, the measured round-trip error) are computed on the sorted distinct values, only then.

The safe power
--------------
Every condition ``B(x_e, lambda) <= tol`` and ``|psi(lambda, x_e)| <= ymax`` at an extreme
``x_e`` holds on a half-line of lambda (``g`` and ``|psi|`` are monotone in lambda), so the
powers that satisfy them all form an interval ``[a, b]``. The safe power is the power used by
the fit when that keeps the resolution; otherwise the point of ``[a, b]`` with the highest
likelihood, which (the profile likelihood being unimodal) is the end nearest the estimate,
rounded towards the inside to three significant digits. It is chosen with a margin: round
trip within ``1e-10`` (100 times inside the warning's ``1e-8``), or within a quarter of the
closest pair's relative gap where the data hold values closer than ``4e-10`` (then no two
distinct values share an output), and transformed values within ``1e100``
(``PowerTransformer``'s default ``ymax``). Finding the closest pair takes a sort, done only
for columns whose power loses the resolution.

Maximising the margin itself (the ulp gap of adjacent outputs) was considered and rejected:
that gap grows without bound as lambda runs to the end of the interval where ``x**lambda``
spreads the data (lambda = 463 on scikit-learn #29595's data, with outputs near 1e307), so it
rewards the most extreme power rather than the most likely one.

References
----------
Xu, X. and Cormode, G. (2025). Power transform revisited: numerically stable, and federated.
(Adversarial data whose exact optimum is at huge ``|lambda|``.)
Higham, N. J. (2002). Accuracy and Stability of Numerical Algorithms, 2nd ed. (condition
numbers of a function and of its inverse).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import families as fam
from .._validation.columns import LAMBDA_MAX, normalize_family

__all__ = ["data_range", "ROUND_TRIP_RTOL", "SAFE_RTOL", "SAFE_YMAX", "round_trip_bound",
           "loses_resolution", "safe_interval", "min_relative_gap", "safe_powers", "Loss",
           "measure_loss", "loss_message", "loss_messages", "range_messages"]

EPS = float(np.finfo(np.float64).eps)
ROUND_TRIP_RTOL = 1e-8  # a power that may be off by more in a round trip loses the resolution
SAFE_RTOL = 1e-10  # the safe power's round-trip target (100 times inside the warning's)
SAFE_YMAX = 1e100  # and its bound on transformed values (PowerTransformer's default ymax)
BOUND_FACTOR = 2.0  # B = 2 eps (g + |log b| + 1): the measured round trip stays below it
_LOG_FLOAT_MAX = float(np.log(np.finfo(np.float64).max))
_BISECTIONS = 64  # in asinh(lambda): 2 * asinh(1e150) / 2**64 is below 4e-17


def _logs(x: NDArray[np.float64], lmbda: NDArray[np.float64], yj: NDArray[np.bool_]
          ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``log B(x, lambda)`` and ``log |psi(lambda, x)|`` (broadcast), finite or +-inf, never
    overflowing (everything in the log domain).

    With ``a = lambda log x`` (Box-Cox) or ``kappa u`` (Yeo-Johnson) and ``s = |a|``, both
    ``log exprel(a)`` and ``log exprel(-a)`` are ``max(+-a, 0) + log(-expm1(-s)) - log s``:
    one ``expm1`` serves the transform's size and the inverse's condition number (a few
    operations per value: the check runs on every fit and every ``transform``).
    """
    x, lmbda, yj = np.broadcast_arrays(np.asarray(x, dtype=np.float64),
                                       np.asarray(lmbda, dtype=np.float64), yj)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        c = np.log(np.where(yj, 1.0, x))  # Box-Cox: log x (0 where Yeo-Johnson)
        u = np.log1p(np.abs(np.where(yj, x, 0.0)))  # Yeo-Johnson: log(1 + |x|)
        a = np.where(yj, np.where(x >= 0, lmbda, 2.0 - lmbda) * u, lmbda * c)
        size = np.where(yj, u, np.abs(c))  # |log b|
        s = np.abs(a)
        tail = np.where(s == 0, 0.0, np.log(-np.expm1(-s)) - np.log(s))  # log exprel(-s)
        log_size = np.log(size)
        log_psi = log_size + np.maximum(a, 0.0) + tail
        # Yeo-Johnson: exprel(-kappa u) / exprel(-u), with log exprel(-u) = log(-expm1(-u))
        # - log u; Box-Cox: |log x| exprel(-lambda log x)
        log_g = log_size + np.maximum(-a, 0.0) + tail - np.where(
            yj, np.log(-np.expm1(-u)), 0.0)
        log_g = np.where(size == 0, np.where(yj, 0.0, -np.inf), log_g)
        log_bound = np.log(BOUND_FACTOR * EPS) + np.logaddexp(log_g, np.log1p(size))
    return log_bound, log_psi


def round_trip_bound(x: ArrayLike, lmbda: ArrayLike, family: str) -> NDArray[np.float64]:
    """Bound on the relative error of ``inverse_transform(transform(x))`` at ``lmbda``.

    ``2 eps (g + |log b| + 1)`` (see the module docstring); ``inf`` where the transformed
    value overflows float64 (no round trip exists).

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.core.resolution import round_trip_bound
    >>> b = round_trip_bound([4.6, 4.62], -143.0, "boxcox")  # scikit-learn #29595's power
    >>> bool(np.all(b > 1e60))  # x**143 / 143 ulps: nothing of x is left
    True
    >>> bool(round_trip_bound(4.6, 0.0, "boxcox") < 1e-14)  # the log keeps 14 digits and more
    True
    """
    yj = np.asarray(normalize_family(family, allow_auto=False) == "yeojohnson")
    log_bound, log_psi = _logs(np.asarray(x, dtype=np.float64), np.asarray(lmbda), yj)
    with np.errstate(over="ignore"):
        return np.where(log_psi > _LOG_FLOAT_MAX, np.inf, np.exp(log_bound))


def data_range(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Smallest and largest value of each column of ``x`` (n, p), missing values (NaN)
    skipped (NaN for a column without values): shape (p, 2). One pass, no copy.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.core.resolution import data_range
    >>> data_range(np.array([[1.0, np.nan], [3.0, 2.0]]))
    array([[1., 3.],
           [2., 2.]])
    """
    out = np.full((x.shape[1], 2), np.nan)
    if x.shape[0]:
        # numpy's min / max are vectorised; NaN-skipping fmin / fmax only where a NaN showed
        np.min(x, axis=0, out=out[:, 0])
        np.max(x, axis=0, out=out[:, 1])
        gaps = np.flatnonzero(np.isnan(out[:, 0]))
        if gaps.size:
            with np.errstate(invalid="ignore"):
                out[gaps, 0] = np.fmin.reduce(x[:, gaps], axis=0)
                out[gaps, 1] = np.fmax.reduce(x[:, gaps], axis=0)
    return out


def _extremes(lo: ArrayLike, hi: ArrayLike) -> NDArray[np.float64]:
    return np.stack([np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)])


def loses_resolution(lo: ArrayLike, hi: ArrayLike, lmbda: ArrayLike,
                     families: tuple[str, ...] | list[str]) -> NDArray[np.bool_]:
    """Per column: does ``lmbda`` lose the resolution of data spanning ``[lo, hi]``?

    True where the round trip may be off by more than ``ROUND_TRIP_RTOL`` (1e-8) relative
    at some value, or the transformed values overflow float64 (see the module docstring;
    the extremes decide both). Costs a few operations per column.

    Examples
    --------
    >>> from boxcoxstat.core.resolution import loses_resolution
    >>> loses_resolution([4.6, 4.6], [4.62, 4.62], [-143.0, 1.0], ("boxcox", "boxcox"))
    array([ True, False])
    """
    lam = np.asarray(lmbda, dtype=np.float64).reshape(-1)
    if lam.size <= _FEW:  # a few columns: the same formulas on Python floats, 10x faster
        return np.array([_loses_one(float(a), float(b), float(m), f == "yeojohnson")
                         for a, b, m, f in zip(np.asarray(lo, dtype=np.float64).reshape(-1),
                                               np.asarray(hi, dtype=np.float64).reshape(-1),
                                               lam, families, strict=True)], dtype=bool)
    ext = _extremes(lo, hi)
    yj = np.array([f == "yeojohnson" for f in families])
    log_bound, log_psi = _logs(ext, lam, yj)
    lost = (log_bound > _LOG_RTOL) | (log_psi > _LOG_FLOAT_MAX)
    return np.asarray(lost.any(axis=0) & np.isfinite(ext).all(axis=0))


_FEW = 4  # up to this many columns loses_resolution works on Python floats
_LOG_RTOL = math.log(ROUND_TRIP_RTOL)
_LOG_2EPS = math.log(BOUND_FACTOR * EPS)


def _loses_one(lo: float, hi: float, lmbda: float, yj: bool) -> bool:
    """:func:`loses_resolution` of one column, by :func:`_logs`' formulas on floats."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return False
    for x in (lo, hi):
        if yj:
            u = math.log1p(abs(x))
            size, a = u, (lmbda if x >= 0 else 2.0 - lmbda) * u
        else:
            c = math.log(x)
            size, a = abs(c), lmbda * c
        if size == 0:
            continue  # the fixed point: transformed to 0 and back exactly
        s = abs(a)
        tail = 0.0 if s == 0 else math.log(-math.expm1(-s)) - math.log(s)
        log_size = math.log(size)
        if log_size + max(a, 0.0) + tail > _LOG_FLOAT_MAX:
            return True
        log_g = log_size + max(-a, 0.0) + tail - (math.log(-math.expm1(-u)) if yj else 0.0)
        big, small = max(log_g, math.log1p(size)), min(log_g, math.log1p(size))
        if _LOG_2EPS + big + math.log1p(math.exp(small - big)) > _LOG_RTOL:
            return True
    return False


def _unsafe_excess(x: NDArray, lmbda: NDArray, yj: NDArray, kind: NDArray,
                   log_limit: NDArray) -> NDArray[np.float64]:
    """How far each constraint is violated at ``lmbda`` (<= 0: satisfied): kind 0 is the
    round trip (``log B - log rtol``), kind 1 the size (``log |psi| - log ymax``), with
    ``log_limit`` holding ``log rtol`` or ``log ymax``."""
    log_bound, log_psi = _logs(x, lmbda, yj)
    with np.errstate(invalid="ignore"):
        return np.where(kind == 0, log_bound, log_psi) - log_limit


def min_relative_gap(values: ArrayLike) -> float:
    """The smallest relative gap ``(u[i+1] - u[i]) / max(|u[i]|, |u[i+1]|)`` between adjacent
    distinct finite values (``inf`` for fewer than two): a sort, for the safe power only.

    Examples
    --------
    >>> from boxcoxstat.core.resolution import min_relative_gap
    >>> min_relative_gap([4.61, 4.60, 4.60, 4.62, 4.61]) == (4.62 - 4.61) / 4.62
    True
    """
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    u = np.unique(v[np.isfinite(v)])
    if u.size < 2:
        return float("inf")
    return float(np.min(np.diff(u) / np.maximum(np.abs(u[:-1]), np.abs(u[1:]))))


def safe_interval(lo: ArrayLike, hi: ArrayLike, families: tuple[str, ...] | list[str],
                  ymax: float | None = None, rtol: ArrayLike | None = None
                  ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The powers that keep data spanning ``[lo, hi]`` safely resolved, per column.

    ``[a, b]`` where every transformed value is within ``min(ymax, 1e100)`` in magnitude and
    the round trip within ``rtol`` relative (per column; default ``SAFE_RTOL``, 1e-10); NaN
    for a column where no power does (Yeo-Johnson data of both signs beyond about 1e50 in
    magnitude). Each condition at each extreme is a half-line of lambda whose end is found
    by bisection in ``asinh(lambda)`` (all columns and conditions at once); lambda is
    searched within ``+-1e150``.

    Examples
    --------
    >>> from boxcoxstat.core.resolution import safe_interval
    >>> a, b = safe_interval([4.6], [4.62], ("boxcox",))
    >>> round(float(a[0]), 2), round(float(b[0]), 2)  # round trip 1e-10; |psi| 1e100
    (-9.53, 153.75)
    """
    ext = _extremes(lo, hi)  # (2, p)
    p = ext.shape[1]
    cap = SAFE_YMAX if ymax is None else min(float(ymax), SAFE_YMAX)
    # constraints: (extreme, kind) for every column -> flat arrays of length 4p
    x = np.tile(ext.reshape(-1), 2)
    col = np.tile(np.arange(p), 4)
    kind = np.repeat([0, 1], 2 * p)
    yj = np.array([f == "yeojohnson" for f in families])[col]
    tol = np.broadcast_to(SAFE_RTOL if rtol is None else np.asarray(rtol, dtype=np.float64),
                          (p,))
    log_limit = np.where(kind == 0, np.log(tol)[col], np.log(cap))
    t_end = np.arcsinh(LAMBDA_MAX)
    ok_lo = _unsafe_excess(x, np.full(x.shape, -LAMBDA_MAX), yj, kind, log_limit) <= 0
    ok_hi = _unsafe_excess(x, np.full(x.shape, LAMBDA_MAX), yj, kind, log_limit) <= 0
    # bisection where exactly one end is satisfied; ``good`` keeps the satisfied end
    good = np.where(ok_lo, -t_end, t_end)
    bad = -good
    cross = ok_lo != ok_hi
    for _ in range(_BISECTIONS):
        if not cross.any():
            break
        mid = 0.5 * (good + bad)
        ok = _unsafe_excess(x, np.sinh(mid), yj, kind, log_limit) <= 0
        good = np.where(cross & ok, mid, good)
        bad = np.where(cross & ~ok, mid, bad)
    end = np.sinh(good)
    lower = np.where(cross & ok_hi, end, -np.inf)  # satisfied above the end
    upper = np.where(cross & ok_lo, end, np.inf)  # satisfied below it
    never = ~ok_lo & ~ok_hi
    a = np.full(p, -np.inf)
    b = np.full(p, np.inf)
    np.maximum.at(a, col, lower)
    np.minimum.at(b, col, upper)
    empty = np.zeros(p, dtype=bool)
    np.logical_or.at(empty, col, never | ~np.isfinite(x))
    empty |= a > b
    a[empty], b[empty] = np.nan, np.nan
    return np.maximum(a, -LAMBDA_MAX), np.minimum(b, LAMBDA_MAX)


def _round_inward(value: float, up: bool) -> float:
    """``value`` rounded to three significant digits, up or down."""
    if value == 0 or not np.isfinite(value):
        return value
    q = 10.0 ** (np.floor(np.log10(abs(value))) - 2)
    r = (np.ceil(value / q) if up else np.floor(value / q)) * q
    return float(f"{r:.3g}")


def safe_powers(lmbda: ArrayLike, lo: ArrayLike, hi: ArrayLike,
                families: tuple[str, ...] | list[str], ymax: float | None = None,
                lost: NDArray[np.bool_] | None = None, gaps: ArrayLike | None = None
                ) -> NDArray[np.float64]:
    """The safe power of each column: ``lmbda`` where it keeps the resolution of data
    spanning ``[lo, hi]`` (:func:`loses_resolution` is False), else the end of
    :func:`safe_interval` nearest ``lmbda`` (the most likely safe power, the profile
    likelihood being unimodal), rounded inwards to three significant digits; NaN where no
    power is safe. ``lost``: :func:`loses_resolution` of ``lmbda``, if the caller has it.
    ``gaps``: each column's :func:`min_relative_gap`; the round trip is then held within a
    quarter of it where that is below ``SAFE_RTOL``, so that no two distinct values share
    an output (two values sharing one agree to twice the round trip's tolerance).

    Examples
    --------
    >>> from boxcoxstat.core.resolution import safe_powers
    >>> safe_powers([-143.0, 0.5], [4.6, 1.0], [4.62, 9.0], ("boxcox", "boxcox"))
    array([-9.52,  0.5 ])
    """
    lam = np.array(lmbda, dtype=np.float64).reshape(-1)
    if lost is None:
        lost = loses_resolution(lo, hi, lam, families)
    out = lam.copy()
    if not lost.any():
        return out
    idx = np.flatnonzero(lost)
    fams = [families[j] for j in idx]
    lo_i, hi_i = np.asarray(lo, dtype=np.float64)[idx], np.asarray(hi, dtype=np.float64)[idx]
    rtol = np.full(idx.size, SAFE_RTOL)
    if gaps is not None:
        g = np.asarray(gaps, dtype=np.float64).reshape(-1)[idx]
        rtol = np.where(np.isfinite(g) & (g > 0), np.minimum(rtol, 0.25 * g), rtol)
    a, b = safe_interval(lo_i, hi_i, fams, ymax, rtol)
    for k, j in enumerate(idx.tolist()):
        if np.isnan(a[k]):
            out[j] = np.nan
            continue
        end = float(np.clip(lam[j], a[k], b[k]))
        nice = _round_inward(end, up=end == a[k] and end != b[k])
        # every condition holds on a half-line, so all of [a, b] is safe: the rounded power
        # is, unless a narrow interval excludes it
        out[j] = nice if a[k] <= nice <= b[k] else end
    return out


@dataclass(frozen=True)
class Loss:
    """What a power does to a column's values, measured exactly on its distinct values.

    Attributes
    ----------
    n_distinct : int
        Distinct finite values of the column.
    n_outputs : int
        Distinct transformed values among them (finite ones).
    n_shared : int
        Distinct values whose output is not above the output of the next smaller value
        (equal to it, or out of order by rounding): the values the transform cannot tell
        from their neighbour.
    max_error : float
        Largest relative error of ``inverse(transform(x))`` over the values (``inf`` where a
        value has no round trip: an overflow, or an output outside the inverse's domain).
    n_overflow : int
        Values whose transformed value overflows float64.
    digits : float
        Significant digits the values agree to, ``-log10((hi - lo) / max |x|)``.
    """

    n_distinct: int
    n_outputs: int
    n_shared: int
    max_error: float
    n_overflow: int
    digits: float


def measure_loss(values: ArrayLike, lmbda: float, family: str) -> Loss:
    """Measure exactly what ``lmbda`` does to the finite ``values`` (a sort and one transform
    and inverse of the distinct values: for messages, not for every call).

    Examples
    --------
    >>> from boxcoxstat.core.resolution import measure_loss
    >>> loss = measure_loss([4.61, 4.60, 4.60, 4.62, 4.61], -143.0, "boxcox")
    >>> loss.n_distinct, loss.max_error > 0.1
    (3, True)
    """
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    u = np.unique(v[np.isfinite(v)])
    with np.errstate(all="ignore"):
        y = fam.forward_unchecked(u, lmbda, family)
        back = fam.inverse_unchecked(y, lmbda, family)
        scale = np.abs(u)
        err = np.divide(np.abs(back - u), scale, out=np.abs(back - u), where=scale > 0)
    err = np.where(np.isfinite(y) & np.isfinite(err), err, np.inf)
    fin = np.isfinite(y)
    shared = int(np.count_nonzero(~(y[1:] > y[:-1]))) if u.size > 1 else 0
    top = float(np.max(np.abs(u))) if u.size else 0.0
    spread = (float(u[-1] - u[0]) / top) if u.size > 1 and top > 0 else 1.0
    digits = float(-np.log10(spread)) if spread > 0 else float("inf")
    return Loss(n_distinct=int(u.size), n_outputs=int(np.unique(y[fin]).size),
                n_shared=shared, max_error=float(err.max()) if err.size else 0.0,
                n_overflow=int(np.count_nonzero(~fin)), digits=digits)


def loss_message(name: str, lmbda: float, family: str, values: ArrayLike,
                 remedy: str, what: str = "column") -> str:
    """The warning for a ``what`` (column, response) ``name`` whose values ``lmbda`` does not
    resolve: the measured facts, then what to do (``remedy``, in the caller's terms, then
    the data's units or an offset where the values agree to 3 or more digits)."""
    loss = measure_loss(values, lmbda, family)
    facts = [f"its {loss.n_distinct} distinct values give {loss.n_outputs} distinct "
             f"transformed values" + (f" ({loss.n_shared} not above their neighbour's)"
                                      if loss.n_shared else "")]
    if loss.n_overflow:
        facts.append(f"{loss.n_overflow} overflow float64")
    if np.isfinite(loss.max_error):
        facts.append(f"inverse_transform(transform(x)) is off by up to {loss.max_error:.2g} "
                     "relative")
    else:
        facts.append("inverse_transform(transform(x)) does not return some values at all")
    text = (f"{what} {name!r}: lambda = {lmbda:.6g} loses the data's resolution in float64: "
            + ", ".join(facts) + f" (the check: a round trip within {ROUND_TRIP_RTOL:g}). "
            + remedy[:1].upper() + remedy[1:])
    if loss.digits >= 3:
        text += (f"; the values agree to {loss.digits:.0f} significant digits: check the "
                 f"data's units, or subtract an offset (e.g. {name} - {_offset(values):g}) "
                 "before fitting")
    return text + "."


def _offset(values: Any) -> float:
    v = np.asarray(values, dtype=np.float64)
    return float(np.nanmin(v)) if v.size else 0.0


def loss_messages(u: ArrayLike, lmbda: ArrayLike, families: tuple[str, ...] | list[str],
                  names: tuple[str, ...] | list[str], remedy: str,
                  what: str = "column") -> list[str]:
    """The :func:`loss_message` of every column of ``u`` (values on the powers' scale, NaN
    for missing) whose power in ``lmbda`` loses its resolution (decided from each column's
    extremes, one pass; the facts are measured only for those columns). Every model that
    applies a power calls this, so one rule decides everywhere.

    Examples
    --------
    >>> from boxcoxstat.core.resolution import loss_messages
    >>> x = [[4.61], [4.60], [4.60], [4.62], [4.61]]
    >>> [m.split(":")[0] for m in loss_messages(x, [-174.0], ["boxcox"], ["x"], "refit")]
    ["column 'x'"]
    """
    v = np.asarray(u, dtype=np.float64)
    if v.ndim == 1:
        v = v[:, None]
    if v.shape[0] == 0:  # no values, nothing to lose
        return []
    lam = np.asarray(lmbda, dtype=np.float64).reshape(-1)
    ext = data_range(v)
    lost = loses_resolution(ext[:, 0], ext[:, 1], lam, list(families))
    return [loss_message(str(names[j]), float(lam[j]), families[j], v[:, j], remedy, what)
            for j in np.flatnonzero(lost)]


def range_messages(lo: ArrayLike, hi: ArrayLike, lmbda: ArrayLike,
                   families: tuple[str, ...] | list[str], names: tuple[str, ...] | list[str],
                   remedy: str) -> list[str]:
    """The warning of every column whose power loses its resolution, decided and described
    from the column's extremes ``lo``, ``hi`` alone (fits that never hold the data: Dask,
    federated), by the same rule as :func:`loss_messages`.

    Examples
    --------
    >>> from boxcoxstat.core.resolution import range_messages
    >>> [m.split(":")[0] for m in range_messages([4.60], [4.62], [-174.0], ["boxcox"], ["x"],
    ...                                            "refit")]
    ["column 'x'"]
    """
    lo_, hi_ = np.atleast_1d(np.asarray(lo, np.float64)), np.atleast_1d(np.asarray(hi, np.float64))
    lam = np.atleast_1d(np.asarray(lmbda, dtype=np.float64))
    lost = loses_resolution(lo_, hi_, lam, list(families))
    out = []
    for j in np.flatnonzero(lost):
        with np.errstate(all="ignore"):
            worst = float(np.max(round_trip_bound(np.array([lo_[j], hi_[j]]), lam[j],
                                                  families[j])))
        what = ("transformed values at its extremes overflow float64" if not np.isfinite(worst)
                else f"inverse_transform(transform(x)) can be off by up to {worst:.2g} relative "
                f"at its extremes [{lo_[j]:.6g}, {hi_[j]:.6g}]")
        out.append(f"column {names[j]!r}: lambda = {lam[j]:.6g} loses the data's resolution in "
                   f"float64: {what} (the check: a round trip within {ROUND_TRIP_RTOL:g}). "
                   + remedy[:1].upper() + remedy[1:] + ".")
    return out

