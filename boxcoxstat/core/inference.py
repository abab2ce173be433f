"""Inference on lambda: profile-likelihood and Wald intervals, LR tests, convenient powers.

Everything works on any :class:`~boxcoxstat.core.profile.Profile` (a sample, a linear
model's response, the federated server, a Dask graph) and is batched over columns; interval
endpoints are roots of ``2 (NLL(lambda) - NLL(hat)) = chi2_1(1-alpha)`` found by geometric
bracketing and Chandrupatla's method (``solve.py``), so a far endpoint costs a few more
evaluations, never a failure. On a federated profile every evaluation is one round, and the
functions here ask for all columns and both endpoints in each.

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

from .._validation.columns import BoxCoxError
from .curvature import curvature, curvature_and_values, curvature_from_pair
from .profile import SUBSAMPLE_FROM, CallbackProfile, Profile, rescaled, steering
from .roots import bracket_increasing, find_root

__all__ = [
    "CONVENIENT_POWERS",
    "standard_error",
    "wald_interval",
    "profile_interval",
    "lr_statistic",
    "chi2_pvalue",
    "rounded_power",
    "car_rounded_power",
    "standard_inference",
    "bounded_interval",
    "bounded_inference",
]

NUISANCE_LIMIT = 1e4  # farthest interval end searched when a profile may level off
CONVENIENT_POWERS = (-2.0, -1.0, -0.5, -1.0 / 3.0, 0.0, 1.0 / 3.0, 0.5, 1.0, 2.0)


def standard_error(profile: Profile, lmbda: NDArray[np.float64],
                   slope: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
    """``1 / sqrt(observed information)`` at ``lmbda`` (the curvature of the profile NLL;
    ``slope``, an estimate of it such as the solver's, saves an evaluation)."""
    scaled = rescaled(profile)
    if scaled is not None:  # in lambda * unit (the curvature in lambda may underflow)
        u = scaled.unit
        with np.errstate(under="ignore"):
            mu_slope = None if slope is None else np.asarray(slope) / u / u
        return standard_error(scaled, lmbda * u, mu_slope) / u
    info = curvature(profile, lmbda, slope)
    return np.where(info > 0, 1.0 / np.sqrt(np.where(info > 0, info, 1.0)), np.nan)


def wald_interval(
    lmbda: NDArray[np.float64], bse: NDArray[np.float64], alpha: float = 0.05
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``lmbda -+ z_{1-alpha/2} bse``."""
    z = stats.norm.isf(alpha / 2.0)
    with np.errstate(over="ignore"):  # a standard error near float64's end: infinite ends
        return lmbda - z * bse, lmbda + z * bse


INTERVAL_RTOL = 1e-13  # relative accuracy of the distance from the estimate to an endpoint
NEWTON_STEPS = 8


def profile_interval(
    profile: Profile,
    lmbda: NDArray[np.float64],
    nll_hat: NDArray[np.float64],
    bse: NDArray[np.float64],
    alpha: float = 0.05,
    *,
    infinite_ok: bool = False,
    limit: float | None = None,
    first: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]] | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Profile-likelihood interval ``{lambda : 2 (NLL(lambda) - NLL(hat)) <= chi2_1(1 - alpha)}``.

    Both endpoints of every column are solved together. For the upper one,
    ``g(t) = NLL(hat + t) - NLL(hat) - q/2`` is convex and increasing on ``t >= 0`` and its
    derivative is the score, which every evaluation returns with the NLL; so Newton's method
    from the quadratic guess ``t = sqrt(q) bse`` converges (monotonically after the first
    step) in about two evaluations of both ends. A step is accepted without evaluating its
    end when Newton's predicted error ``g'' step^2 / (2 g')`` is below ``1e-13 t``, with
    ``g''`` taken as twice the larger of ``1 / bse^2`` and the secant of ``g'`` over the last
    step, for safety. Ends where Newton cannot be
    used (no standard error, a non-increasing ``g``, no convergence in 8 steps) are
    bracketed by doubling and closed by Chandrupatla's method, as is every end of a profile
    that does not compute the score. ``first = (t, nll, score)``, each of length ``2p``
    (upper ends, then lower), gives the profile already evaluated at the distances ``t`` from
    the estimate (NaN where not), which then start Newton's method in place of the quadratic
    guess (:func:`standard_inference` evaluates them with the curvature).
    An end the likelihood never falls to within ``limit`` of the estimate raises, or with
    ``infinite_ok`` is reported as infinite (a profile with a nuisance parameter can level
    off: bcnPower's tends to the untransformed likelihood).
    """
    scaled = rescaled(profile)
    if scaled is not None:  # in lambda * unit, where score and curvature are of order one
        u = scaled.unit
        uu = np.r_[u, u]  # (upper ends, then lower)
        mu_first = None if first is None else (first[0] * uu, first[1], first[2] / uu)
        lo, hi = profile_interval(scaled, lmbda * u, nll_hat, bse * u, alpha,
                                  infinite_ok=infinite_ok, limit=limit, first=mu_first)
        return lo / u, hi / u
    half_q = 0.5 * stats.chi2.isf(alpha, 1)
    p = lmbda.shape[0]
    # stack (upper, lower) problems: column k < p is upper, k >= p lower
    direction = np.r_[np.ones(p), -np.ones(p)]
    cols = np.r_[np.arange(p), np.arange(p)]
    center = np.r_[lmbda, lmbda]
    base = np.r_[nll_hat, nll_hat]
    sd = np.r_[bse, bse]
    usable = np.isfinite(sd) & (sd > 0)
    t = np.where(usable, np.sqrt(2.0 * half_q) * sd, np.nan)
    pre_val = pre_sc = np.full(2 * p, np.nan)
    if first is not None:  # ends already evaluated: Newton starts from there
        t0, pre_val, pre_sc = (np.asarray(a, dtype=np.float64) for a in first)
        pre = usable & np.isfinite(t0) & (t0 > 0) & np.isfinite(pre_val) & np.isfinite(pre_sc)
        t = np.where(pre, t0, t)
        pre_val, pre_sc = np.where(pre, pre_val, np.nan), np.where(pre, pre_sc, np.nan)
    done = np.zeros(2 * p, dtype=bool)
    out = np.full(2 * p, np.nan)
    act = np.flatnonzero(usable)
    t_prev = np.full(2 * p, np.nan)
    dg_prev = np.full(2 * p, np.nan)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for it in range(NEWTON_STEPS):
            if act.size == 0:
                break
            if it == 0 and first is not None:
                val, sc = pre_val[act], pre_sc[act]
                need = np.flatnonzero(np.isnan(val))
                if need.size:
                    k = act[need]
                    val[need], sc[need] = profile.evaluate(center[k] + direction[k] * t[k],
                                                           cols[k], **steering(profile))
            else:
                val, sc = profile.evaluate(center[act] + direction[act] * t[act], cols[act],
                                           **steering(profile))
            g = val - base[act] - half_q
            dg = direction[act] * sc
            step = -g / dg
            nxt = t[act] + step
            # g'' near the end: the larger of the curvature at the estimate and the secant
            # of g' between the last two iterates
            g2 = np.fmax(1.0 / sd[act] ** 2, (dg - dg_prev[act]) / (t[act] - t_prev[act]))
            est = g2 * step * step / np.abs(dg)
            ok = np.isfinite(nxt) & (dg > 0) & (nxt > 0) & np.isfinite(g)
            fin = ok & ((g == 0) | (est <= 0.5 * INTERVAL_RTOL * nxt))
            out[act[fin]] = np.where(g[fin] == 0, t[act][fin], nxt[fin])
            done[act[fin]] = True
            t_prev[act], dg_prev[act] = t[act], dg
            t[act] = nxt
            act = act[ok & ~fin]
    rest = np.flatnonzero(~done)
    if rest.size:
        out[rest] = _bracketed_ends(profile, center[rest], direction[rest], cols[rest],
                                    base[rest], sd[rest], half_q, infinite_ok, limit)
    return lmbda - out[p:], lmbda + out[:p]


def _bracketed_ends(profile: Profile, center: NDArray, direction: NDArray, cols: NDArray,
                    base: NDArray, sd: NDArray, half_q: float, infinite_ok: bool = False,
                    limit: float | None = None) -> NDArray[np.float64]:
    """Interval ends by geometric bracketing from ``t = 2 sd`` and Chandrupatla's method on
    NLL values (the fallback of :func:`profile_interval`)."""
    step = np.where(np.isfinite(sd) & (sd > 0), 2.0 * sd, 1e-3 * np.maximum(1, abs(center)))

    def f(t: NDArray, idx: NDArray) -> NDArray:
        val, _ = profile.evaluate(center[idx] + direction[idx] * t, cols[idx], score=False)
        return val - base[idx] - half_q

    m = center.shape[0]
    if limit is None:
        limit = NUISANCE_LIMIT if infinite_ok else 1e300
    a, b, fa, fb, ok, _ = bracket_increasing(f, np.zeros(m), step, flo=np.full(m, -half_q),
                                             limit=limit, plateau=infinite_ok)
    if infinite_ok and not np.all(ok):
        t = np.full(m, np.inf)
        if ok.any():
            idx = np.flatnonzero(ok)
            part = find_root(lambda x, k: f(x, idx[k]), a[idx], b[idx], fa[idx], fb[idx],
                             xatol=0.0, xrtol=INTERVAL_RTOL)
            t[idx] = part.x
        return t
    res = find_root(f, a, b, fa, fb, xatol=0.0, xrtol=INTERVAL_RTOL)
    if not np.all(ok & res.converged):
        raise BoxCoxError(
            "the profile likelihood does not fall to the interval's cut-off within any finite "
            "range of lambda; the data do not determine an interval"
        )
    return res.x


def lr_statistic(
    profile: Profile, nll_hat: NDArray[np.float64], lmbda0: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Likelihood-ratio statistic ``2 (NLL(lmbda0) - NLL(hat))`` per column (never negative).

    ``lmbda0`` holds one value per column, or ``(k, p)`` values (k hypotheses per column,
    all in one evaluation).
    """
    lam0 = np.asarray(lmbda0, dtype=np.float64)
    p = profile.ncols
    lam2 = np.broadcast_to(lam0, (lam0.size // p if lam0.ndim > 1 else 1, p))
    cols = np.broadcast_to(np.arange(p), lam2.shape)
    test_values = getattr(profile, "test_values", None)  # a supremum beyond the profile's
    if test_values is not None:  # reach (bcnPower's gamma -> inf limit)
        val = test_values(lam2.ravel(), cols.ravel())
    else:
        val, _ = profile.evaluate(lam2.ravel(), cols.ravel(), score=False)
    stat = np.maximum(2.0 * (val.reshape(lam2.shape) - nll_hat), 0.0)
    return stat.reshape(lam0.shape) if lam0.ndim > 1 else stat[0]


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
    with np.errstate(over="ignore", invalid="ignore"):  # beyond 1e15, 2 decimals are moot
        out = np.where(np.abs(lmbda) < 1e15, np.round(lmbda, 2), lmbda)
    for j in range(lmbda.shape[0]):
        inside = (cand >= lower[j]) & (cand <= upper[j])
        if inside.any():
            c, r = cand[inside], rank[inside]
            with np.errstate(over="ignore", invalid="ignore"):
                dist = np.abs(c - lmbda[j])
                best = np.lexsort((r, np.where(dist < 1e15, np.round(dist, 12), dist)))[0]
            out[j] = c[best]
    return out


# car's candidates in car's order of preference (estimateTransform.default, car 3.1-1); its
# thirds are 0.33 and -0.33, not 1/3
CAR_ROUNDING = (1.0, 0.0, -1.0, 0.5, 0.33, -0.5, -0.33, 2.0, -2.0)
ROUNDING_RULES = ("profile", "car")


def car_rounded_power(lmbda: NDArray[np.float64], bse: NDArray[np.float64]
                      ) -> NDArray[np.float64]:
    """car's "Rounded Pwr": the first of 1, 0, -1, 0.5, 0.33, -0.5, -0.33, 2, -2 (in that
    order) inside the Wald interval ``lmbda -+ 1.96 bse``, else the estimate, to two decimals
    as car's ``summary.powerTransform`` prints it (Fox & Weisberg 2019; car 3.1-1's
    ``estimateTransform.default``). The first candidate wins, not the nearest: on R's
    ``trees`` Girth's -0.20 becomes 0 here, -1/3 under :func:`rounded_power`.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.core.inference import car_rounded_power
    >>> car_rounded_power(np.array([0.45, -0.73, 4.113]), np.array([0.3, 0.3, 0.1]))
    array([ 1.  , -1.  ,  4.11])
    """
    lmbda = np.asarray(lmbda, dtype=np.float64)
    bse = np.asarray(bse, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):  # beyond 1e15, 2 decimals are moot
        lo, hi = lmbda - 1.96 * bse, lmbda + 1.96 * bse
        out = np.where(np.abs(lmbda) < 1e15, np.round(lmbda, 2), lmbda)
    for v in reversed(CAR_ROUNDING):  # the first candidate inside is set last
        out = np.where((lo <= v) & (v <= hi), v, out)
    return out


def standard_inference(
    profile: Profile, lmbda: NDArray[np.float64], nll_hat: NDArray[np.float64],
    alpha: float = 0.05, *, infinite_ok: bool = False,
    slope: NDArray[np.float64] | None = None,
    null: NDArray[np.float64] | None = None,
) -> dict[str, NDArray[np.float64]]:
    """Standard error, profile interval and LR statistics at 0 and 1 of every column
    (``null``, (2, p): the tests' powers in the profile's coordinate, where that is not
    lambda itself).

    What a result's summary shows, in few evaluations of the profile, which matters where an
    evaluation is a federated round or a Dask graph, and in memory, where each lambda costs a
    pass's arithmetic. Where ``slope`` (the solver's estimate of the curvature) is given, the
    interval's first Newton points ``hat +- sqrt(q / slope)`` are evaluated first; columns of
    more than ``SUBSAMPLE_FROM`` observations take their curvature from them
    (:func:`~boxcoxstat.core.curvature.curvature_from_pair`, no lambda of its own), the
    others from central differences in the same evaluation. A callback profile also
    computes the tests' NLL at 0 and 1 in that round; in memory they take an NLL-only
    evaluation of their own. Then one evaluation per Newton step of both ends of every
    column, usually one. Without ``slope`` the curvature takes one more evaluation first.
    """
    scaled = rescaled(profile)
    if scaled is not None:  # in lambda * unit; the tests' NLL values are the same
        u = scaled.unit
        with np.errstate(under="ignore"):
            mu_slope = None if slope is None else np.asarray(slope) / u / u
        out = standard_inference(scaled, lmbda * u, nll_hat, alpha, infinite_ok=infinite_ok,
                                 slope=mu_slope, null=np.stack([np.zeros_like(u), u]))
        return {**out, "bse": out["bse"] / u, "lower": out["lower"] / u,
                "upper": out["upper"] / u}
    p = lmbda.shape[0]
    cols = np.arange(p)
    if null is None:
        null = np.stack([np.zeros(p), np.ones(p)])
    # where the solver's slope estimates the curvature, the interval's first Newton points
    # (the quadratic guess from that slope) are evaluated with the curvature, in its pass
    c0 = np.full(p, np.nan) if slope is None else np.asarray(slope, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        t0 = np.sqrt(stats.chi2.isf(alpha, 1) / np.where(c0 > 0, c0, np.nan))
    ends = np.flatnonzero(np.isfinite(t0) & np.isfinite(lmbda))
    end_lam = np.r_[lmbda[ends] + t0[ends], lmbda[ends] - t0[ends]]
    end_cols = np.r_[ends, ends]
    # columns of more than SUBSAMPLE_FROM observations take their curvature from those
    # points (curvature_from_pair), the others from their own central differences, in the
    # same evaluation
    big = np.broadcast_to(profile.nobs() > SUBSAMPLE_FROM, (p,))
    pair_at = np.flatnonzero(big[ends])  # their places among the ends
    by_pair = ends[pair_at]
    rest = np.setdiff1d(cols, by_pair)
    # the callback profile's round (Dask graph, federated round) also computes the NLL at 0
    # and 1; in memory a pass costs its arithmetic, and the tests need no score
    callback = isinstance(profile, CallbackProfile)
    tests_lam = null.ravel() if callback else np.zeros(0)
    tests_cols = np.r_[cols, cols] if callback else np.zeros(0, dtype=np.intp)
    info = np.full(p, np.nan)
    info[rest], val, sc = curvature_and_values(profile, lmbda, slope, np.r_[end_lam, tests_lam],
                                               np.r_[end_cols, tests_cols], cols=rest)
    m = end_lam.size
    if callback:
        lr = np.maximum(2.0 * (val[m:].reshape(2, p) - nll_hat), 0.0)
    else:
        lr = lr_statistic(profile, nll_hat, null)
    val, sc = val[:m], sc[:m]
    if by_pair.size:
        at = np.r_[pair_at, ends.size + pair_at]  # upper ends first, then lower
        c_pair, trusted = curvature_from_pair(t0[by_pair], nll_hat[by_pair], val[at], sc[at])
        info[by_pair] = c_pair
        again = by_pair[~trusted]
        if again.size:  # a profile far from quadratic over t0: its own central differences
            info[again] = curvature_and_values(profile, lmbda, slope, cols=again)[0]
    first = None
    if ends.size:
        pos = np.r_[ends, ends + p]  # stacked: upper ends first, then lower
        t_at, v_at, s_at = np.full(2 * p, np.nan), np.full(2 * p, np.nan), np.full(2 * p, np.nan)
        t_at[pos], v_at[pos], s_at[pos] = np.r_[t0[ends], t0[ends]], val, sc
        first = (t_at, v_at, s_at)
    bse = np.where(info > 0, 1.0 / np.sqrt(np.where(info > 0, info, 1.0)), np.nan)
    lower, upper = profile_interval(profile, lmbda, nll_hat, bse, alpha,
                                    infinite_ok=infinite_ok, first=first)
    return {"bse": bse, "lower": lower, "upper": upper, "lr0": lr[0], "lr1": lr[1]}


def bounded_interval(
    profile: Profile, lmbda: NDArray[np.float64], nll_hat: NDArray[np.float64],
    limits: NDArray[np.float64], bse: NDArray[np.float64], alpha: float = 0.05,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Profile interval within bounds: ``{lambda in [lo, hi] : 2 (NLL(lambda) - NLL(hat)) <=
    chi2_1(1 - alpha)}`` where ``hat`` is the maximum on ``[lo, hi]`` (``lmbda``, ``nll_hat``;
    :func:`~boxcoxstat.core.solve.bounded_solution`), not the unconstrained interval cut at
    the bounds.

    The NLL is convex, so on each side of ``hat`` it rises monotonically away from the
    estimate unless ``hat`` sits on that side's bound (then that end is the bound). A side
    whose bound is finite is evaluated there: if the NLL at the bound is still within the
    cut-off the end is the bound, else the end is the root of ``NLL - NLL(hat) - q/2``
    between ``hat`` and the bound, closed by Chandrupatla's method to ``INTERVAL_RTOL``. An
    open side is bracketed by doubling as in :func:`profile_interval`.
    """
    half_q = 0.5 * stats.chi2.isf(alpha, 1)
    p = lmbda.shape[0]
    direction = np.r_[np.ones(p), -np.ones(p)]  # upper ends, then lower
    cols = np.r_[np.arange(p), np.arange(p)]
    center = np.r_[lmbda, lmbda]
    base = np.r_[nll_hat, nll_hat]
    sd = np.r_[bse, bse]
    bound = np.r_[limits[:, 1], limits[:, 0]]
    dist = np.abs(bound - center)  # inf on an open side
    out = np.full(2 * p, np.nan)
    at_bound = dist == 0
    out[at_bound] = 0.0
    finite = np.flatnonzero(np.isfinite(dist) & ~at_bound)
    gb = np.full(2 * p, np.nan)
    if finite.size:
        val, _ = profile.evaluate(bound[finite], cols[finite], score=False)
        gb[finite] = val - base[finite] - half_q
        inside = finite[gb[finite] <= 0]
        out[inside] = dist[inside]
        cross = finite[gb[finite] > 0]
        if cross.size:
            def f(t: NDArray, idx: NDArray) -> NDArray:
                k = cross[idx]
                v, _ = profile.evaluate(center[k] + direction[k] * t, cols[k], score=False)
                return v - base[k] - half_q

            m = cross.size
            res = find_root(f, np.zeros(m), dist[cross], np.full(m, -half_q), gb[cross],
                            xatol=0.0, xrtol=INTERVAL_RTOL)
            out[cross] = res.x
    rest = np.flatnonzero(np.isnan(out))
    if rest.size:
        out[rest] = _bracketed_ends(profile, center[rest], direction[rest], cols[rest],
                                    base[rest], sd[rest], half_q)
    return lmbda - out[p:], lmbda + out[:p]


def bounded_inference(
    profile: Profile, lmbda: NDArray[np.float64], nll_hat: NDArray[np.float64],
    limits: NDArray[np.float64], alpha: float = 0.05,
) -> dict[str, NDArray[np.float64]]:
    """What :func:`standard_inference` gives, for an estimate maximised on ``[lo, hi]``
    (``limits``, (p, 2)): the standard error (NaN where the estimate is on a bound: the
    maximum is not interior, so the curvature there is no observed information), the
    interval of :func:`bounded_interval`, and the LR statistics at 0 and 1 against the
    bounded maximum (NaN where 0 or 1 lies outside the bounds)."""
    p = lmbda.shape[0]
    active = (lmbda <= limits[:, 0]) | (lmbda >= limits[:, 1])
    bse = np.where(active, np.nan, standard_error(profile, lmbda))
    lower, upper = bounded_interval(profile, lmbda, nll_hat, limits, bse, alpha)
    null = np.stack([np.zeros(p), np.ones(p)])
    lr = lr_statistic(profile, nll_hat, null)
    outside = (null < limits[:, 0]) | (null > limits[:, 1])
    lr = np.where(outside, np.nan, lr)
    return {"bse": bse, "lower": lower, "upper": upper, "lr0": lr[0], "lr1": lr[1]}

