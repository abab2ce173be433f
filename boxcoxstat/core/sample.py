"""Data prepared for the likelihood: each column's values as log-ratios to a reference.

A power transform only ever sees positive bases: ``b = x`` for Box-Cox, ``1 + x`` for
the x >= 0 side and ``1 - x`` for the x < 0 side of Yeo-Johnson data. Each base is stored once as
``v = log(b / b_ref)`` relative to the side's median, computed with ``log1p`` of the exact
difference so tightly clustered data keep every digit (Xu & Cormode 2025 lose them by taking
logs first). The likelihood (``likelihood.py``) works only with these log-ratios.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._arrays import column_range
from ..exceptions import BoxCoxError

__all__ = ["Side", "Sample", "length_unit"]


@dataclass(frozen=True)
class Side:
    """Positive bases ``b`` of one side of the data, as log-ratios to a reference.

    Box-Cox data form one side (b = x); Yeo-Johnson data have a side for x >= 0 (b = 1 + x)
    and one for x < 0 (b = 1 - x, exponent 2 - lambda, transformed values negated).

    Attributes
    ----------
    log_ref : ndarray (p,)
        ``log b_ref`` per column.
    v : ndarray (n, p)
        ``log(b / b_ref)``; 0 where the weight is 0.
    w : ndarray (n, p) or None
        Weights; ``None`` means every entry has weight 1.
    negative : bool
        True for the Yeo-Johnson x < 0 side.
    """

    log_ref: NDArray[np.float64]
    v: NDArray[np.float64]
    w: NDArray[np.float64] | None
    negative: bool

    @cached_property
    def wsum(self) -> NDArray[np.float64]:
        if self.w is None:
            return np.full(self.v.shape[1], float(self.v.shape[0]))
        return self.w.sum(axis=0)

    @cached_property
    def vsum(self) -> NDArray[np.float64]:
        """``sum w v`` per column (the log-ratio part of the Jacobian)."""
        if self.w is None:
            return self.v.sum(axis=0)
        return np.einsum("ij,ij->j", self.w, self.v)

    def columns(self, idx: NDArray[np.intp]) -> Side:
        return replace(
            self,
            log_ref=self.log_ref[idx],
            v=self.v[:, idx],
            w=None if self.w is None else self.w[:, idx],
        )

    @cached_property
    def vrange(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Smallest and largest log-ratio per column (over entries with positive weight)."""
        if self.w is None:
            return column_range(self.v)
        on = self.w > 0
        vmin = np.where(on, self.v, np.inf).min(axis=0)
        vmax = np.where(on, self.v, -np.inf).max(axis=0)
        empty = ~on.any(axis=0)
        return np.where(empty, 0.0, vmin), np.where(empty, 0.0, vmax)


def _log_ratios(x: NDArray, ref_x: NDArray, kind: str) -> NDArray[np.float64]:
    """``log(b / b_ref)`` for bases ``b = x`` ("bc"), ``1 + x`` ("pos") or ``1 - x`` ("neg").

    ``log1p((b - b_ref) / b_ref)`` with the difference formed from ``x`` keeps every digit of
    values near the reference, and above it is as accurate as a logarithm can be (its error
    is ``eps`` of the result, where ``log b - log b_ref`` errs by ``eps log b_ref``); below half
    the reference, where ``log1p`` of a number near -1 would lose digits, and where the ratio
    overflows, ``log b - log b_ref`` is used for those values only. Computed in row blocks so
    no large temporary is allocated.
    """
    sign = -1.0 if kind == "neg" else 1.0
    one = 0.0 if kind == "bc" else 1.0
    ref = one + sign * ref_x
    v = np.empty(x.shape)  # C order: the fix-ups below write through v.reshape(-1) views
    rows = max(1, (1 << 16) // max(1, x.shape[1]))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        inv = sign / ref  # a subnormal reference: inf, and the fix-ups below take over
        for i in range(0, x.shape[0], rows):
            xb = x[i : i + rows]
            out = v[i : i + rows]  # the ratio is formed in place (no temporary per block)
            rel = np.subtract(xb, ref_x, out=out)
            rel *= inv
            far = None
            if not (rel.min() >= -0.5 and rel.max() < np.inf):  # the usual block: none
                far = np.flatnonzero(~(rel >= -0.5) | (rel == np.inf))
            np.log1p(rel, out=out)
            if far is not None and far.size:
                cols_far = far % xb.shape[1]
                base = one + sign * xb.reshape(-1)[far]
                out.reshape(-1)[far] = np.log(base) - np.log(ref[cols_far])
    return v


def _make_side(
    x: NDArray, ref_x: NDArray, kind: str, mask: NDArray | None, w: NDArray | None
) -> Side:
    """A side from values ``x`` (n, p), the reference value ``ref_x`` (p,) and its kind."""
    v = _log_ratios(x, ref_x, kind)
    wm: NDArray[np.float64] | None = w
    if mask is not None:
        v[~mask] = 0.0
        wm = mask.astype(np.float64) if w is None else np.where(mask, w, 0.0)
    if kind == "bc":
        log_ref = np.log(ref_x)
    else:
        log_ref = np.log1p(-ref_x) if kind == "neg" else np.log1p(ref_x)
    return Side(log_ref, v, wm, kind == "neg")


UNIT_BELOW = 2.0 ** -64  # Yeo-Johnson columns whose lengths all lie below this get a unit


def length_unit(size: ArrayLike) -> NDArray[np.float64]:
    """The unit of lengths (log-ratios) for data whose largest length is ``size``: 1, or below
    ``UNIT_BELOW`` the power of two at or just above ``size`` (see :attr:`Sample.unit`).

    Examples
    --------
    >>> from boxcoxstat.core.sample import length_unit
    >>> length_unit([0.3, 1e-30, 0.0]).tolist()
    [1.0, 1.5777218104420236e-30, 1.0]
    """
    size = np.abs(np.asarray(size, dtype=np.float64))
    tiny = (size > 0) & (size < UNIT_BELOW)
    return np.where(tiny, np.ldexp(1.0, np.frexp(size)[1]), 1.0)

MEDIAN_SAMPLE = 1 << 16  # columns longer than twice this take the reference from a subsample
MEDIAN_SUB = 1 << 14  # of about this many values (its median is as central: the partition of
# 65k values cost 1-2 ms a side, a twentieth of a Yeo-Johnson fit of 1e6 values)
SORT_ROWS = 512  # matrices with at most this many rows are compacted / take medians at once
SPLIT_MEDIAN = 1 << 10  # a long matrix's side takes its reference from about this many values
# (any central value serves; the partitions of 100 x 2 sides of 5,000 values took 12 ms of a
# Yeo-Johnson fit of 10000 x 100, a tenth of it)


def _masked_median(x: NDArray, mask: NDArray | None) -> NDArray:
    """Median of each column over ``mask`` (NaN for a column with nothing selected).

    The middle pair is averaged as ``lo/2 + hi/2``, which cannot overflow for values near
    the largest float (``np.median`` forms ``lo + hi`` first). The median only fixes the
    reference of the log-ratios (any central value serves, see the module docstring), so a
    long column without missing values takes the median of a systematic subsample of about
    16k values (a partition, not a sort).
    """
    if mask is None:
        return _central(x)
    if x.shape[1] > 1 and x.shape[0] <= SORT_ROWS:  # short columns: one sort for them all
        filled = np.where(mask, x, np.inf)  # validated data are finite: unselected sort last
        filled.sort(axis=0)
        cnt = mask.sum(axis=0)
        at = np.arange(x.shape[1])
        lo = filled[np.maximum(cnt - 1, 0) // 2, at]
        hi = filled[np.minimum(cnt // 2, x.shape[0] - 1), at]
        return np.where(cnt > 0, 0.5 * lo + 0.5 * hi, np.nan)
    # column by column on the transposed data (selection and partition on contiguous memory)
    x_t, m_t = np.ascontiguousarray(x.T), np.ascontiguousarray(mask.T)
    out = np.full(x.shape[1], np.nan)
    for j in range(x.shape[1]):
        sel = np.compress(m_t[j], x_t[j])
        if sel.size:
            out[j] = _central(sel[:, None])[0]
    return out


def _central(x: NDArray) -> NDArray:
    """Median of each column of ``x`` (n >= 1 rows), or of a systematic subsample of about
    ``MEDIAN_SUB`` rows when ``n`` exceeds twice ``MEDIAN_SAMPLE``; by partition."""
    n = x.shape[0]
    sub = x if n <= 2 * MEDIAN_SAMPLE else x[:: n // MEDIAN_SUB]
    cnt = sub.shape[0]
    lo_i, hi_i = (cnt - 1) // 2, cnt // 2
    part = np.partition(sub, (lo_i, hi_i), axis=0)
    return 0.5 * part[lo_i] + 0.5 * part[hi_i]


def _compact(
    x: NDArray, mask: NDArray, w: NDArray | None
) -> tuple[NDArray, NDArray | None, NDArray | None]:
    """Move each column's selected entries to the top and drop rows no column needs.

    Returns the compacted values, their mask (``None`` when every entry is selected) and
    weights, so a Yeo-Johnson side costs as many rows as it has values, not ``n``.
    """
    if mask.all():
        return x, None, w
    if x.shape[1] == 1:  # indices, then take: 3x faster than compress on a random mask
        sel = np.flatnonzero(mask[:, 0])
        xs = np.take(x[:, 0], sel)[:, None]
        return xs, None, None if w is None else np.take(w[:, 0], sel)[:, None]
    cnt = mask.sum(axis=0)
    rows = int(cnt.max())
    mc = np.arange(rows)[:, None] < cnt[None, :]
    if x.shape[0] <= SORT_ROWS:  # short columns: one stable sort moves the selection up
        order = np.argsort(~mask, axis=0, kind="stable")[:rows]
        xc = np.where(mc, np.take_along_axis(x, order, axis=0), 0.0)
        wc = None if w is None else np.where(mc, np.take_along_axis(w, order, axis=0), 0.0)
        return xc, (None if mc.all() else mc), wc
    # column by column on the transposed data: compress is fast on contiguous memory
    m_t = np.ascontiguousarray(mask.T)
    arrays = [x] if w is None else [x, w]
    outs = []
    for a in arrays:
        a_t = np.ascontiguousarray(a.T)
        out = np.zeros((a.shape[1], rows))  # 0 is a valid value on either side
        for j in range(a.shape[1]):
            out[j, : cnt[j]] = np.compress(m_t[j], a_t[j])
        outs.append(np.ascontiguousarray(out.T))
    xc = outs[0]
    wc = outs[1] if w is not None else None
    return xc, (None if mc.all() else mc), wc


def _split_long(
    x: NDArray, present: NDArray | None, w: NDArray | None
) -> list[tuple[NDArray, NDArray | None, NDArray | None, NDArray] | None]:
    """:func:`_compact` and :func:`_masked_median` of the two sides (x >= 0, x < 0) of the
    present values (``present``, or all) of each column of a long matrix, in one transposed
    copy of the data: per side the compacted values, their mask, weights and each column's
    median (NaN where nothing is selected; of a systematic subsample of about
    ``SPLIT_MEDIAN`` values: any central value serves), or ``None`` for a side without
    values.

    Selection, compaction and partition run column by column on contiguous memory; the data
    are transposed once for both sides (and the results once each), and the sides' masks
    are formed on the transposed data (a boolean matrix transposes slower than it is
    formed). The values are the same.
    """
    p = x.shape[1]
    x_t = np.ascontiguousarray(x.T)
    w_t = None if w is None else np.ascontiguousarray(w.T)
    nonneg = x_t >= 0
    masks = [nonneg, ~nonneg]
    if present is not None:
        present_t = np.ascontiguousarray(present.T)
        masks = [m & present_t for m in masks]
    out: list[tuple[NDArray, NDArray | None, NDArray | None, NDArray] | None] = []
    for m_t in masks:
        if not m_t.any():
            out.append(None)
            continue
        cnt = m_t.sum(axis=1)
        rows = int(cnt.max())
        xo = np.zeros((p, rows))  # 0 is a valid value on either side
        wo = None if w_t is None else np.zeros((p, rows))
        ref = np.full(p, np.nan)
        for j in range(p):
            sel = np.compress(m_t[j], x_t[j])
            xo[j, : cnt[j]] = sel
            if sel.size:  # the median of a systematic subsample of 1-2k values
                ref[j] = _central(sel[:: max(1, sel.size // SPLIT_MEDIAN), None])[0]
            if wo is not None and w_t is not None:
                wo[j, : cnt[j]] = np.compress(m_t[j], w_t[j])
        mc = np.arange(rows)[:, None] < cnt[None, :]
        out.append((np.ascontiguousarray(xo.T), None if mc.all() else mc,
                    None if wo is None else np.ascontiguousarray(wo.T), ref))
    return out


FUSE_FROM = 1 << 18  # one column of more rows than this (no missing values, no weights) is
# prepared block by block: the sign split, the log-ratios, their extremes and sum in one pass
FUSE_ROWS = 1 << 16  # rows of a block (512 KB of values: the block, its log-ratios and the
# scratch array stay in a core's 1-2 MB L2 cache)


class _RatioBlocks:
    """Log-ratios of one side, formed block by block (the same values as
    :func:`_log_ratios`), with their extremes and sum kept from the same blocks, so that the
    side's :attr:`Side.vrange` and :attr:`Side.vsum` need no pass of their own."""

    def __init__(self, ref_x: float, kind: str, rows: int):
        self.ref_x, self.kind = ref_x, kind
        self.sign = -1.0 if kind == "neg" else 1.0
        self.one = 0.0 if kind == "bc" else 1.0
        self.ref = self.one + self.sign * ref_x
        with np.errstate(divide="ignore"):
            self.inv = self.sign / self.ref  # a subnormal reference: inf, fixed up below
        self.scratch = np.empty(rows)
        self.lo, self.hi, self.total = np.inf, -np.inf, 0.0
        # A Yeo-Johnson side has bases 1 + |x| >= 1, so |inv| <= 1 and no ratio overflows;
        # its ratios, (x - ref_x) inv rounded twice, are monotone in x, and x = 0 is the end
        # of the side nearest the reference: if the ratio there is >= -0.5, no value of the
        # side is far (the blocks need not look for one)
        self.near = kind != "bc" and (0.0 - ref_x) * self.inv >= -0.5

    def add(self, xb: NDArray, vb: NDArray) -> None:
        """Write the log-ratios of the values ``xb`` into ``vb`` (``xb``'s length; may be
        ``xb`` itself) and fold them into the extremes and the sum."""
        if not xb.size:
            return
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            rel = np.subtract(xb, self.ref_x, out=self.scratch[: xb.size])
            rel *= self.inv
            far = None
            if not (self.near or rel.min() >= -0.5 and rel.max() < np.inf):
                far = np.flatnonzero(~(rel >= -0.5) | (rel == np.inf))
                base = self.one + self.sign * xb[far]  # read before vb (maybe xb) is written
            np.log1p(rel, out=vb)
            if far is not None and far.size:
                vb[far] = np.log(base) - np.log(self.ref)
        self.lo, self.hi = min(self.lo, float(vb.min())), max(self.hi, float(vb.max()))
        self.total += float(vb.sum())

    def side(self, v: NDArray) -> Side:
        """The side whose log-ratios are ``v`` (1-D, every block added), its extremes and
        sum cached."""
        kind, ref_x = self.kind, self.ref_x
        log_ref = (np.log(ref_x) if kind == "bc" else
                   np.log1p(-ref_x) if kind == "neg" else np.log1p(ref_x))
        side = Side(np.array([log_ref], dtype=np.float64), v[:, None], None, kind == "neg")
        side.__dict__["vrange"] = (np.array([self.lo]), np.array([self.hi]))  # cached
        side.__dict__["vsum"] = np.array([self.total])
        return side


def _fused_column(x: NDArray, family: str) -> tuple[Side | None, Side | None]:
    """The sides of one long column (validated, no missing values, unweighted), prepared
    block by block (:data:`FUSE_FROM`), in one read of the data and one write of the
    log-ratios. Box-Cox: the log-ratios to the median of a systematic subsample (as
    :func:`_central`), written into a new array. Yeo-Johnson with both signs: each block's
    values are split by sign into one new array, the x >= 0 side filling it from the front
    and the x < 0 side from the back (so no pass counts them first), by the positions of
    each sign (``np.flatnonzero``, then ``np.take``: 2-3x faster than ``np.compress`` or
    a boolean index on random signs), and turned into log-ratios there while in cache. The
    references are the medians of each sign in a systematic subsample of about 16k values
    (any central value serves; a side with fewer than 1,000 values in it is taken as the
    unfused path takes it). The order of the values within a side is not the data's (the
    likelihood sums over them)."""
    n = x.size
    rows = min(FUSE_ROWS, n)
    if family == "boxcox":
        bc = _RatioBlocks(float(_central(x[:, None])[0]), "bc", rows)
        v = np.empty(n)
        for i in range(0, n, rows):
            bc.add(x[i : i + rows], v[i : i + rows])
        return bc.side(v), None
    sub = x[:: max(1, n // MEDIAN_SUB)]
    nonneg_sub = sub >= 0
    k = int(np.count_nonzero(nonneg_sub))
    if min(k, sub.size - k) < 1000:
        return None, None
    pos = _RatioBlocks(float(_central(sub[nonneg_sub][:, None])[0]), "pos", rows)
    neg = _RatioBlocks(float(_central(sub[~nonneg_sub][:, None])[0]), "neg", rows)
    out = np.empty(n)
    mask = np.empty(rows, dtype=bool)
    top, bottom = 0, n  # the x >= 0 side fills out[:top], the x < 0 side out[bottom:]
    for i in range(0, n, rows):
        xb = x[i : i + rows]
        mb = np.greater_equal(xb, 0.0, out=mask[: xb.size])
        count = int(np.count_nonzero(mb))
        if count == xb.size or count == 0:  # a block of one sign: no split
            if count:
                pos.add(xb, out[top : top + count])
                top += count
            else:
                neg.add(xb, out[bottom - xb.size : bottom])
                bottom -= xb.size
            continue
        at = np.flatnonzero(mb)
        chunk = np.take(xb, at, out=out[top : top + at.size])
        pos.add(chunk, chunk)
        top += at.size
        at = np.flatnonzero(np.logical_not(mb, out=mb))
        chunk = np.take(xb, at, out=out[bottom - at.size : bottom])
        neg.add(chunk, chunk)
        bottom -= at.size
    return pos.side(out[:top]), neg.side(out[top:])


@dataclass(frozen=True)
class Sample:
    """Data prepared for likelihood evaluation: one or two sides per column.

    Build with :meth:`from_array`. ``pos`` holds Box-Cox data or Yeo-Johnson x >= 0, ``neg``
    Yeo-Johnson x < 0 (``None`` when no column has negatives).
    """

    family: str
    pos: Side | None
    neg: Side | None

    @classmethod
    def from_array(
        cls, x: ArrayLike, family: str = "boxcox", weights: ArrayLike | None = None, *,
        complete: bool = False,
    ) -> Sample:
        """Prepare a 1-D sample or an (n, p) matrix (NaN = missing, dropped per column).

        ``weights`` is a length-n vector (the same for every column) or an (n, p) matrix.
        The data are assumed validated (see ``_validation.as_columns``) and ``family`` is a
        canonical name (``"boxcox"`` or ``"yeojohnson"``: every door normalises aliases).
        ``complete=True`` says the caller knows no value is missing (the gate counted
        them), so the data are not searched for NaN (a pass over them).
        """
        if family not in ("boxcox", "yeojohnson"):  # canonical names: the doors normalise
            raise BoxCoxError(f"family must be 'boxcox' or 'yeojohnson' here, got {family!r}")
        x = np.asarray(x, dtype=np.float64)
        if x.ndim == 1:
            x = x[:, None]
        w = None
        if weights is not None:
            w = np.asarray(weights, dtype=np.float64)
            w = np.broadcast_to(w[:, None] if w.ndim == 1 else w, x.shape).copy()
        if x.shape[1] == 1 and x.shape[0] > FUSE_FROM and w is None:
            col = np.ascontiguousarray(x[:, 0])
            if complete or not np.isnan(col.min()):  # validated: NaN only where missing
                fused = _fused_column(col, family)
                if fused != (None, None):
                    return cls(family, *fused)
        present = None
        if not complete:
            nan = np.isnan(x)
            if nan.any():
                present = ~nan
        xs = np.where(present, x, 1.0) if present is not None else x
        if family == "boxcox":
            ref = _masked_median(xs, present)
            return cls(family, _make_side(xs, ref, "bc", present, w), None)
        pos: Side | None = None
        neg: Side | None = None
        if xs.shape[1] > 1 and xs.shape[0] > SORT_ROWS:  # long columns: transposed once
            got_p, got_n = _split_long(xs, present, w)
            if got_p is not None:
                xp, mp_, wp, ref = got_p
                pos = _make_side(xp, np.where(np.isnan(ref), 0.0, ref), "pos", mp_, wp)
            if got_n is not None:
                xn, mn, wn, ref = got_n
                neg = _make_side(xn, np.where(np.isnan(ref), -1.0, ref), "neg", mn, wn)
            return cls(family, pos, neg)
        nonneg = xs >= 0
        pmask = nonneg if present is None else nonneg & present
        nmask = ~nonneg if present is None else ~nonneg & present
        if pmask.any():
            xp, mp_, wp = _compact(xs, pmask, w)
            ref = _masked_median(xp, mp_)
            ref = np.where(np.isnan(ref), 0.0, ref)
            pos = _make_side(xp, ref, "pos", mp_, wp)
        if nmask.any():
            xn, mn, wn = _compact(xs, nmask, w)
            ref = _masked_median(xn, mn)
            ref = np.where(np.isnan(ref), -1.0, ref)
            neg = _make_side(xn, ref, "neg", mn, wn)
        return cls(family, pos, neg)

    @property
    def sides(self) -> tuple[Side, ...]:
        """The sides that hold data (one or two)."""
        return tuple(s for s in (self.pos, self.neg) if s is not None)

    @property
    def ncols(self) -> int:
        return self.sides[0].v.shape[1]

    def columns(self, idx: NDArray[np.intp]) -> Sample:
        """The sample restricted to columns ``idx``."""
        if len(idx) == self.ncols and np.array_equal(idx, np.arange(self.ncols)):
            return self
        return Sample(
            self.family,
            None if self.pos is None else self.pos.columns(idx),
            None if self.neg is None else self.neg.columns(idx),
        )

    @property
    def nrows(self) -> int:
        """Rows of the larger side (the work per evaluation scales with it)."""
        return max(side.v.shape[0] for side in self.sides)

    def every(self, step: int) -> Sample:
        """A systematic subsample (every ``step``-th row), in the same reference frame."""

        def sub(side: Side | None) -> Side | None:
            if side is None:
                return None
            # contiguous copies (a fraction of the data): every evaluation reads them in
            # blocks, which strided views would make gathers
            w = None if side.w is None else np.ascontiguousarray(side.w[::step])
            return replace(side, v=np.ascontiguousarray(side.v[::step]), w=w)

        return Sample(self.family, sub(self.pos), sub(self.neg))

    def nobs(self) -> NDArray[np.float64]:
        """Total weight per column."""
        return np.sum([side.wsum for side in self.sides], axis=0)

    @cached_property
    def unit(self) -> NDArray[np.float64]:
        """Per column, the power of two in which the likelihood measures lengths (log-ratios,
        references, shifts): 1, except for Yeo-Johnson columns on a tiny scale, whose largest
        length lies below ``UNIT_BELOW`` (2**-64); theirs is that length rounded up to a
        power of two.

        Yeo-Johnson is not scale invariant: data of magnitude 1e-150 have log-ratios near
        1e-150 and lambda near 1e150, and their moments (the variance near 1e-300, the
        score's cross moment near 1e-450) leave float64. In the unit every length is of order
        1 and lambda times the unit is too; the likelihood converts back exactly
        (``likelihood.nll_score``). Box-Cox is scale invariant and its log-ratios are never
        that small (the gate refuses data equal to 12 digits), so its unit is 1.
        """
        size = np.zeros(self.ncols)
        if self.family == "boxcox":
            return np.ones(self.ncols)
        for side in self.sides:
            vmin, vmax = side.vrange
            ref = np.where(side.wsum > 0, np.abs(side.log_ref), 0.0)  # an empty side's
            size = np.maximum(size, np.maximum(ref, np.maximum(np.abs(vmin), np.abs(vmax))))
        return length_unit(size)

    @cached_property
    def in_units(self) -> Sample:
        """The sample with every length divided by its column's :attr:`unit` (exact: the
        units are powers of two)."""
        return self.scaled(self.unit)

    def scaled(self, unit: ArrayLike) -> Sample:
        """The sample with every length divided by ``unit`` (per column, powers of two)."""
        u = np.asarray(unit, dtype=np.float64)

        def part(side: Side | None) -> Side | None:
            if side is None:
                return None
            return replace(side, log_ref=side.log_ref / u, v=side.v / u)

        return Sample(self.family, part(self.pos), part(self.neg))

    @cached_property
    def stacked(self) -> Stacked:
        """The sides of a one-column sample in one array (``short.short_nll_score``
        evaluates short columns from it, every lambda in one expression)."""
        return Stacked.from_sides(self.sides)


@dataclass(frozen=True)
class Stacked:
    """The log-ratios of one column's sides (unweighted) in one array, side by side.

    ``vu[0]`` (n,): the positive side's values then the negative side's (``starts`` says
    where each of the ``S`` sides begins, ``side_of`` which side a value is on, ``side_neg``
    which side is negative); the exponent of a value at lambda is ``sign lambda + off``
    (``lambda`` or ``2 - lambda``). With two sides ``vu[1]`` is ``u = log_ref + v = log b``,
    the natural scale; ``vu2`` holds the squares. ``W``, ``log_ref`` and ``wv`` (``sum v``) are
    per side. ``reach`` is the largest ``|v|`` (plus the side's ``|log_ref|`` with two sides),
    ``n`` the number of values and ``J = sum sgn log b`` (the Jacobian's sum).
    """

    vu: NDArray[np.float64]
    vu2: NDArray[np.float64]
    sign: NDArray[np.float64]
    off: NDArray[np.float64]
    starts: NDArray[np.intp]
    side_of: NDArray[np.intp]
    W: NDArray[np.float64]
    log_ref: NDArray[np.float64]
    wv: NDArray[np.float64]
    side_neg: NDArray[np.bool_]
    reach: float
    n: float
    J: float

    @classmethod
    def from_sides(cls, sides: tuple[Side, ...]) -> Stacked:
        """Stack the sides (each of one column, unweighted)."""
        vs = [side.v[:, 0] for side in sides]
        v = np.concatenate(vs) if len(vs) > 1 else np.ascontiguousarray(vs[0])
        sizes = [x.size for x in vs]
        neg = np.array([side.negative for side in sides])
        side_of = np.repeat(np.arange(len(vs)), sizes)
        log_ref = np.array([float(side.log_ref[0]) for side in sides])
        u = v + log_ref[side_of]
        span = np.array([max(abs(float(side.vrange[0][0])), abs(float(side.vrange[1][0])))
                         for side in sides])
        vu = np.stack([v, u]) if len(vs) > 1 else v[None, :]
        W = np.array(sizes, dtype=np.float64)
        wv = np.array([float(side.vsum[0]) for side in sides])
        reach = span + np.abs(log_ref) if len(vs) > 1 else span
        J = float(np.sum(np.where(neg, -1.0, 1.0) * (W * log_ref + wv)))
        return cls(vu, vu * vu, np.where(neg, -1.0, 1.0)[side_of],
                   np.where(neg, 2.0, 0.0)[side_of], np.r_[0, np.cumsum(sizes)[:-1]],
                   side_of, W, log_ref, wv, neg, float(reach.max()), float(W.sum()), J)
