"""The robust estimators' likelihood computations, on the core's stable likelihood.

Every likelihood a robust estimator needs is the core's profile NLL
(:mod:`boxcoxstat.core.likelihood`) of some rows of the sorted data, so it never overflows and
never forms ``E[y^2] - E[y]^2`` (DESIGN, numerical rules 1 and 3):

* :class:`RetainedNLL` -- the NLL of the rows RewML keeps (weight 1) in a reweighting step,
  a :class:`~boxcoxstat.core.profile.SampleProfile` of those rows;
* :class:`WindowNLL` -- MTL's trimmed likelihood: the NLL of every window of ``h`` consecutive
  order statistics, from the core's mergeable moments (Chan, Golub & LeVeque 1982) accumulated
  outward from a position that every window contains, and the core's ``nll_score_from_moments``;
* :class:`LogScale` -- ``log`` of the Huber scale of the transformed data and the sum of
  Huber's rho of the standardized values (Carroll's estimator), from the data on the core's
  scale.

References
----------
Raymaekers, J. and Rousseeuw, P. J. (2021). Transforming variables to central normality.
Machine Learning 113, 4953-4975.
Xu, X. and Cormode, G. (2025). Power transform revisited: numerically stable, and federated.
Chan, T. F., Golub, G. H. and LeVeque, R. J. (1982). Updating formulae and a pairwise algorithm
for computing sample variances. COMPSTAT 1982, 30-41.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import families as fam
from .._special import exprel
from ..core.kernel import BLOCK_ELEMENTS, WIDE
from ..core.likelihood import (
    SideMoments,
    choose_shift,
    merge_moments,
    nll_score_from_moments,
    side_moments,
)
from ..core.profile import SampleProfile
from ..core.sample import Sample, Side

__all__ = ["RetainedNLL", "WindowNLL", "LogScale", "scaled_side"]


# --------------------------------------------------------------------------- RewML's ML steps
@dataclass(frozen=True)
class RetainedNLL:
    """The profile NLL of each column's retained rows (RewML's reweighted ML steps).

    Built once per reweighting step from the sorted columns and their 0/1 weights; called as
    ``f(lmbda, idx)`` by :func:`~boxcoxstat.robust._rfmin.fmin`. The NLL is the core's
    (``SampleProfile.evaluate``), which equals ``-l(lambda; S)`` of RewML_SPEC section 4.4:
    ``(m/2) log var + (1 - lambda) sum J`` over the retained set ``S``.

    A rejected point has exactly no influence: a column's profile holds only its retained
    values, in sorted order, and its arithmetic does not depend on the other columns. The
    columns are evaluated in fixed chunks of two to ``WIDE - 1`` columns (a single column is
    duplicated), each narrow enough that the core sums every column along its own row in one
    block, and every call
    evaluates whole chunks; so NumPy adds each column's rows one after another in the same
    order whatever else is in the batch, and a column gives the same bits fitted alone or
    with others (the redescending sensitivity curve is exactly 0).

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.robust.likelihood import RetainedNLL
    >>> xs = np.sort(np.random.default_rng(0).lognormal(size=(30, 2)), axis=0)
    >>> keep = np.ones(xs.shape, dtype=bool)
    >>> keep[-1, 0] = False                       # drop the largest value of column 0
    >>> f = RetainedNLL.build(xs, keep, "boxcox")
    >>> alone = RetainedNLL.build(xs[:-1, :1], keep[:-1, :1], "boxcox")
    >>> bool(f(np.array([0.3]), np.array([0]))[0] == alone(np.array([0.3]), np.array([0]))[0])
    True
    """

    chunks: tuple[tuple[NDArray[np.intp], SampleProfile], ...]
    ncols: int

    @classmethod
    def build(cls, xs: NDArray[np.float64], keep: NDArray[np.bool_], family: str
              ) -> RetainedNLL:
        """From sorted columns ``xs`` (n, p) and the rows to keep (n, p)."""
        n, p = xs.shape
        counts = keep.sum(axis=0)
        order = np.argsort(~keep, axis=0, kind="stable")  # kept rows first, still sorted
        kept = np.take_along_axis(xs, order, axis=0)
        kept[np.arange(n)[:, None] >= counts] = np.nan  # NaN = not in the profile
        # fewer than WIDE columns: the core sums each column along its own contiguous row,
        # whatever the other columns are (at WIDE and more it sums across columns, in an order
        # that depends on the batch)
        width = max(2, min(WIDE - 1, BLOCK_ELEMENTS // max(1, int(counts.max()))))
        chunks = []
        for start in range(0, p, width):
            cols = np.arange(start, min(start + width, p))
            mat = kept[: max(1, int(counts[cols].max())), cols]  # a row even if none is kept
            if cols.size == 1:
                mat = np.repeat(mat, 2, axis=1)
            chunks.append((cols, SampleProfile.from_array(np.ascontiguousarray(mat), family)))
        return cls(tuple(chunks), p)

    def __call__(self, lmbda: NDArray[np.float64], idx: NDArray[np.intp]
                 ) -> NDArray[np.float64]:
        """NLL of columns ``idx`` at ``lmbda`` (whole chunks are evaluated, see above)."""
        lam = np.ones(self.ncols)
        lam[idx] = lmbda
        wanted = np.zeros(self.ncols, dtype=bool)
        wanted[idx] = True
        out = np.full(self.ncols, np.nan)
        for cols, profile in self.chunks:
            if not wanted[cols].any():
                continue
            at = lam[cols] if cols.size > 1 else np.repeat(lam[cols], 2)
            with np.errstate(invalid="ignore"):  # nothing kept: NaN, which fmin maps as R
                val, _ = profile.evaluate(at, np.arange(at.size), score=False)
            out[cols] = val[: cols.size]
        return out[idx]


# --------------------------------------------------------------------------- the core's scale
def scaled_side(side: Side, kappa: NDArray[np.float64], shift: NDArray[np.float64] | None = None
                ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """A side's transformed values on the core's scale: ``phi``, the shift and the log scale.

    In the core's frame (``d = v - shift``; ``shift`` from
    :func:`~boxcoxstat.core.likelihood.choose_shift` unless given), ``phi = expm1(kappa d) /
    kappa`` and ``psi = +-(exp(log_scale) phi) + const`` with ``log_scale = kappa (log_ref +
    shift)`` (Xu & Cormode 2025, section 4; ``+-``: minus on the Yeo-Johnson x < 0 side).
    """
    shift = choose_shift(side, kappa) if shift is None else shift
    d = side.v - shift
    with np.errstate(over="ignore", invalid="ignore"):
        phi = d * exprel(kappa * d)
    return phi, shift, kappa * (side.log_ref + shift)


# --------------------------------------------------------------------------- Carroll's scale
_BIG = float(np.exp(700.0))  # far values are held here: a Huber estimate does not see beyond


@dataclass(frozen=True)
class LogScale:
    """``log scale(psi(lmbda_j, x_j))`` per column, and a statistic of the standardized
    values ``(psi - loc)/scale``, for a location-invariant, scale-equivariant pair
    ``(loc, scale)`` that gives far values bounded influence (Carroll's Huber estimates);
    ``psi`` is never formed.

    ``stat(values)`` returns ``(loc, scale)`` per column, ``extra(z)`` (optional) a value per
    column of the standardized values ``z = (values - loc)/scale``, which do not depend on
    the frame the values are in (Carroll's ``sum rho(z)``). The scale is taken of values on
    which the central data keep every digit: columns whose data lie on one side (every
    Box-Cox column; Yeo-Johnson columns of one sign) use the core's log-ratios to the median,
    ``scale(psi) = exp(kappa log_ref) scale(phi)`` with ``phi = expm1(kappa v)/kappa``
    (:func:`scaled_side` with no shift); mixed-sign Yeo-Johnson columns use
    ``sign(psi) exp(log|psi| - L)``, ``L`` the median of ``log|psi|`` (a scaled, not shifted,
    transform: DESIGN, numerical rule 1). Values that would overflow are held at +-exp(700):
    for a Huber estimate a value that far out counts the same wherever it lies (``extra`` of
    such a column is then huge or infinite, which the optimizer reads as "not here").

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.robust.likelihood import LogScale
    >>> x = np.array([[1.0], [2.0], [4.0], [8.0]])
    >>> def med_mad(y):
    ...     med = np.median(y, 0)
    ...     return med, np.median(np.abs(y - med), 0)
    >>> f = LogScale.build(x, "boxcox", med_mad)
    >>> bool(400 * np.log(8.0) > np.log(np.finfo(float).max))  # psi = (x**400 - 1)/400 overflows
    True
    >>> log_mad, _ = f(np.array([400.0]), np.array([0]))
    >>> round(float(log_mad[0]), 4)  # log MAD(psi), as mpmath gives
    547.8331
    """

    family: str
    stat: Callable[[NDArray[np.float64]], tuple[NDArray[np.float64], NDArray[np.float64]]]
    x: NDArray[np.float64]
    group: NDArray[np.intp]  # 0: one side (positive), 1: all negative (YJ), 2: mixed (YJ)
    sides: tuple[Side | None, Side | None]
    extra: Callable[[NDArray[np.float64]], NDArray[np.float64]] | None = None

    @classmethod
    def build(cls, xs: NDArray[np.float64], family: str,
              stat: Callable[[NDArray[np.float64]],
                             tuple[NDArray[np.float64], NDArray[np.float64]]],
              extra: Callable[[NDArray[np.float64]], NDArray[np.float64]] | None = None
              ) -> LogScale:
        """From complete columns ``xs`` (n, p), the columnwise ``stat`` and ``extra``."""
        n, p = xs.shape
        group = np.zeros(p, dtype=np.intp)
        if family == "yeojohnson":
            neg = (xs < 0).sum(axis=0)
            group = np.where(neg == 0, 0, np.where(neg == n, 1, 2))
        sides: list[Side | None] = []
        for g, negative in ((0, False), (1, True)):
            sel = group == g
            sample = Sample.from_array(xs[:, sel], family) if sel.any() else None
            sides.append(None if sample is None else (sample.neg if negative else sample.pos))
        return cls(family, stat, xs, group, (sides[0], sides[1]), extra)

    def _measure(self, values: NDArray[np.float64]) -> tuple[NDArray, NDArray]:
        loc, scale = self.stat(values)
        if self.extra is None:
            return np.log(scale), np.zeros(scale.shape)
        return np.log(scale), self.extra((values - loc) / scale)

    def __call__(self, lmbda: NDArray[np.float64], idx: NDArray[np.intp]
                 ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The log scale of columns ``idx`` at ``lmbda`` and ``extra`` (one value each)."""
        lam = np.asarray(lmbda, dtype=np.float64)
        out = np.empty(lam.size)
        more = np.zeros(lam.size)
        grp = self.group[idx]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            for g, side in enumerate(self.sides):
                at = grp == g
                if side is None or not at.any():
                    continue
                within = np.searchsorted(np.flatnonzero(self.group == g), idx[at])
                kappa = 2.0 - lam[at] if side.negative else lam[at]
                phi, _, log_scale = scaled_side(side.columns(within), kappa,
                                                np.zeros(kappa.size))
                log_s, more[at] = self._measure(np.clip(phi, -_BIG, _BIG))
                out[at] = log_scale + log_s
            at = grp == 2
            if at.any():
                x = self.x[:, idx[at]]
                lab = fam.log_abs_unchecked(x, lam[at], self.family)
                mid = np.median(lab, axis=0)
                vals = np.sign(x) * np.exp(np.minimum(lab - mid, 700.0))
                log_s, more[at] = self._measure(vals)
                out[at] = mid + log_s
        return out, more


# --------------------------------------------------------------------------- MTL's windows
_ARRAYS = tuple(f.name for f in fields(SideMoments) if f.name != "negative")
_GRID_ELEMENTS = 1 << 18  # data values (rows x columns x lambdas) per batch of a lambda grid
_PLATEAU = 15.0  # kappa * v below -15: exp(kappa v) < 3e-7 of phi's scale (see _own_frames)


def _rows(m: SideMoments, sel: Any) -> SideMoments:
    out: dict[str, Any] = {k: getattr(m, k)[sel] for k in _ARRAYS}
    return replace(m, **out)


def _stack(a: SideMoments, b: SideMoments) -> SideMoments:
    out: dict[str, Any] = {k: np.concatenate([getattr(a, k), getattr(b, k)]) for k in _ARRAYS}
    return replace(a, **out)


def _cumulative(m: SideMoments) -> SideMoments:
    """Running merge along the first axis: entry ``k`` holds the moments of rows ``0..k``.

    A parallel prefix scan (Hillis & Steele): ``log2(k)`` rounds of Chan's merge over whole
    arrays, so the moments of every prefix are as accurate as a two-pass computation.
    """
    step = 1
    rows = m.W.shape[0]
    while step < rows:
        m = _stack(_rows(m, slice(None, step)),
                   merge_moments(_rows(m, slice(None, -step)), _rows(m, slice(step, None))))
        step *= 2
    return m


def _take(m: SideMoments, rows: NDArray[np.intp], valid: NDArray[np.bool_]) -> SideMoments:
    """Per-row moments (one row each) gathered at side rows ``rows`` (k, p); empty where not
    ``valid``. The frame (``log_ref``, ``shift``, ``kappa``) is the same on every row."""
    out: dict[str, Any] = {}
    for k in _ARRAYS:
        if k in ("log_ref", "shift", "kappa"):
            out[k] = np.broadcast_to(getattr(m, k)[0], rows.shape)
        else:
            val = np.take_along_axis(getattr(m, k), np.where(valid, rows, 0), axis=0)
            out[k] = np.where(valid, val, 0.0)
    return replace(m, **out)


@dataclass(frozen=True)
class WindowNLL:
    """The profile NLL of every window of ``h`` consecutive order statistics (MTL).

    Van der Veeken (2010) as described by Raymaekers & Rousseeuw (2021, section 2.5): for a
    given lambda, the ML criterion of each subset of ``h`` consecutive observations of the
    sorted data. Every window ``[s, s + h)``, ``s = 0..n-h``, contains the positions
    ``n-h .. h-1`` (``h > n/2``), so on each side of the data (one for Box-Cox, two for mixed
    Yeo-Johnson) a window's rows are a common block plus rows accumulated outward from it.
    Their moments (the core's, in the core's frame) are merged, never differenced, and the
    window's NLL is the core's :func:`~boxcoxstat.core.likelihood.nll_score_from_moments`.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.core.likelihood import nll
    >>> from boxcoxstat.robust.likelihood import WindowNLL
    >>> xs = np.sort(np.random.default_rng(1).lognormal(size=12))[:, None]
    >>> val, start = WindowNLL.build(xs, "boxcox", 10).best(np.array([0.5]))
    >>> direct = min(float(nll(xs[s:s + 10, 0], 0.5)) for s in range(3))
    >>> bool(np.isclose(val[0], direct, rtol=1e-13))
    True
    """

    sample: Sample
    lo: tuple[NDArray[np.intp], ...]  # per side: sorted position of the side's first row
    hi: tuple[NDArray[np.intp], ...]  # per side: one past its last row
    n: int
    h: int

    @classmethod
    def build(cls, xs: NDArray[np.float64], family: str, h: int) -> WindowNLL:
        """From sorted complete columns ``xs`` (n, p) and the window length ``h`` (> n/2)."""
        n, p = xs.shape
        sample = Sample.from_array(xs, family)
        if family == "boxcox":
            return cls(sample, (np.zeros(p, np.intp),), (np.full(p, n, np.intp),), n, h)
        nneg = (xs < 0).sum(axis=0).astype(np.intp)
        lo = tuple(b for s, b in ((sample.pos, nneg), (sample.neg, np.zeros(p, np.intp)))
                   if s is not None)
        hi = tuple(b for s, b in ((sample.pos, np.full(p, n, np.intp)), (sample.neg, nneg))
                   if s is not None)
        return cls(sample, lo, hi, n, h)

    def _side_windows(self, side: Side, lo: NDArray, hi: NDArray, kappa: NDArray
                      ) -> SideMoments:
        """Moments of each window's rows on one side: fields of shape (n - h + 1, p).

        Merged from outward-accumulated parts in the side's frame; a column where that frame
        would lose a window's digits (see :meth:`_own_frames`) is computed window by window.
        """
        c = self.n - self.h
        phi, shift, _ = scaled_side(side, kappa)
        shape = phi.shape
        on = np.ones(shape) if side.w is None else side.w
        nan = np.full(shape, np.nan)  # no score: chi's moments are not needed
        per_row = SideMoments(
            on, on * side.v, on * (side.v - shift), on * phi, np.zeros(shape), nan, nan,
            np.broadcast_to(side.log_ref, shape), np.broadcast_to(shift, shape),
            np.broadcast_to(kappa, shape), side.negative,
        )
        q = np.clip(c, lo, hi)          # a(s) <= q <= top <= b(s) for every window s
        top = np.clip(self.h, lo, hi)
        pos = np.arange(shape[0])[:, None] + lo  # sorted position of each side row
        block = replace(side, w=((pos >= q) & (pos < top)).astype(np.float64))
        base = side_moments(block, kappa, shift=shift, score=False)
        k = np.arange(1, c + 1)[:, None]
        none = np.zeros((1, shape[1]), dtype=np.intp)
        empty = _take(per_row, none, none.astype(bool))
        left = _stack(empty, _cumulative(_take(per_row, q - k - lo, q - k >= lo)))
        right = _stack(empty, _cumulative(_take(per_row, top + k - 1 - lo, top + k - 1 < hi)))
        s = np.arange(c + 1)[:, None]
        cols = np.arange(shape[1])
        at_left = (q - np.clip(s, lo, hi), cols)             # rows [a(s), q)
        at_right = (np.clip(s + self.h, lo, hi) - top, cols)  # rows [top, b(s))
        wide: dict[str, Any] = {f: np.broadcast_to(getattr(base, f), (c + 1, shape[1]))
                                for f in _ARRAYS}
        mid = replace(base, **wide)
        with np.errstate(all="ignore"):
            out = merge_moments(_rows(left, at_left), merge_moments(mid, _rows(right, at_right)))
        own = self._own_frames(side, lo, hi, kappa, shift, q, top)
        if own.any():
            part = self._windows_one_by_one(side, lo[own], hi[own], kappa[own], own)
            fixed: dict[str, Any] = {}
            for f in _ARRAYS:
                arr = np.array(np.broadcast_to(getattr(out, f), (c + 1, shape[1])))
                arr[:, own] = getattr(part, f)
                fixed[f] = arr
            out = replace(out, **fixed)
        return out

    def _own_frames(self, side: Side, lo: NDArray, hi: NDArray, kappa: NDArray,
                    shift: NDArray, q: NDArray, top: NDArray) -> NDArray[np.bool_]:
        """Columns whose windows need frames of their own.

        The side's frame keeps the digits of values near its reference (or, shifted, near
        the side's extreme); values far on the other side sit on the plateau
        ``phi ~ -1/kappa`` with ``exp(kappa d)`` of their detail. A window whose part of the
        side lies wholly on that plateau loses its variance. That happens when the side is
        shifted (a window may miss the extreme), or when the part of the window ending
        lowest (``kappa > 0``; starting highest for ``kappa < 0``) has ``kappa v`` below
        ``-_PLATEAU``. Box-Cox windows all contain the reference (the median), so only the
        shift applies to them.
        """
        rows = side.v.shape[0]

        def v_at(position: NDArray) -> NDArray:
            return np.take_along_axis(side.v, np.clip(position - lo, 0, rows - 1)[None, :],
                                      axis=0)[0]

        low_end = (kappa > 0) & (top > lo) & (kappa * v_at(top - 1) < -_PLATEAU)
        high_start = (kappa < 0) & (q < hi) & (kappa * v_at(q) < -_PLATEAU)
        return (shift != 0) | low_end | high_start

    def _windows_one_by_one(self, side: Side, lo: NDArray, hi: NDArray, kappa: NDArray,
                            sel: NDArray[np.bool_]) -> SideMoments:
        """Moments of each window's part of the side, each in the core's frame for that part
        (``choose_shift`` of the weighted rows): the windows as columns of a weighted side."""
        c = self.n - self.h
        v = side.v[:, sel]
        on = np.ones(v.shape) if side.w is None else side.w[:, sel]
        k = v.shape[1]
        pos = np.arange(v.shape[0])[:, None, None] + lo[None, :, None]
        s = np.arange(c + 1)[None, None, :]
        inside = (pos >= np.clip(s, lo[:, None], hi[:, None])) & \
            (pos < np.clip(s + self.h, lo[:, None], hi[:, None]))
        w = inside * on[:, :, None]
        # rows outside a window get a value inside it (weight 0): nothing overflows in the
        # window's own frame
        start = np.clip(np.clip(s[0], lo[:, None], hi[:, None]) - lo[:, None], 0,
                        v.shape[0] - 1)                         # (k, c + 1) side rows
        first = np.take_along_axis(v, start.T, axis=0)          # (c + 1, k)
        vv = np.where(w > 0, v[:, :, None], first.T[None, :, :])
        wide = Side(np.repeat(side.log_ref[sel], c + 1), vv.reshape(v.shape[0], k * (c + 1)),
                    w.reshape(v.shape[0], k * (c + 1)), side.negative)
        kap = np.repeat(kappa, c + 1)
        # the core's frame assumes the rows include the reference (v = 0); a part wholly on
        # the plateau side of it is anchored at its own extreme instead
        vmin, vmax = wide.vrange
        shift = np.where((kap > 0) & (vmax < 0), vmax,
                         np.where((kap < 0) & (vmin > 0), vmin, choose_shift(wide, kap)))
        m = side_moments(wide, kap, shift=shift, score=False)
        out: dict[str, Any] = {f: getattr(m, f).reshape(k, c + 1).T for f in _ARRAYS}
        return replace(m, **out)

    def best(self, lmbda: NDArray[np.float64]) -> tuple[NDArray, NDArray]:
        """The smallest window NLL per column and the start of that window.

        ``lmbda`` has one value per column (p,) or is a grid of them (G, p); the results have
        its shape. A grid is evaluated a few rows at a time, each as one batch of columns.
        """
        lam = np.asarray(lmbda, dtype=np.float64)
        grid = np.atleast_2d(lam)
        p = self.lo[0].size
        per_call = max(1, _GRID_ELEMENTS // (self.n * p))
        val = np.empty(grid.shape)
        start = np.empty(grid.shape, dtype=np.intp)
        for g in range(0, grid.shape[0], per_call):
            rows = grid[g : g + per_call]
            v, s = self.best_pairs(rows.reshape(-1), np.tile(np.arange(p), rows.shape[0]))
            val[g : g + per_call], start[g : g + per_call] = v.reshape(rows.shape), \
                s.reshape(rows.shape)
        return (val, start) if lam.ndim == 2 else (val[0], start[0])

    def best_pairs(self, lam: NDArray[np.float64], cols: NDArray[np.intp]
                   ) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
        """As :meth:`best` for the pairs ``(lam[k], column cols[k])``."""
        sample = self.sample.columns(cols)
        parts: dict[bool, SideMoments] = {}
        for side, lo, hi in zip(sample.sides, self.lo, self.hi, strict=True):
            kappa = 2.0 - lam if side.negative else lam
            parts[side.negative] = self._side_windows(side, lo[cols], hi[cols], kappa)
        at = np.broadcast_to(lam, (self.n - self.h + 1, lam.size))
        with np.errstate(all="ignore"):
            val, _ = nll_score_from_moments(parts.get(False), parts.get(True), at)
        val = np.where(np.isfinite(val), val, np.inf)
        start = np.argmin(val, axis=0)
        return val[start, np.arange(lam.size)], start
