"""The Profile interface: how every model presents its likelihood of lambda to the core.

A *profile* is the negative log-likelihood of one power per column with every other
parameter (mean, coefficients, variance) maximised out, together with its derivative in lambda
(the *score*). The solver (``solve.py``) and the inference module (``inference.py``) work on
any profile and never know which model they serve (car's ``estimateTransform``: every input
reduces to one likelihood):

* :class:`SampleProfile` -- a sample, weighted or not (``bcs.fit``; a regression on ``~ 1``;
  a one-column joint fit; the robust estimators' maximum-likelihood steps);
* ``response.ResponseProfile`` -- the response of a linear model, from a QR of its design;
* :class:`CallbackProfile` -- a profile computed elsewhere: the federated server merging its
  clients' moments, or a Dask graph merging its partitions' moments. Each call is one round.

All evaluate *pairs* ``(lmbda[k], column cols[k])``, so one call can ask for one lambda per
column, many lambdas for one column, or any mix; a callback profile answers any of these in
one round. The NLL convention is the same everywhere: Gaussian constants dropped, so
``llf = -nll + llf_offset[column]``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .likelihood import llf_constant, nll_score, nll_score_slope
from .sample import Sample

__all__ = [
    "Profile",
    "SampleProfile",
    "CallbackProfile",
    "RescaledProfile",
    "rescaled",
    "reach_of",
    "LAMBDA_REACH",
    "SUBSAMPLE_FROM",
    "SUBSAMPLE_SIZE",
    "as_pairs",
    "evaluate_pairs",
]

SUBSAMPLE_FROM = 100_000  # rows above which lambda is first solved on a systematic subsample
SUBSAMPLE_SIZE = 20_000  # about this many rows in that subsample
SUBSAMPLE_MIN_ROWS = 500  # a matrix's subsample keeps at least this many rows (Yeo-Johnson
# 10000 x 100, sides of about 5,000 rows: every 10th row starts the polish, solve 111 -> 80 ms
# of CPU; Box-Cox 73 -> 47 ms; 2,000 rows, or none, cost more)
MATRIX_SUBSAMPLE_FROM = 8  # a matrix is subsampled above this many times those rows
LAMBDA_REACH = 1e300  # farthest |lambda| the solver looks on a sample's profile


class Profile(Protocol):
    """What the core needs from a model (see the module docstring)."""

    @property
    def ncols(self) -> int:
        """Number of columns (one power each)."""
        ...

    def nobs(self) -> NDArray[np.float64]:
        """Number of observations (total weight) per column."""
        ...

    def evaluate(
        self, lmbda: ArrayLike, cols: ArrayLike, *, score: bool = True
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """NLL and score at the pairs ``(lmbda[k], cols[k])`` (the score NaN unless asked)."""
        ...

    def llf_offset(self) -> NDArray[np.float64]:
        """Per column, the constant that turns ``-nll`` into the log-likelihood."""
        ...

    def subsample(self) -> Profile | None:
        """A cheaper profile of the same columns to start the solver from, or ``None``."""
        ...


def steering(profile: Profile) -> dict[str, bool]:
    """Keywords for ``profile.evaluate`` when its score only steers a step (the profile
    interval's Newton steps and curvature, the secant polish's first point): a sample's
    scores may then skip the small-argument series (``series=False``: the score errs by at
    most ``likelihood.SERIES_ERR`` a value there, about 1e-13 of the curvature on 1e7
    values; the NLL, which sets the interval's ends, is the same). Other profiles
    (subclasses too) take no such keyword."""
    return {"series": False} if type(profile) is SampleProfile else {}


def as_pairs(lmbda: ArrayLike, cols: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
    """``lmbda`` and ``cols`` as equal-length 1-D arrays (a scalar is broadcast)."""
    lam = np.atleast_1d(np.asarray(lmbda, dtype=np.float64))
    idx = np.atleast_1d(np.asarray(cols, dtype=np.intp))
    lam, idx = np.broadcast_arrays(lam, idx)
    return np.ascontiguousarray(lam), np.ascontiguousarray(idx)


def evaluate_pairs(
    lmbda: ArrayLike, cols: ArrayLike, one: Callable[[int, float], tuple[float, float]],
    score: bool = True,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """NLL and score at each pair from ``one(column, lambda) -> (nll, score)``, for profiles
    that solve an inner problem per pair (nuisance parameters profiled out); a non-finite
    lambda gives ``inf`` (the score NaN, and NaN throughout unless ``score``)."""
    lam, idx = as_pairs(lmbda, cols)
    val = np.full(lam.shape, np.inf)
    sc = np.full(lam.shape, np.nan)
    for k in range(lam.shape[0]):
        if np.isfinite(lam[k]):
            val[k], g = one(int(idx[k]), float(lam[k]))
            if score:
                sc[k] = g
    return val, sc


def _layers(cols: NDArray[np.intp]) -> list[NDArray[np.intp]]:
    """Split pair positions into layers in which every column appears at most once."""
    order = np.argsort(cols, kind="stable")
    sorted_cols = cols[order]
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_cols)) + 1]
    rank = np.arange(cols.size) - np.repeat(starts, np.diff(np.r_[starts, cols.size]))
    return [order[rank == r] for r in range(int(rank.max()) + 1)] if cols.size else []


def reach_of(span: ArrayLike) -> NDArray[np.float64]:
    """How far a solver looks for lambda on data whose log-ratios span ``span``: ``1e18``,
    divided by the span where it is below 1, at most ``LAMBDA_REACH``."""
    with np.errstate(divide="ignore", over="ignore"):
        return np.minimum(LAMBDA_REACH, 1e18 / np.minimum(np.asarray(span, dtype=np.float64),
                                                          1.0))


@dataclass(frozen=True)
class SampleProfile:
    """The profile likelihood of a sample's columns (Box-Cox or Yeo-Johnson, weighted or not).

    ``NLL(lambda) = (1 - lambda) J + W/2 log Var_w(psi)`` per column, from the stable moments
    of :mod:`~boxcoxstat.core.likelihood` (Xu & Cormode 2025, eqs. 3-4; weights act as
    frequency weights, ``W`` their sum).

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.core.profile import SampleProfile
    >>> from boxcoxstat.core.sample import Sample
    >>> prof = SampleProfile(Sample.from_array([0.1, 0.1, 0.1, 0.101]))
    >>> prof.evaluate([-361.15, 0.0], [0, 0], score=False)[0].round(3)
    array([-32.623, -30.989])
    """

    sample: Sample
    series: bool = True  # False: the scores skip the small-argument series (a subsample's)

    @classmethod
    def from_array(
        cls, x: ArrayLike, family: str = "boxcox", weights: ArrayLike | None = None
    ) -> SampleProfile:
        """The profile of a 1-D sample or the columns of an (n, p) matrix (NaN = missing).

        The data are assumed validated (``_validation.as_columns``); see
        :meth:`~boxcoxstat.core.sample.Sample.from_array`.
        """
        return cls(Sample.from_array(x, family, weights))

    @property
    def ncols(self) -> int:
        return self.sample.ncols

    def nobs(self) -> NDArray[np.float64]:
        return self.sample.nobs()

    def llf_offset(self) -> NDArray[np.float64]:
        return llf_constant(self.sample.nobs())

    def evaluate(
        self, lmbda: ArrayLike, cols: ArrayLike, *, score: bool = True,
        score_unit: NDArray[np.float64] | None = None, series: bool = True,
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """NLL and score at the pairs; with ``score_unit`` (per pair) the score is the
        derivative in ``lambda * score_unit`` (see :class:`RescaledProfile`);
        ``series=False`` (or a profile made with it): the scores skip the small-argument
        series (:func:`~boxcoxstat.core.likelihood.side_moments`; the NLL is the same)."""
        series = series and self.series
        lam, idx = as_pairs(lmbda, cols)
        su = None if score_unit is None else np.broadcast_to(score_unit, lam.shape)
        full = self.ncols
        if (full == 1 and idx.size) or (idx.size == full
                                        and np.array_equal(idx, np.arange(full))):
            return nll_score(self.sample, lam, score=score,  # every column once, in order,
                             score_unit=su, series=series)  # or any lambdas of one column
        val = np.empty(lam.shape)
        sc = np.empty(lam.shape)
        uniq = np.unique(idx)
        if uniq.size == 1 and idx.size > 1:  # many lambdas of one column: broadcast
            val[:], sc[:] = nll_score(self.sample, lam, score=score,
                                      cols=None if full == 1 else uniq, score_unit=su,
                                      series=series)
            return val, sc
        for layer in _layers(idx):  # each column at most once per call
            sel = idx[layer]
            every = sel.size == full and np.array_equal(sel, np.arange(full))
            val[layer], sc[layer] = nll_score(self.sample, lam[layer], score=score,
                                              cols=None if every else sel,
                                              score_unit=None if su is None else su[layer],
                                              series=series)
        return val, sc

    def evaluate_slope(
        self, lmbda: ArrayLike, cols: ArrayLike, *, exact: bool = True
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64],
               NDArray[np.float64]] | None:
        """NLL, score, the score's derivative in lambda and a bound of the score's error
        (``exact=False``) at the pairs, in one pass over the data
        (:func:`~boxcoxstat.core.likelihood.nll_score_slope`), or None where that
        pass does not exist (then use :meth:`evaluate`). Pairs must name every column once,
        in order (or lambdas of the one column)."""
        lam, idx = as_pairs(lmbda, cols)
        full = self.ncols
        if not ((full == 1 and idx.size == 1)
                or (idx.size == full and np.array_equal(idx, np.arange(full)))):
            return None
        return nll_score_slope(self.sample, lam, exact=exact)

    def rescaled(self) -> RescaledProfile | None:
        """This profile in the coordinate ``lambda * Sample.unit`` where a column is on a
        tiny scale (Yeo-Johnson data of range below about 5e-20), else ``None``."""
        unit = self.sample.unit
        return None if np.all(unit == 1.0) else RescaledProfile(self, unit)

    def lambda_limit(self) -> NDArray[np.float64]:
        """Per column, how far the solver may look for lambda: ``1e18`` divided by the span
        of the log-ratios where that span is below 1 (the optimum scales like its inverse:
        Yeo-Johnson data of magnitude 1e-32 have theirs near 1e31), at most ``LAMBDA_REACH``
        (1e300; the gate refuses Yeo-Johnson ranges below 1e-300, see
        ``_validation.check_spread``)."""
        span = np.zeros(self.ncols)
        for side in self.sample.sides:
            vmin, vmax = side.vrange
            span = np.maximum(span, vmax - vmin)
        return reach_of(span)

    def subsample(self) -> SampleProfile | None:
        """Every k-th row: about 20,000 values per column for one column (above 100,000
        rows), about 20,000 values in all but at least 500 rows for a matrix (from eight
        times that many rows). Its scores skip the small-argument series (``series``): they
        start the full data's solver, whose own scores are exact."""
        if self.ncols == 1:
            rows, start_from = SUBSAMPLE_SIZE, SUBSAMPLE_FROM
        else:
            rows = max(SUBSAMPLE_MIN_ROWS, SUBSAMPLE_SIZE // self.ncols)
            start_from = MATRIX_SUBSAMPLE_FROM * rows
        if self.sample.nrows <= start_from or self.sample.nrows // rows < 2:
            return None
        # it only starts the solver (the root to SUB_XRTOL): its scores skip the series
        return SampleProfile(self.sample.every(self.sample.nrows // rows), series=False)


class UnitProfile(Profile, Protocol):
    """A profile that can return its score in ``lambda * score_unit`` and knows how far its
    lambda may go (what :class:`RescaledProfile` wraps)."""

    def evaluate(
        self, lmbda: ArrayLike, cols: ArrayLike, *, score: bool = True,
        score_unit: NDArray[np.float64] | None = None,
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        ...

    def lambda_limit(self) -> NDArray[np.float64]:
        ...


@dataclass(frozen=True)
class RescaledProfile:
    """A sample's profile in the coordinate ``mu = lambda * unit`` (``unit`` per column, a
    power of two: ``Sample.unit``).

    Yeo-Johnson data of magnitude 1e-200 have lambda near 1e200, a score near 1e-200 and a
    curvature near 1e-400, which float64 cannot hold; in ``mu`` all three are of order one.
    The inner profile (a sample's, a linear model's response, a callback's: federated server,
    Dask graph) evaluates with ``score_unit``.
    The solver and the inference (``solve.solve``, ``inference``) work on this profile and
    convert their answers back; NLL values are the same in both coordinates.
    """

    inner: UnitProfile
    unit: NDArray[np.float64]

    @property
    def ncols(self) -> int:
        return self.inner.ncols

    def nobs(self) -> NDArray[np.float64]:
        return self.inner.nobs()

    def llf_offset(self) -> NDArray[np.float64]:
        return self.inner.llf_offset()

    def evaluate(
        self, lmbda: ArrayLike, cols: ArrayLike, *, score: bool = True
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        mu, idx = as_pairs(lmbda, cols)
        u = self.unit[idx]
        return self.inner.evaluate(mu / u, idx, score=score, score_unit=u)

    def lambda_limit(self) -> NDArray[np.float64]:
        return self.inner.lambda_limit() * self.unit

    def subsample(self) -> RescaledProfile | None:
        sub = self.inner.subsample()
        if sub is None:
            return None
        if not hasattr(sub, "lambda_limit"):
            raise TypeError(f"cannot rescale a subsample profile of type {type(sub).__name__}")
        return RescaledProfile(sub, self.unit)  # type: ignore[arg-type]


def rescaled(profile: Profile) -> RescaledProfile | None:
    """``profile.rescaled()`` where the profile has one (a sample's), else ``None``."""
    method = getattr(profile, "rescaled", None)
    return None if method is None else method()


Rounds = Callable[..., tuple[NDArray[np.float64], NDArray[np.float64]]]


@dataclass(frozen=True)
class CallbackProfile:
    """A profile evaluated by a callback ``f(lmbda, cols, score=...) -> (nll, score)``.

    The federated server and the Dask graphs implement the callback; every call is one round
    of messages (or one graph), whatever the number of pairs. ``sub`` is an optional cheaper
    profile (Dask's persisted subsample).
    """

    callback: Rounds
    n: NDArray[np.float64]
    sub: Profile | None = None
    unit: NDArray[np.float64] | None = None  # per column, the frame's unit (see rescaled)
    reach: NDArray[np.float64] | None = None  # per column, see lambda_limit

    @property
    def ncols(self) -> int:
        return int(self.n.shape[0])

    def nobs(self) -> NDArray[np.float64]:
        return self.n

    def llf_offset(self) -> NDArray[np.float64]:
        return llf_constant(self.n)

    def evaluate(
        self, lmbda: ArrayLike, cols: ArrayLike, *, score: bool = True,
        score_unit: NDArray[np.float64] | None = None,
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """One round at the pairs; with ``score_unit`` (per pair) the callback returns the
        derivative in ``lambda * score_unit`` (see :class:`RescaledProfile`)."""
        lam, idx = as_pairs(lmbda, cols)
        if score_unit is None:
            val, sc = self.callback(lam, idx, score=score)
        else:
            val, sc = self.callback(lam, idx, score=score, score_unit=score_unit)
        return np.asarray(val, dtype=np.float64), np.asarray(sc, dtype=np.float64)

    def subsample(self) -> Profile | None:
        return self.sub

    def lambda_limit(self) -> NDArray[np.float64]:
        """How far the solver may look for lambda: ``reach`` where the caller knows the data's
        span (as :meth:`SampleProfile.lambda_limit`: the optimum of data on a tiny scale lies
        near the inverse of their range), else ``1e18``."""
        return np.full(self.ncols, 1e18) if self.reach is None else self.reach

    def rescaled(self) -> RescaledProfile | None:
        """This profile in the coordinate ``lambda * unit`` where the frame has a unit (data
        on a tiny scale), else ``None``; the callback must accept ``score_unit``."""
        if self.unit is None or np.all(self.unit == 1.0):
            return None
        return RescaledProfile(self, self.unit)
