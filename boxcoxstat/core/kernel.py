"""The per-value kernel of the likelihood: one side's row blocks into moments.

Under ``likelihood.py``. With ``a = kappa d`` (``d = v - shift`` a log-ratio of
``sample.py``) and ``m = expm1(a)``, :func:`_block_values` forms the transform ``phi =
expm1(kappa d) / kappa`` and its derivative in kappa, ``chi``, in one of three regimes
(``kappa`` zero to rounding, ``|a| < 1/8`` by a series, else through ``kappa phi`` and
``a^2 exprel'(a)``), and :func:`_block_moments` reduces one block of about ``BLOCK_ELEMENTS``
values to its weight, means and centred sums, which
:func:`~boxcoxstat.core.likelihood.side_moments` merges (Chan, Golub & LeVeque 1982).
:func:`phi_chi` gives the same values as vectors, for the regression responses and the
federated server's checks.

References
----------
Chan, T. F., Golub, G. H. and LeVeque, R. J. (1982). Updating formulae and a pairwise algorithm
for computing sample variances. COMPSTAT 1982, 30-41.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator

import numpy as np
from numpy.typing import NDArray

from .._special import _D1_REV, A2_SERIES_RADIUS, _horner, a2_closed, a2_dexprel
from .sample import Side

__all__ = ["BLOCK_ELEMENTS", "COLUMN_BLOCK", "WIDE", "ZERO_K", "column_moments", "phi_chi"]

BLOCK_ELEMENTS = 1 << 16  # rows x columns per block: the temporaries stay in cache
COLUMN_BLOCK = 1 << 17  # values per block of one column's derivative pass (_slope_column):
# with flat blocks the Python per block is small, and twice the block measured 2-4% faster
ZERO_K = 1e-280  # |kappa| below this: phi = d and chi = d^2/2 to rounding (|kappa d| < 1e-276)


class _Work:
    """Scratch arrays for the blocks of a pass: every block of a long column is evaluated
    into the same memory. A fresh 512 KB temporary per operation and block costs page
    faults whenever the allocator hands back memory it had returned to the system (up to
    two thirds of a pass, depending on what ran before), so each thread keeps one set of
    five block-sized arrays (2.5 MB) for all its passes (:func:`_work`)."""

    def __init__(self, size: int):
        self.size = size
        self.flat = [np.empty(size) for _ in range(5)]

    def get(self, i: int, shape: tuple[int, ...]) -> NDArray[np.float64]:
        """Buffer ``i`` as a C-contiguous array of ``shape``."""
        return self.flat[i][: math.prod(shape)].reshape(shape)


_LOCAL = threading.local()  # one workspace per thread (Dask's threads evaluate in parallel)


def _work(size: int = BLOCK_ELEMENTS) -> _Work:
    """This thread's workspace of at least ``size`` values per array."""
    work = getattr(_LOCAL, "work", None)
    if work is None or work.size < size:
        work = _LOCAL.work = _Work(size)
    return work


def _block_values(d: NDArray, k: NDArray, tier: int, score: bool, work: _Work | None = None,
                  series: bool = True):
    """The block's ``m`` and ``N`` (see ``likelihood._moments``; ``N`` is None without the score),
    tier 2 in ``work``'s buffers 0-3 when given; ``series=False``: tier 2's ``N`` by its closed
    form alone (see :func:`column_moments`)."""
    if tier == 0:
        shape = np.broadcast_shapes(d.shape, k.shape)
        return np.broadcast_to(d, shape), (0.5 * d * d + np.zeros(shape)) if score else None
    with np.errstate(over="ignore", invalid="ignore"):
        if tier == 2 and work is not None:
            shape = np.broadcast_shapes(d.shape, k.shape)
            a = np.multiply(d, k, out=work.get(0, shape))
            m = np.expm1(a, out=work.get(1, shape))
            if not score:
                return m, None
            form = a2_dexprel if series else a2_closed
            return m, form(a, m, out=work.get(2, shape), tmp=work.get(3, shape))
        a = d * k
        m = np.expm1(a)
        if tier == 2:
            return m, ((a2_dexprel if series else a2_closed)(a, m) if score else None)
        e = np.divide(m, a, out=np.ones_like(m), where=a != 0)
        e *= d
        return e, ((d * d) * _horner(_D1_REV, a) if score else None)


def phi_chi(d: NDArray, kappa: NDArray, span: NDArray, score: bool = True):
    """``phi = expm1(kappa d)/kappa`` and ``chi = d phi/d kappa`` as vectors (``d`` of shape
    (n, L) or (n, 1), one ``kappa`` per column), by the same regimes as
    :func:`~boxcoxstat.core.likelihood.side_moments`
    (``span`` is each column's largest ``|d|``); ``chi`` is None unless ``score``."""
    k = np.atleast_1d(np.asarray(kappa, dtype=np.float64))
    span = np.broadcast_to(span, k.shape)
    tier = np.where(np.abs(k) <= ZERO_K, 0, np.where(np.abs(k) * span < A2_SERIES_RADIUS, 1, 2))
    shape = np.broadcast_shapes(d.shape, (d.shape[0], k.size))
    groups: list[tuple[slice | NDArray[np.intp], int]] = (
        [(slice(None), int(tier[0]))] if np.all(tier == tier[0])
        else [(np.flatnonzero(tier == t), int(t)) for t in np.unique(tier)])
    phi = np.empty(shape)
    chi = np.empty(shape) if score else None
    for idx, t in groups:
        dd = d if d.shape[1] == 1 else d[:, idx]
        kk = k[idx]
        m, N = _block_values(dd, kk, t, score)
        if t == 2:
            with np.errstate(over="ignore", invalid="ignore"):
                m = m / kk
                N = None if N is None else N / (kk * kk)
        phi[:, idx] = m
        if chi is not None:
            chi[:, idx] = N
    return phi, chi


WIDE = 16  # at least this many columns: blocks are (rows, columns); fewer: (columns, rows)
_DOT_RUN = 8192  # dot products along rows in runs of this length (see _row_dots)


def _row_dots(x: NDArray, y: NDArray, sub: str) -> NDArray:
    """``einsum(sub, x, y)``; rows of a (columns, rows) block whose length is a multiple of
    ``_DOT_RUN`` as sums of dot products over runs of that length (``np.vecdot``: BLAS
    kernels, twice as fast as einsum's loop, and below OpenBLAS's threading threshold of
    10,000 values, whose thread hand-offs can cost milliseconds on a busy machine)."""
    rows = x.shape[1]
    if sub[-1] != "i" or rows % _DOT_RUN or x.shape != y.shape:
        return np.einsum(sub, x, y)
    shape = (x.shape[0], rows // _DOT_RUN, _DOT_RUN)
    return np.vecdot(x.reshape(shape), y.reshape(shape)).sum(axis=1)


def _block_moments(
    side: Side, rows: slice, k: NDArray, s: NDArray, shifted: bool, tier: int, score: bool,
    cols: NDArray[np.intp] | None = None, work: _Work | None = None, series: bool = True,
) -> tuple[NDArray, ...]:
    """Moments of one row block: total weight, mean and centred sum of squares of ``m``,
    mean of ``N``, centred cross sum, and ``sum w d`` when the frame is shifted.

    Sums run along the contiguous axis: a block of few columns (one column at several
    lambdas, above all) is laid out one row per column. ``work`` (tier 2) holds the
    block's temporaries.
    """
    v = side.v[rows]
    w = None if side.w is None else side.w[rows]
    if cols is not None:
        v = np.take(v, cols, axis=1)
        w = None if w is None else np.take(w, cols, axis=1)
    width = max(v.shape[1], k.shape[0])
    if width < WIDE:  # (columns, rows): every reduction runs along contiguous memory
        v = np.ascontiguousarray(v.T)
        w = None if w is None else np.ascontiguousarray(w.T)
        k, s = k[:, None], s[:, None]
        ax, sub = 1, "ij,ij->i"
    else:
        ax, sub = 0, "ij,ij->j"
    if not shifted:
        d = v
    elif work is None:
        d = v - s
    else:
        d = np.subtract(v, s, out=work.get(4, np.broadcast_shapes(v.shape, s.shape)))
    m, N = _block_values(d, k, tier, score, work, series)
    zeros = np.zeros(width)
    nrow = v.shape[ax]
    if w is None:
        W = np.full(width, float(nrow))
        mean = m.sum(axis=ax) / W
        mc = np.subtract(m, mean[:, None] if ax else mean,
                         out=None if work is None else work.get(3, m.shape))
        M2 = _row_dots(mc, mc, sub)
        dsum = np.broadcast_to(d.sum(axis=ax), (width,)) if shifted else zeros
        if N is None:
            return W, mean, M2, zeros, zeros, dsum
        meanN = N.sum(axis=ax) / W
        C2 = _row_dots(mc, N, sub) - meanN * mc.sum(axis=ax)
        return W, mean, M2, meanN, C2, dsum
    W = np.broadcast_to(w.sum(axis=ax), (width,)).astype(np.float64)
    Ws = np.where(W > 0, W, 1.0)
    wb = np.broadcast_to(w, m.shape)
    mean = np.einsum(sub, wb, m) / Ws
    mc = m - (mean[:, None] if ax else mean)
    wmc = wb * mc
    M2 = np.einsum(sub, wmc, mc)
    dsum = np.broadcast_to((w * d).sum(axis=ax), (width,)) if shifted else zeros
    if N is None:
        return W, mean, M2, zeros, zeros, dsum
    meanN = np.einsum(sub, wb, N) / Ws
    C2 = np.einsum(sub, wmc, N) - meanN * wmc.sum(axis=ax)
    return W, mean, M2, meanN, C2, dsum


def _run_dot(x: NDArray, y: NDArray) -> float:
    """``x . y`` of two flat blocks as :func:`_row_dots` forms it for one row: the sum of dot
    products over runs of ``_DOT_RUN`` values where the length is a multiple of it."""
    if x.size % _DOT_RUN:
        return float(np.einsum("ij,ij->i", x[None], y[None])[0])
    return float(np.vecdot(x.reshape(-1, _DOT_RUN), y.reshape(-1, _DOT_RUN)).sum())


def _column_nblocks(n: int) -> int:
    """Blocks of ``COLUMN_BLOCK`` values in a column of ``n`` (at least one)."""
    return max(1, -(-n // COLUMN_BLOCK))


def _column_blocks(v: NDArray) -> Iterator[tuple[int, NDArray, list[NDArray]]]:
    """One long column's flat blocks of ``COLUMN_BLOCK`` values, each with this thread's five
    scratch arrays cut to its length: ``(i, block, scratch)``."""
    rows = COLUMN_BLOCK
    flat = _work(rows).flat
    whole = [b[:rows] for b in flat]
    for i in range(_column_nblocks(v.size)):
        vb = v[i * rows : (i + 1) * rows]
        yield i, vb, (whole if vb.size == rows else [b[: vb.size] for b in flat])


def _slope_column(v: NDArray, k: float, s: float, shifted: bool, exact: bool
                  ) -> tuple[NDArray, ...]:
    """:func:`slope_moments` of one column ``v`` (flat, contiguous) at one ``k``: the same
    sums in the same order, on flat blocks of ``COLUMN_BLOCK`` values (no transposes, no
    per-block shapes: a third of the Python per block), each block's nine sums a row of one
    array, merged as :func:`slope_moments` merges."""
    sums = np.empty((_column_nblocks(v.size), 9))
    with np.errstate(over="ignore", invalid="ignore"):
        for i, vb, (b0, b1, b2, b3, b4) in _column_blocks(v):
            d = np.subtract(vb, s, out=b4) if shifted else vb
            a = np.multiply(d, k, out=b0)
            m = np.expm1(a, out=b1)
            N = (a2_dexprel if exact else a2_closed)(a, m, out=b2, tmp=b3)
            nrow = float(vb.size)
            mean = float(m.sum()) / nrow
            mc = np.subtract(m, mean, out=b3)
            M2 = _run_dot(mc, mc)
            mcs = float(mc.sum())
            meanN = float(N.sum()) / nrow
            cN = _run_dot(mc, N)
            C2 = cN - meanN * mcs
            t = np.add(N, m, out=b1)  # a e^a; m is no longer needed
            t *= a
            meanK = float(t.sum()) / nrow - 2.0 * meanN
            CK = _run_dot(mc, t) - 2.0 * cN - meanK * mcs
            VN = _run_dot(N, N) - nrow * meanN * meanN  # see slope_moments
            sums[i] = (nrow, mean, M2, meanN, C2, float(d.sum()) if shifted else 0.0,
                       VN, meanK, CK)
    return _merge_slope_parts([np.ascontiguousarray(sums[:, j : j + 1]) for j in range(9)])


def column_moments(v: NDArray, k: NDArray, s: NDArray, shifted: bool, score: bool,
                   series: bool = True) -> list[tuple[NDArray, ...]]:
    """:func:`_block_moments` (tier 2, unweighted) of one long column ``v`` (flat,
    contiguous) at each of the ``L`` exponents ``k`` (shifts ``s``), on flat blocks of
    ``COLUMN_BLOCK`` values: each block is read once and evaluated at every exponent while it
    is in cache (a (2, rows) block of the matrix path cost 1.4x more a lambda). Returns each
    block's ``W, mean, M2, meanN, C2, dsum`` (each of shape (L,)), which
    ``likelihood._moments`` merges as it merges the matrix path's blocks. ``series=False``
    forms ``N`` by its closed form alone (see :func:`slope_moments`' ``exact``): the score then
    errs by at most ``likelihood.SERIES_ERR`` a value where ``|a| < 1/8``, which moves a
    Newton step of the profile interval, never its ends (those are set by NLL values)."""
    nb = _column_nblocks(v.size)
    L = k.size
    sums = np.empty((nb, 6, L))
    with np.errstate(over="ignore", invalid="ignore"):
        for i, vb, (b0, b1, b2, b3, b4) in _column_blocks(v):
            nrow = float(vb.size)
            for j in range(L):
                d = np.subtract(vb, s[j], out=b4) if shifted else vb
                a = np.multiply(d, k[j], out=b0)
                m = np.expm1(a, out=b1)
                mean = float(m.sum()) / nrow
                mc = np.subtract(m, mean, out=b3)
                M2 = _run_dot(mc, mc)
                dsum = float(d.sum()) if shifted else 0.0
                meanN = C2 = 0.0
                if score:
                    # m is no longer needed: b1 is the scratch
                    N = (a2_dexprel if series else a2_closed)(a, m, out=b2, tmp=b1)
                    meanN = float(N.sum()) / nrow
                    C2 = _run_dot(mc, N) - meanN * float(mc.sum())
                sums[i, :, j] = (nrow, mean, M2, meanN, C2, dsum)
    return [tuple(block) for block in sums]


def _merge_slope_parts(parts: list[NDArray]) -> tuple[NDArray, ...]:
    """The nine sums of :func:`slope_moments`, each an array (blocks, width), merged over the
    blocks (Chan, Golub & LeVeque 1982)."""
    W, mean, M2, meanN, C2, dsum, VN, meanK, CK = parts
    if W.shape[0] == 1:
        return tuple(q[0] for q in parts)
    Wt = W.sum(axis=0)
    mean_t, meanN_t, meanK_t = ((W * q).sum(axis=0) / Wt for q in (mean, meanN, meanK))
    dm, dN, dK = mean - mean_t, meanN - meanN_t, meanK - meanK_t
    return (Wt, mean_t, M2.sum(axis=0) + (W * dm * dm).sum(axis=0), meanN_t,
            C2.sum(axis=0) + (W * dm * dN).sum(axis=0), dsum.sum(axis=0),
            VN.sum(axis=0) + (W * dN * dN).sum(axis=0), meanK_t,
            CK.sum(axis=0) + (W * dm * dK).sum(axis=0))


def slope_moments(side: Side, k: NDArray, s: NDArray, shifted: bool, exact: bool = True,
                  cols: NDArray[np.intp] | None = None) -> tuple[NDArray, ...] | None:
    """The moments of :func:`_block_moments` (tier 2, unweighted) with three more, merged
    over the side's row blocks: ``sum (N - mean N)^2``, the mean of ``K`` and ``sum (m -
    mean m) K``, where ``K = a^2 e^a - 2 N = a (N + m) - 2 N = kappa^3 d^2 phi / d kappa^2``
    (``N + m = a e^a``). With ``phi``'s and ``chi``'s moments they give the score's
    derivative in kappa. Returns None where the side is weighted or a block has more than
    ``WIDE`` columns (the callers then use the value-only solver).

    ``K``'s closed form loses ``eps / |a|`` relative for small ``|a|``: the derivative
    needs about 1e-8 relative (it only sets a Newton step's length), which it keeps
    unless the bulk of ``|a|`` lies below 1e-7. ``exact=False`` forms ``N`` by its closed
    form too (no series, ``eps / |a|`` relative), for a first pass whose score only
    starts the polish (see ``solve._newton_polish``).
    """
    if side.w is not None:
        return None
    n, p = side.v.shape
    if cols is not None:
        p = cols.size
    width = max(p, k.shape[0])
    if width >= WIDE:
        return None
    if width == 1:  # one column at one kappa (a long column's polish): flat blocks
        col = side.v[:, 0 if cols is None else int(cols[0])]
        return _slope_column(np.ascontiguousarray(col), float(k[0]), float(s[0]), shifted,
                             exact)
    rows = max(1, BLOCK_ELEMENTS // width)
    work = _work()
    kk, ss = k[:, None], s[:, None]
    parts = []
    with np.errstate(over="ignore", invalid="ignore"):
        for a0 in range(0, max(n, 1), rows):
            v = side.v[a0 : a0 + rows]
            if cols is not None:
                v = np.take(v, cols, axis=1)
            v = np.ascontiguousarray(v.T)
            shape = np.broadcast_shapes(v.shape, kk.shape)
            d = np.subtract(v, ss, out=work.get(4, shape)) if shifted else v
            a = np.multiply(d, kk, out=work.get(0, shape))
            m = np.expm1(a, out=work.get(1, shape))
            N = (a2_dexprel if exact else a2_closed)(a, m, out=work.get(2, shape),
                                                     tmp=work.get(3, shape))
            nrow = float(shape[1])
            mean = m.sum(axis=1) / nrow
            mc = np.subtract(m, mean[:, None], out=work.get(3, shape))
            M2 = _row_dots(mc, mc, "ij,ij->i")
            mcs = mc.sum(axis=1)
            meanN = N.sum(axis=1) / nrow
            cN = _row_dots(mc, N, "ij,ij->i")
            C2 = cN - meanN * mcs
            t = np.add(N, m, out=work.get(1, shape))  # a e^a; m is no longer needed
            t *= a
            meanK = t.sum(axis=1) / nrow - 2.0 * meanN
            CK = _row_dots(mc, t, "ij,ij->i") - 2.0 * cN - meanK * mcs
            # uncentred: the derivative needs 1e-10, and the rounding of sum N^2 - n mean^2
            # is eps (1 + mean^2 / var) of the side's spread of N, whose mean and spread are
            # alike (N >= 0 grows from 0 at the reference); one operation a block less
            VN = _row_dots(N, N, "ij,ij->i") - nrow * meanN * meanN
            dsum = np.broadcast_to(d.sum(axis=1), (width,)) if shifted else np.zeros(width)
            parts.append((np.full(width, nrow), mean, M2, meanN, C2, dsum, VN, meanK, CK))
    if len(parts) == 1:
        return parts[0]
    return _merge_slope_parts([np.stack(q) for q in zip(*parts, strict=True)])
