"""Case weights for ``boxcoxstat.fit`` on Spark input: ``lm(x ~ 1, weights=w)``'s likelihood.

Spark's weighted fit (:mod:`~boxcoxstat.federated.sparkfit`) runs these passes; Dask's
weighted fit no longer does (its gate reads the weights and the core's
:mod:`~boxcoxstat.core.partitioned` merges them, the same arithmetic). The partitions'
moments merge with weights as frequency weights (the profile
``NLL_f = (1 - lambda) J_w + W/2 log Var_w``, ``W = sum w``,
``J_w = sum w L``, ``L = sign(x) log b``); the likelihood of ``lm(x ~ 1, weights=w)`` (car's
``powerTransform`` of it, and ``bcs.fit(x, weights=w)`` in memory) has the variance weighted
and the Jacobian not, over the ``n`` rows of positive weight:

.. math::

    \\mathrm{NLL}(\\lambda) = (1 - \\lambda) J_1 + \\tfrac n2 \\log \\mathrm{Var}_w
    = \\tfrac nW \\mathrm{NLL}_f(\\lambda) + (1 - \\lambda) D, \\qquad
    D = J_1 - \\tfrac nW J_w = \\sum_i \\Bigl(1 - \\tfrac{n w_i}{W}\\Bigr) L_i ,

so one more pass (``n``, ``W``, ``sum log w``, then ``D`` per family, each a sum over the
partitions, with the Box-Cox logs taken relative to the geometric middle of the column's
range, which ``sum (1 - n w_i / W) = 0`` allows) turns the merged moments into the exact
weighted profile. ``llf`` adds ``sum log w / 2 - n/2 (log 2 pi + 1) - n/2 log(W / n)``, R's
``logLik`` of the weighted ``lm`` with the Jacobian.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._validation.columns import BoxCoxError
from ..core.profile import CallbackProfile
from ..univariate.results import PowerTransformResult
from .protocol import GlobalFrame, global_nll_score, local_sides

__all__ = ["WeightedColumn", "fit_weighted", "merge_sums"]


def _box(obj: Any) -> NDArray[np.object_]:
    out = np.empty((1,), dtype=object)
    out[0] = obj
    return out


def _rows(x: NDArray, w: NDArray) -> tuple[NDArray, NDArray]:
    """A partition's present rows of positive weight (x and w); bad weights refused."""
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    w = np.asarray(w, dtype=np.float64).reshape(-1)
    if w.size != x.size:
        raise BoxCoxError(f"a partition holds {x.size} values and {w.size} weights; give the "
                          "weights the data's partitions")
    present = np.isfinite(x)
    bad = present & ~np.isfinite(w)
    if bad.any():
        raise BoxCoxError("weights must be finite: a row with a value has weight "
                          f"{float(w[bad][0])}")
    if np.any(w[present] < 0):
        raise BoxCoxError(f"weights must be >= 0: a row has {float(np.min(w[present])):g}")
    keep = present & (w > 0)
    return x[keep], w[keep]


def _totals_chunk(x: NDArray, w: NDArray) -> NDArray:
    xs, ws = _rows(x, w)
    return _box({"n": int(xs.size), "W": float(ws.sum()), "logw": float(np.log(ws).sum())})


def _jac(x: NDArray, family: str, center: float) -> NDArray:
    if family == "boxcox":
        return np.log(x) - center
    return np.sign(x) * np.log1p(np.abs(x))


def _d_chunk(x: NDArray, w: NDArray, *, ratio: float, family: str, center: float
             ) -> NDArray:
    xs, ws = _rows(x, w)
    return _box({"D": float(np.sum((1.0 - ratio * ws) * _jac(xs, family, center)))})


def _moments_chunk(x: NDArray, w: NDArray, *, frame: GlobalFrame, lmbda: tuple[float, ...],
                   shift_pos: tuple[float, ...], shift_neg: tuple[float, ...], score: bool
                   ) -> NDArray:
    from dataclasses import replace

    xs, ws = _rows(x, w)
    sides = local_sides(xs, frame)
    weighted: list[Any] = []
    for side, mask in ((sides[0], xs >= 0 if frame.family != "boxcox" else None),
                       (sides[1], xs < 0)):
        if side is None:
            weighted.append(None)
            continue
        ww = ws if mask is None else ws[mask]
        weighted.append(replace(side, w=ww.reshape(-1, 1)))
    pm, nm = frame.moments((weighted[0], weighted[1]), np.asarray(lmbda), shift_pos,
                           shift_neg, score)
    return _box({"pos": pm, "neg": nm})


def merge_sums(parts: list[dict]) -> dict:
    """Partition totals (``n``, ``W``, ``sum log w``, ``D``) merged: their sums."""
    return {k: sum(p[k] for p in parts) for k in parts[0]}


class WeightedColumn:
    """One column of a partitioned fit with case weights: the totals, ``D`` per family, and
    the weighted profile as a callback (one pass per evaluation). ``run(func, moments,
    **kw)`` is the backend's pass: ``func(x, w, **kw)`` (a boxed dict) on every partition,
    merged by sums or, with ``moments``, as side moments (Spark's ``mapInArrow`` job in
    :mod:`~boxcoxstat.federated.sparkfit`)."""

    def __init__(self, run: Any, name: str, rep: dict, tally: dict):
        self.run, self.name, self.rep, self.tally = run, name, rep, tally
        tot = run(_totals_chunk, False)
        if tot["n"] == 0:
            raise BoxCoxError(f"column {name!r}: all weights are zero (or every weighted row "
                              "is missing)")
        if tot["n"] < 3:
            raise BoxCoxError(f"column {name!r}: only {tot['n']} value(s) have a positive "
                              "weight; a power needs at least 3")
        self.n, self.W, self.logw = int(tot["n"]), float(tot["W"]), float(tot["logw"])
        self._d: dict[str, float] = {}

    def d(self, family: str) -> float:
        """``D = sum (1 - n w_i / W) L_i`` for ``family`` (one pass, cached)."""
        if family not in self._d:
            lo, hi = self.rep["report"].lo, self.rep["report"].hi
            center = 0.5 * (np.log(lo) + np.log(hi)) if family == "boxcox" else 0.0
            out = self.run(_d_chunk, False, ratio=self.n / self.W, family=family,
                           center=float(center))
            self._d[family] = float(out["D"])
        return self._d[family]

    def llf_shift(self) -> float:
        """What turns ``llf_constant(n) - NLL`` into R's weighted ``logLik`` (+ Jacobian)."""
        return 0.5 * self.logw - 0.5 * self.n * np.log(self.W / self.n)

    def profile(self, family: str, frame: GlobalFrame) -> CallbackProfile:
        """The weighted profile of ``family`` in ``frame``: a pass per evaluation."""
        d, ratio = self.d(family), self.n / self.W

        def evaluate(lam: NDArray, cols: NDArray | None = None, score: bool = True,
                     score_unit: NDArray | None = None):
            lam = np.atleast_1d(np.asarray(lam, dtype=np.float64))
            req = frame.request(lam.tolist(), score)
            out = self.run(_moments_chunk, True, frame=frame, lmbda=req.lmbda,
                           shift_pos=req.shift_pos, shift_neg=req.shift_neg, score=score)
            self.tally["rounds"] += 1
            self.tally["passes"] = self.tally.get("passes", 0) + 1
            self.tally["evaluations"] += lam.size
            val, sc = global_nll_score(out["pos"], out["neg"], lam, frame.unit, score_unit)
            val = ratio * val + (1.0 - lam) * d
            su = 1.0 if score_unit is None else np.asarray(score_unit, dtype=np.float64)
            sc = ratio * sc - d / su
            return val, (sc if score else np.full_like(val, np.nan))

        return CallbackProfile(evaluate, np.array([float(self.n)]),
                               unit=np.array([frame.unit]), reach=np.array([frame.reach()]))


def fit_weighted(columns: list[tuple[dict, Any]], names: list[str], kind: str, clients: int,
                 tally: dict, *, family: str, missing: str, ymax: float | None,
                 optimizer: str, grid: int, limits: NDArray[np.float64] | None
                 ) -> PowerTransformResult:
    """The weighted fit of partitioned columns, one per ``(report, run)`` pair (the merged
    set-up report and the backend's pass, see :class:`WeightedColumn`): the gate's checks,
    the totals pass, ``D``'s pass per family, one pass per evaluation of the weighted
    profile; the core's solver and (bounded) inference do the rest."""
    from dataclasses import replace

    from .._validation.columns import check_column
    from .model import build_result, fit_column

    fits, n_missing = [], []
    for j, ((rep, run), name) in enumerate(zip(columns, names, strict=True)):
        check_column(rep["report"], name, family=family, missing=missing, tiny_scale=True)
        wc = WeightedColumn(run, name, rep, tally)

        def weighted(f: str, rep: dict = rep, wc: WeightedColumn = wc) -> CallbackProfile:
            return wc.profile(f, GlobalFrame.from_ranges(f, rep["pos"], rep["neg"]))

        lo, hi = rep["report"].lo, rep["report"].hi
        fit = fit_column(weighted, family, (lo, hi), wc.n, optimizer=optimizer, grid=grid,
                         ymax=ymax, bounds=None if limits is None else limits[j : j + 1])
        fits.append(replace(fit, llf=fit.llf + wc.llf_shift()))
        tally["fit_rounds"] += fit.rounds
        n_missing.append(rep["report"].n_missing)
    info = {"clients": int(clients), "unit": "partitions", "dropped": {},
            "optimizer": optimizer, **tally}
    return replace(build_result(names, kind, family, fits, n_missing, info, ymax, limits),
                   _weighted=True)
