"""A sample held in partitions: what each partition computes, how the results merge, and the
fit of lambda from them (Dask and Spark input; the federated server's columns use the
column fit too).

The data are never gathered. A column is its partitions' handles (a :class:`HeldColumn`:
tasks of a scheduler, run through callables the caller injects -- ``dask.delayed``,
``dask.compute`` and ``dask.persist`` for Dask -- so this module never imports a scheduler)
or any object with the :class:`Column` methods (Spark's ``mapInArrow`` jobs). Each
evaluation of the profile is one pass: every partition computes its side moments at the
requested lambda(s) in the global frame (:func:`partition_moments`,
:class:`~boxcoxstat.core.frame.SampleFrame`) and the results merge pairwise in a tree
(:func:`merge_moment_parts`; Chan, Golub & LeVeque 1982; Xu & Cormode's (2025) Algorithm 1,
with the scheduler as the server). The core's solver and inference run on the merged profile
(a :class:`~boxcoxstat.core.profile.CallbackProfile` whose callback is this module's), so
the result equals the in-memory fit to about 1e-12 relative.

Every full pass is counted (``tally["passes"]``): the set-up pass (the gate's, which reads
the collection), the pass that extracts the systematic subsample of a column of more than
100,000 values (the solver's start) and one per evaluation of the full profile
(``rounds``). A partition is checked in each pass against the rows it delivered in the
set-up pass; one that raises becomes :class:`~boxcoxstat.BoxCoxError` naming it (found, on
that error path only, by computing the partitions one at a time: the gate's
:func:`~boxcoxstat._validation.partitions.first_failure`, which names partitions as the
set-up pass does).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from math import fsum
from typing import Any, Protocol, cast

import numpy as np
from numpy.typing import NDArray

from .._validation.partitions import first_failure
from ..exceptions import BoxCoxError, ResolutionWarning
from .bounds import lambda_bounds
from .frame import SampleFrame, global_nll_score, local_sides, tree_merge
from .inference import bounded_inference, standard_inference
from .likelihood import SideMoments, llf_constant
from .profile import SUBSAMPLE_FROM, SUBSAMPLE_SIZE, CallbackProfile
from .resolution import range_messages
from .solve import Solution, bounded_solution, solve

__all__ = ["Column", "Tasks", "HeldColumn", "HeldSample", "CaseWeights", "partition_values",
           "partition_moments", "partition_jacobian_gap", "merge_moment_parts",
           "subsample_stride", "every",
           "ColumnFit", "fit_column", "fit_held", "fit_samples",
           "FitTable", "fit_table", "new_tally"]

Moments = dict[str, SideMoments | None]


class Column(Protocol):
    """One column as a backend holds it: each method is one pass over its partitions."""

    def moments(self, frame: SampleFrame, lmbda: tuple[float, ...],
                shift_pos: tuple[float, ...], shift_neg: tuple[float, ...],
                score: bool) -> Moments:
        """Every partition's :func:`partition_moments`, merged (one pass)."""

    def subsample(self, stride: int) -> Column:
        """Every ``stride``-th value of each partition, kept where it lives (one pass)."""


# ----------------------------------------------------------------------- one partition
def partition_values(block: Any, label: str, rows: int) -> NDArray[np.float64]:
    """A partition's values in a later pass, as a 1-D float array of the ``rows`` it
    delivered in the set-up pass, or the package's error naming it (``label``).

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.core.partitioned import partition_values
    >>> partition_values([1.0, 2.0], "partition 0 (of 1) of column 'x'", 2)
    array([1., 2.])
    """
    if block is None:
        raise BoxCoxError(f"{label} returned None instead of its rows; fix the function that "
                          "builds that partition")
    x = np.asarray(block, dtype=np.float64)
    if x.ndim != 1 or x.size != rows:
        raise BoxCoxError(f"{label} delivered {x.size} rows but it delivered in the first "
                          f"pass {rows}; its rows would be lost or counted twice, so the fit "
                          "stops: rebuild the collection so each partition returns what it "
                          "declares")
    return x


def _weighted_rows(x: NDArray[np.float64], w: NDArray[np.float64] | None
                   ) -> tuple[NDArray[np.float64], NDArray[np.float64] | None]:
    """The rows a fit uses: values present and, with case weights, of positive weight (as
    ``lm(weights=)`` leaves out the rows of weight 0)."""
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    ok = np.isfinite(x)
    if w is not None:
        w = np.asarray(w, dtype=np.float64).reshape(-1)
        ok &= w > 0
        return x[ok], w[ok]
    return (x if ok.all() else x[ok]), None


def partition_moments(x: NDArray[np.float64], frame: SampleFrame, lmbda: tuple[float, ...],
                      shift_pos: tuple[float, ...], shift_neg: tuple[float, ...],
                      score: bool, w: NDArray[np.float64] | None = None) -> Moments:
    """A partition's side moments at ``lmbda`` in the global ``frame`` (missing values
    dropped); with case weights ``w`` the weighted moments of its rows of positive weight
    (merged as frequency-weight moments are)."""
    x, w = _weighted_rows(x, w)
    pm, nm = frame.moments(local_sides(x, frame, w), np.asarray(lmbda), shift_pos, shift_neg,
                           score)
    return {"pos": pm, "neg": nm}


def partition_jacobian_gap(x: NDArray[np.float64], w: NDArray[np.float64], family: str,
                           center: float, ratio: float) -> float:
    """A partition's share of ``D = sum (1 - ratio w_i) L_i`` (``ratio = n / W``), the
    difference between the Jacobian of ``lm(weights=)``'s likelihood (unweighted) and the
    frequency-weighted one, with ``L = log x - center`` (Box-Cox; ``center`` the column's
    geometric middle, which ``sum (1 - ratio w_i) = 0`` allows) or ``sign(x) log(1 + |x|)``
    (Yeo-Johnson)."""
    x, kept = _weighted_rows(x, w)
    assert kept is not None
    logs = (np.log(x) - center if family == "boxcox"
            else np.sign(x) * np.log1p(np.abs(x)))
    return float(np.sum((1.0 - ratio * kept) * logs))


def merge_moment_parts(parts: Sequence[Moments]) -> Moments:
    """Merge partitions' moments side by side, pairwise through a queue."""
    pos = [p["pos"] for p in parts if p["pos"] is not None]
    neg = [p["neg"] for p in parts if p["neg"] is not None]
    return {"pos": tree_merge(pos), "neg": tree_merge(neg)}  # type: ignore[arg-type]


def subsample_stride(n: int) -> int:
    """The stride of the systematic subsample of ``n`` values (about 20,000 kept)."""
    return max(1, n // SUBSAMPLE_SIZE)


def every(x: NDArray[np.float64], stride: int) -> NDArray[np.float64]:
    """Every ``stride``-th value of a partition (a copy, so the partition can be freed)."""
    return np.asarray(x, dtype=np.float64).reshape(-1)[::stride].copy()


def _checked_weights(block: Any, label: str, rows: int) -> NDArray[np.float64]:
    return partition_values(block, f"{label}'s weights", rows)


def _checked_moments(block: Any, label: str, rows: int, weights: Any = None, **kw: Any
                     ) -> Moments:
    w = None if weights is None else _checked_weights(weights, label, rows)
    return partition_moments(partition_values(block, label, rows), w=w, **kw)


def _checked_gap(block: Any, label: str, rows: int, weights: Any, **kw: Any) -> float:
    return partition_jacobian_gap(partition_values(block, label, rows),
                                  _checked_weights(weights, label, rows), **kw)


def _checked_every(block: Any, label: str, rows: int, stride: int) -> NDArray[np.float64]:
    return every(partition_values(block, label, rows), stride)


# ----------------------------------------------------------------------- a held column
@dataclass(frozen=True)
class Tasks:
    """How a scheduler runs functions on partitions, injected by the caller (this module
    imports none): ``delayed(f)(*args)`` builds a task, ``compute(*tasks)`` returns their
    values, ``persist(*tasks)`` keeps their values where they were computed; merges fan in
    ``split_every`` results at a time. For Dask: ``Tasks(dask.delayed, dask.compute,
    dask.persist)``."""

    delayed: Callable[..., Any]
    compute: Callable[..., Any]
    persist: Callable[..., Any]
    split_every: int = 8


@dataclass(frozen=True)
class HeldColumn:
    """A column held as its partitions' tasks (:class:`Column`): ``parts`` (one handle per
    partition), the ``rows`` each delivered in the set-up pass and the ``labels`` errors
    name them by; ``source`` (default ``parts``) is what a failing pass computes alone to
    find the partition at fault; ``weights`` the case weights' partitions (one per
    partition, read beside its values in every pass)."""

    name: str
    parts: tuple[Any, ...]
    rows: tuple[int, ...]
    labels: tuple[str, ...]
    tasks: Tasks
    source: tuple[Any, ...] | None = None
    weights: tuple[Any, ...] | None = None

    def _args(self) -> list[tuple[Any, ...]]:
        ws = self.weights or (None,) * len(self.parts)
        return [(p, lab, r) + (() if w is None else (w,)) for p, lab, r, w in
                zip(self.parts, self.labels, self.rows, ws, strict=True)]

    def _run(self, run: Callable[..., Any], *tasks: Any) -> Any:
        try:
            return run(*tasks)
        except BoxCoxError:
            raise
        except Exception as exc:
            raise first_failure(self.tasks.compute, self.source or self.parts, self.labels,
                                exc, self.name) from exc

    def moments(self, frame: SampleFrame, lmbda: tuple[float, ...],
                shift_pos: tuple[float, ...], shift_neg: tuple[float, ...],
                score: bool) -> Moments:
        """One pass: every partition's moments, merged in a tree of ``split_every``."""
        t = self.tasks
        task = t.delayed(partial(_checked_moments, frame=frame, lmbda=lmbda,
                                 shift_pos=shift_pos, shift_neg=shift_neg, score=score))
        merge = t.delayed(merge_moment_parts)
        level = [task(*args) for args in self._args()]
        while len(level) > 1:
            level = [merge(level[i:i + t.split_every])
                     for i in range(0, len(level), t.split_every)]
        (out,) = self._run(t.compute, level[0])
        return out  # type: ignore[no-any-return]

    def jacobian_gap(self, family: str, center: float, ratio: float) -> float:
        """One pass over a weighted column: ``D`` (:func:`partition_jacobian_gap`) summed
        over the partitions."""
        t = self.tasks
        task = t.delayed(partial(_checked_gap, family=family, center=center, ratio=ratio))
        return fsum(self._run(t.compute, *[task(*args) for args in self._args()]))

    def subsample(self, stride: int) -> HeldColumn:
        """Every ``stride``-th value of each partition, persisted where it was computed."""
        t = self.tasks
        task = t.delayed(_checked_every)
        kept = self._run(t.persist, *[task(p, lab, r, stride) for p, lab, r in
                                      zip(self.parts, self.labels, self.rows, strict=True)])
        return HeldColumn(self.name, tuple(kept), tuple(-(-r // stride) for r in self.rows),
                          self.labels, t, self.source or self.parts)


# ----------------------------------------------------------------------- the column fit
@dataclass
class ColumnFit:
    """One column's fit on a callback profile: lambda, its inference, the family chosen."""

    sol: Solution
    inf: dict[str, NDArray[np.float64]]
    family: str
    reason: str
    lmbda_used: float
    llf: float
    limits: tuple[float, float]
    nobs: int
    rounds: int  # evaluations spent finding lambda (every family tried, the ymax clip)
    value_range: tuple[float, float] = (np.nan, np.nan)  # the column's pooled extremes
    outer: bool = False  # value_range is only an outer bound on them (the paper's protocol)
    lmbda_free: float = np.nan  # the unconstrained maximum, where bounds= were given


def _infer(profile: CallbackProfile, sol: Solution,
           limits: NDArray[np.float64] | None = None) -> dict[str, NDArray[np.float64]]:
    """What the summary shows (SE, 95% interval, tests at 0 and 1) in a few more rounds; NaN
    when lambda did not converge. With ``limits`` ((1, 2): ``bounds=``), the core's bounded
    inference around the maximum on them."""
    if not sol.converged.all():
        return {"bse": np.full(profile.ncols, np.nan), "lower": np.full(profile.ncols, np.nan),
                "upper": np.full(profile.ncols, np.nan), "lr0": np.full(profile.ncols, np.nan),
                "lr1": np.full(profile.ncols, np.nan)}
    if limits is not None:
        return bounded_inference(profile, sol.lmbda, sol.nll, limits)
    return standard_inference(profile, sol.lmbda, sol.nll, slope=sol.slope)


Choose = Callable[[float | None, float], tuple[str, str]]


def fit_column(
    prepare: Callable[[str], CallbackProfile],
    family: str,
    value_range: tuple[float, float],
    nobs: int,
    *,
    optimizer: str = "score",
    grid: int = 1000,
    ymax: float | None = None,
    infer_prepare: Callable[[str], CallbackProfile] | None = None,
    bounds: NDArray[np.float64] | None = None,
    choose: Choose | None = None,
) -> ColumnFit:
    """Fit one column whose profile is evaluated remotely (federated rounds, partitions).

    ``prepare(f)`` readies the profile of family ``f`` (sends the frame, builds the task);
    ``family="auto"`` fits Yeo-Johnson and, for a positive column, Box-Cox, and keeps the
    family by ``choose(llf_boxcox, llf_yeojohnson)`` (``boxcoxstat.fit``'s rule,
    ``univariate.model.auto_family``, given by the caller). ``ymax`` clips lambda to the
    Lambert W bounds of the column's global range (:func:`~boxcoxstat.core.bounds.
    lambda_bounds`) and evaluates the NLL there in one more round. ``infer_prepare``
    readies the profile used for the inference rounds (default ``prepare``). ``bounds``
    ((1, 2), ``core.bounds.check_bounds``) restricts lambda to ``[lo, hi]`` as
    ``boxcoxstat.fit(bounds=)`` does: the core's bounded solution of every family tried
    (one more evaluation where a bound is active) and its bounded inference.
    """
    lo, hi = value_range
    fams = [family]
    if family == "auto":
        fams = ["yeojohnson"] + (["boxcox"] if lo > 0 else [])
    fits: dict[str, tuple[Solution, CallbackProfile]] = {}
    free: dict[str, float] = {}
    rounds = 0
    for f in fams:
        profile = prepare(f)
        sol = solve(profile, optimizer=optimizer, grid=grid)
        rounds += int(sol.nfev.max())
        free[f] = float(sol.lmbda[0])
        if bounds is not None:
            bounded = bounded_solution(profile, sol, bounds)
            rounds += int(bool(bounded.lmbda[0] != sol.lmbda[0]))
            sol = bounded
        fits[f] = (sol, profile)
    reason = ""
    chosen = fams[0]
    if family == "auto":
        if choose is None:
            raise TypeError("fit_column(family='auto') needs the rule: choose=")
        bc = fits.get("boxcox")
        chosen, reason = choose(None if bc is None else float(-bc[0].nll[0] + llf_constant(nobs)),
                                float(-fits["yeojohnson"][0].nll[0] + llf_constant(nobs)))
    sol, profile = fits[chosen]
    if infer_prepare is not None or chosen != fams[-1]:  # the clients hold the last frame
        profile = (infer_prepare or prepare)(chosen)
    lam = float(sol.lmbda[0])
    llf_used = float(-sol.nll[0] + llf_constant(nobs))
    limits = (-np.inf, np.inf)
    if ymax is not None:
        limits = lambda_bounds(np.array([lo, hi]), ymax, chosen)
        clipped = float(np.clip(lam, *limits))
        if clipped != lam:
            val, _ = profile.evaluate(np.array([clipped]), np.array([0]), score=False)
            lam, llf_used = clipped, float(-val[0] + llf_constant(nobs))
            rounds += 1
    return ColumnFit(sol, _infer(profile, sol, bounds), chosen, reason, lam, llf_used, limits,
                     nobs, rounds, (float(lo), float(hi)), lmbda_free=free[chosen])


# ----------------------------------------------------------------------- the driver
def new_tally() -> dict[str, int]:
    """The pass and round counts a partitioned fit reports (``federated``)."""
    return {"passes": 0, "rounds": 0, "evaluations": 0, "fit_rounds": 0,
            "subsample_rounds": 0}


@dataclass
class _Evaluate:
    """The profile's callback: one pass over ``col`` per call, whatever the number of
    lambdas. With case weights (``weighted = (n / W, D)``) the frequency-weighted NLL of
    the merged moments becomes ``lm(weights=)``'s: ``n/W NLL_f + (1 - lambda) D``."""

    col: Column
    frame: SampleFrame
    tally: dict[str, int]
    key: str
    weighted: tuple[float, float] | None = None

    def __call__(self, lam: NDArray, cols: NDArray | None = None, score: bool = True,
                 score_unit: NDArray | None = None) -> tuple[NDArray, NDArray]:
        lam = np.atleast_1d(np.asarray(lam, dtype=np.float64))
        sp, sn = self.frame.shifts(lam)
        out = self.col.moments(self.frame, tuple(lam.tolist()), sp, sn, score)
        self.tally[self.key] += 1
        if self.key == "rounds":
            self.tally["passes"] += 1
        self.tally["evaluations"] += lam.size
        val, sc = global_nll_score(out["pos"], out["neg"], lam, self.frame.unit, score_unit)
        if self.weighted is not None:
            ratio, gap = self.weighted
            unit = 1.0 if score_unit is None else np.asarray(score_unit, dtype=np.float64)
            val, sc = ratio * val + (1.0 - lam) * gap, ratio * sc - gap / unit
        return val, (sc if score else np.full_like(val, np.nan))


@dataclass(frozen=True)
class CaseWeights:
    """A column's case weights as the set-up pass totalled them over its rows of a value
    and a positive weight: ``n`` rows, ``total = W = sum w``, ``log_sum = sum log w``."""

    n: int
    total: float
    log_sum: float

    def llf_shift(self) -> float:
        """What turns ``llf_constant(n) - NLL`` into R's ``logLik`` of the weighted ``lm``
        (with the Jacobian): ``sum log w / 2 - n/2 log(W / n)``."""
        return 0.5 * self.log_sum - 0.5 * self.n * float(np.log(self.total / self.n))


class _Weighted(Protocol):
    def jacobian_gap(self, family: str, center: float, ratio: float) -> float: ...


@dataclass(frozen=True)
class HeldSample:
    """A column to fit: its :class:`Column` and what the set-up pass found (values >= 0
    and < 0: counts and ranges; all: the extremes); with case ``weights`` (its column a
    :class:`HeldColumn` with the weights' partitions) ``n`` counts the rows of positive
    weight."""

    column: Column
    n: int
    pos: tuple[float, float] | None
    neg: tuple[float, float] | None
    lo: float
    hi: float
    weights: CaseWeights | None = None


@dataclass
class _Prepare:
    """``prepare(f)`` of :func:`fit_column` for a held sample: the frame of family ``f``
    from the global ranges and the profile (with the subsample start of a long column,
    extracted once for every family tried). With case weights: no subsample start (every
    evaluation reads the data and the weights) and one pass per family for ``D``
    (Jacobian's difference, :func:`partition_jacobian_gap`)."""

    sample: HeldSample
    tally: dict[str, int]
    optimizer: str
    kept: list[Column] = field(default_factory=list)
    gaps: dict[str, float] = field(default_factory=dict)

    def _weighted(self, f: str) -> tuple[float, float]:
        s = self.sample
        assert s.weights is not None
        ratio = s.n / s.weights.total
        if f not in self.gaps:
            center = 0.5 * (np.log(s.lo) + np.log(s.hi)) if f == "boxcox" else 0.0
            self.gaps[f] = cast(_Weighted, s.column).jacobian_gap(f, float(center), ratio)
            self.tally["passes"] += 1
        return ratio, self.gaps[f]

    def __call__(self, f: str) -> CallbackProfile:
        s = self.sample
        frame = SampleFrame.from_ranges(f, s.pos, s.neg)
        unit, reach = np.array([frame.unit]), np.array([frame.reach()])
        if s.weights is not None:
            return CallbackProfile(_Evaluate(s.column, frame, self.tally, "rounds",
                                             self._weighted(f)),
                                   np.array([float(s.n)]), unit=unit, reach=reach)
        sub = None
        if s.n > SUBSAMPLE_FROM and self.optimizer == "score":
            stride = subsample_stride(s.n)
            if not self.kept:
                self.kept.append(s.column.subsample(stride))
                self.tally["passes"] += 1  # reading every partition to keep its subsample
            sub = CallbackProfile(_Evaluate(self.kept[0], frame, self.tally,
                                            "subsample_rounds"),
                                  np.array([max(1.0, s.n / stride)]), unit=unit, reach=reach)
        return CallbackProfile(_Evaluate(s.column, frame, self.tally, "rounds"),
                               np.array([float(s.n)]), sub, unit=unit, reach=reach)


def fit_samples(samples: Sequence[HeldSample], family: str, tally: dict[str, int], *,
                optimizer: str = "score", grid: int = 1000, ymax: float | None = None,
                bounds: NDArray[np.float64] | None = None, choose: Choose | None = None
                ) -> list[ColumnFit]:
    """Fit lambda for every held sample (validated: the gate has checked the set-up
    reports), counting passes and rounds in ``tally`` (:func:`new_tally`). ``bounds``:
    (p, 2), one row per sample."""
    fits = []
    for j, s in enumerate(samples):
        fit = fit_column(_Prepare(s, tally, optimizer), family, (s.lo, s.hi), s.n,
                         optimizer=optimizer, grid=grid, ymax=ymax, choose=choose,
                         bounds=None if bounds is None else bounds[j : j + 1])
        tally["fit_rounds"] += fit.rounds
        if s.weights is not None:
            fit = replace(fit, llf=fit.llf + s.weights.llf_shift())
        fits.append(fit)
    return fits


def fit_held(columns: Sequence[Any], tasks: Tasks, family: str, tally: dict[str, int], *,
             optimizer: str = "score", grid: int = 1000, ymax: float | None = None,
             bounds: NDArray[np.float64] | None = None, choose: Choose | None = None
             ) -> list[ColumnFit]:
    """:func:`fit_samples` of columns the gate has read from a partitioned collection (any
    records with the fields ``name``, ``parts``, ``rows``, ``labels``, ``n``, ``pos``,
    ``neg``, ``lo``, ``hi``; with case weights also ``weights``, the weights' partitions,
    and their totals ``n_w``, ``w_total``, ``w_log``), each pass run through ``tasks``.

    Examples
    --------
    >>> import numpy as np, dask
    >>> from types import SimpleNamespace
    >>> from boxcoxstat.core.partitioned import Tasks, fit_held, new_tally
    >>> x = np.random.default_rng(0).lognormal(size=3000)
    >>> parts = [dask.delayed(p) for p in np.array_split(x, 3)]
    >>> col = SimpleNamespace(name="x", parts=parts, rows=(1000, 1000, 1000),
    ...                       labels=("p0", "p1", "p2"), n=3000, pos=(x.min(), x.max()),
    ...                       neg=None, lo=x.min(), hi=x.max())
    >>> tally = new_tally()
    >>> (fit,) = fit_held([col], Tasks(dask.delayed, dask.compute, dask.persist), "boxcox",
    ...                   tally)
    >>> import boxcoxstat as bcs
    >>> bool(abs(fit.sol.lmbda[0] - bcs.fit(x).lmbda) < 1e-12), tally["rounds"] > 0
    (True, True)
    """
    samples = []
    for c in columns:
        weights = getattr(c, "weights", None)
        held = HeldColumn(c.name, tuple(c.parts), tuple(c.rows), tuple(c.labels), tasks,
                          weights=None if weights is None else tuple(weights))
        case = None if weights is None else CaseWeights(c.n_w, c.w_total, c.w_log)
        samples.append(HeldSample(held, c.n if case is None else case.n, c.pos, c.neg,
                                  c.lo, c.hi, case))
    return fit_samples(samples, family, tally, optimizer=optimizer, grid=grid, ymax=ymax,
                       bounds=bounds, choose=choose)


# ----------------------------------------------------------------------- for the result
@dataclass(frozen=True)
class FitTable:
    """The column fits side by side, as the result stores them, and the warnings they call
    for (message, category): lambda that did not converge, a power that loses the data's
    resolution."""

    families: tuple[str, ...]
    lmbda: NDArray[np.float64]
    nll: NDArray[np.float64]
    converged: NDArray[np.bool_]
    nobs: NDArray[np.int64]
    inference: dict[str, NDArray[np.float64]]
    lmbda_used: list[float]
    llf: list[float]
    reasons: tuple[str, ...]
    limits: NDArray[np.float64]
    lmbda_free: NDArray[np.float64]
    warnings: list[tuple[str, type[Warning]]]


def held_table(fits: Sequence[ColumnFit], names: Sequence[str], clients: int, optimizer: str,
               tally: dict[str, Any], weighted: bool) -> tuple[FitTable, dict[str, Any]]:
    """The :class:`FitTable` of a fit of partitioned data and the record kept with its result
    (``federated``: the partitions, the optimizer, the tally of rounds and passes, whether
    case-weighted)."""
    info = {"clients": clients, "unit": "partitions", "dropped": {}, "optimizer": optimizer,
            **tally}
    if weighted:
        info["weighted"] = True
    return fit_table(fits, names), info


def fit_table(fits: Sequence[ColumnFit], names: Sequence[str]) -> FitTable:
    """The :class:`FitTable` of ``fits`` (one per column of ``names``)."""
    conv = np.concatenate([f.sol.converged for f in fits])
    out: list[tuple[str, type[Warning]]] = []
    if not conv.all():
        bad = [names[int(j)] for j in np.flatnonzero(~conv)]
        out.append((f"lambda did not converge for column(s) {bad}", RuntimeWarning))
    for f, name in zip(fits, names, strict=True):
        remedy = ("use a rounded power (result.at('rounded')), or subtract an offset from the "
                  "data before fitting")
        if f.outer:
            remedy = ("no client shared its extremes: the range checked is the one the first "
                      "round's moments prove (Samuelson's inequality), wider than the data, "
                      "so the loss may be smaller; " + remedy)
        for text in range_messages([f.value_range[0]], [f.value_range[1]], [f.lmbda_used],
                                   [f.family], [name], remedy):
            out.append((text, ResolutionWarning))
    return FitTable(
        families=tuple(f.family for f in fits),
        lmbda=np.concatenate([f.sol.lmbda for f in fits]),
        nll=np.concatenate([f.sol.nll for f in fits]), converged=conv,
        nobs=np.asarray([f.nobs for f in fits], dtype=np.int64),
        inference={k: np.concatenate([f.inf[k] for f in fits]) for k in fits[0].inf},
        lmbda_used=[f.lmbda_used for f in fits], llf=[f.llf for f in fits],
        reasons=tuple(f.reason for f in fits),
        limits=np.array([f.limits for f in fits], dtype=np.float64).reshape(-1, 2),
        lmbda_free=np.array([f.lmbda_free for f in fits]), warnings=out)
