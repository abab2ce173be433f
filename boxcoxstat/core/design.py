"""The design of a linear model: an orthonormal basis with R's rule for aliased columns.

Pure NumPy. ``qr_design`` factorises a (weighted) design once, as R's ``lm`` does, and is
shared by the response power of a linear model (``response.py``) and the joint power of
several columns around a design (``joint.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation.columns import BoxCoxError

__all__ = ["Design", "qr_design", "r_factor", "vector_norm", "R_TOLERANCE", "basis_products"]

R_TOLERANCE = 1e-7  # lm()'s tolerance for declaring a column aliased
THIN = 64  # basis vectors x columns up to which projections use einsum
# from this many rows a projection runs in row blocks (``basis_products``): on 1e6 rows and 11
# basis vectors 2.7x faster than einsum's matrix form for two columns, 1.25x for one
LONG_ROWS = 65536
TSQR_ROWS = 8192  # rows per block of r_factor: a block's Householder QR stays in cache


@dataclass(frozen=True)
class Design:
    """An orthonormal basis of the weighted design's column space.

    ``q`` (n, rank) spans ``sqrt(w) X[:, kept]``; ``kept`` and ``aliased`` are column positions
    (aliased ones are linear combinations of earlier columns, as R's ``lm`` reports them);
    ``sw`` holds ``sqrt(w)`` (``None`` without weights).
    """

    q: NDArray[np.float64]
    kept: NDArray[np.intp]
    aliased: NDArray[np.intp]
    sw: NDArray[np.float64] | None

    @property
    def nobs(self) -> int:
        return int(self.q.shape[0])

    @property
    def rank(self) -> int:
        return int(self.q.shape[1])

    @cached_property
    def constant_in_span(self) -> bool:
        """Whether the (weighted) constant lies in the column space: its residual is at most
        1e-10 of its norm (computed once per design; every response column asks)."""
        scale = np.sqrt(self.nobs) if self.sw is None else vector_norm(self.sw)
        return bool(vector_norm(self.resid(np.ones(self.nobs))) <= 1e-10 * scale)

    @cached_property
    def centres(self) -> bool:
        """Whether the residuals are the deviations from the mean: an unweighted design
        spanning the constants only (its one basis vector is constant to 1e-10 relative, the
        rule of :attr:`constant_in_span`; the basis of the normalised constant varies by a
        few units in its 14th digit, and the mean is the exact projection)."""
        if self.sw is not None or self.q.shape[1] != 1 or self.q.shape[0] == 0:
            return False
        q = self.q[:, 0]
        return bool(np.ptp(q) <= 1e-10 * abs(q[0]))

    def resid(self, u: NDArray[np.float64]) -> NDArray[np.float64]:
        """Weighted residuals ``sqrt(w) u - P sqrt(w) u`` of each column of ``u``.

        For an unweighted intercept-only design (:attr:`centres`) the projection is the
        mean: ``u - mean(u)``, corrected once by the mean of the result (as the projection is
        applied twice below), two reductions and two subtractions instead of four products
        with the basis."""
        if self.centres:  # (column sums by einsum: numpy's 2-D mean is 3 times slower)
            sums = "ij->j" if u.ndim == 2 else "i->"
            r = u - np.einsum(sums, u) / u.shape[0]
            r -= np.einsum(sums, r) / u.shape[0]
            return r
        r = u if self.sw is None else u * (self.sw if u.ndim == 1 else self.sw[:, None])
        q = self.q
        thin = q.shape[1] * (1 if r.ndim == 1 else r.shape[1]) <= THIN
        sub = ("ik,i->k", "ik,k->i") if r.ndim == 1 else ("ik,ij->kj", "ik,kj->ij")
        if r.shape[0] >= LONG_ROWS:  # long columns: blocked products, one pass each
            return _project_out_blocked(q, r)
        for _ in range(2):  # twice is enough (Kahan's "twice is enough" re-orthogonalisation)
            if thin:  # a few vectors: einsum, not BLAS (whose threads cost more than the work)
                r = r - np.einsum(sub[1], q, np.einsum(sub[0], q, r))
            else:
                r = r - q @ (q.T @ r)
        return r


def basis_products(q: NDArray[np.float64], u: NDArray[np.float64],
                   rows: int = TSQR_ROWS) -> NDArray[np.float64]:
    """``q.T @ u`` summed over blocks of ``rows`` rows: one pass over both, each block's
    product small enough for BLAS to run it in one thread (on 1e6 x 11 by 1e6 x 12, 1.7x
    faster than the one product on 2 cores under load, and 5x faster than column by column).
    """
    out = np.zeros((q.shape[1], u.shape[1]))
    for i in range(0, q.shape[0], rows):
        out += q[i : i + rows].T @ u[i : i + rows]
    return out


def _project_out_blocked(q: NDArray[np.float64], u: NDArray[np.float64],
                         rows: int = TSQR_ROWS, twice: bool = False) -> NDArray[np.float64]:
    """``u - q (q' u)``, each product in row blocks; a second pass for the columns whose
    residual is below ``1/sqrt(2)`` of their norm (the test of Daniel, Gragg, Kaufman &
    Stewart 1976: above it one pass leaves an error of about ``sqrt(2) eps`` of the
    residual), or for every column with ``twice`` (building a basis)."""
    r = u[:, None] if u.ndim == 1 else u
    cols = np.arange(r.shape[1])
    for k in range(2):
        sub = r if cols.size == r.shape[1] else r[:, cols]
        c = basis_products(q, sub, rows)
        out = np.empty(sub.shape)
        for i in range(0, sub.shape[0], rows):
            np.subtract(sub[i : i + rows], q[i : i + rows] @ c, out=out[i : i + rows])
        if k == 1 or twice:
            if cols.size == r.shape[1]:
                r = out
            else:
                r = r.copy()
                r[:, cols] = out
            if k == 1:
                break
            continue
        before = np.einsum("ij,ij->j", sub, sub)
        after = np.einsum("ij,ij->j", out, out)
        again = after < 0.5 * before
        r = out if cols.size == r.shape[1] else r
        if not again.any():
            break
        cols = cols[again]
    return r[:, 0] if u.ndim == 1 else r


def qr_design(
    x: ArrayLike, weights: ArrayLike | None = None, *, tol: float = R_TOLERANCE
) -> Design:
    """Factorise the weighted design as R's ``lm`` does, dropping aliased columns.

    Columns are taken in order; one whose part orthogonal to the columns kept so far is
    below ``tol`` times its own norm is aliased (the rule of LINPACK's ``dqrdc2`` that
    ``lm.fit`` uses).

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.core.response import qr_design
    >>> x = np.column_stack([np.ones(5), np.arange(5.0), 2 * np.arange(5.0)])
    >>> d = qr_design(x)
    >>> d.kept.tolist(), d.aliased.tolist()
    ([0, 1], [2])
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2:
        raise BoxCoxError("the design matrix must be 2-D")
    sw = None if weights is None else np.sqrt(np.asarray(weights, dtype=np.float64))
    xw = x if sw is None else x * sw[:, None]
    # each column in units of a power of two near its largest value (exact; the basis and the
    # aliasing rule are scale invariant), so norms of values beyond 1e154 do not overflow
    big = np.max(np.abs(xw), axis=0, initial=0.0)
    xw = xw / np.where(big > 0, np.ldexp(1.0, np.frexp(big)[1]), 1.0)
    if xw.shape[0] >= LONG_ROWS:
        return _long_design(xw, tol, sw)
    basis: list[NDArray] = []
    kept: list[int] = []
    for j in range(xw.shape[1]):
        col = xw[:, j]
        norm = vector_norm(col)
        r = col.copy()
        if basis:
            qk = np.column_stack(basis)
            for _ in range(2):
                r -= qk @ (qk.T @ r)
        rn = vector_norm(r)
        if norm > 0 and rn >= tol * norm:
            basis.append(r / rn)
            kept.append(j)
    kept_a = np.array(kept, dtype=np.intp)
    aliased = np.setdiff1d(np.arange(xw.shape[1]), kept_a).astype(np.intp)
    if kept:
        q, _ = np.linalg.qr(xw[:, kept_a])
    else:
        q = np.zeros((xw.shape[0], 0))
    return Design(q, kept_a, aliased, sw)


def _long_design(xw: NDArray[np.float64], tol: float, sw: NDArray[np.float64] | None
                 ) -> Design:
    """:func:`qr_design` of a long design: the same column-by-column rule, each column
    orthogonalised twice against the basis so far by blocked products
    (:func:`_project_out_blocked`), and that basis kept (classical Gram-Schmidt applied twice
    is orthonormal to rounding; Giraud, Langou & Rozloznik 2005) instead of a second,
    Householder factorisation: on 1e6 x 11 one pass of blocked products per step replaces
    ten growing copies of the basis and a LAPACK QR that ran through memory once per column.
    """
    n, p = xw.shape
    qb = np.empty((n, p))
    kept: list[int] = []
    for j in range(p):
        col = xw[:, j]
        norm = vector_norm(col)
        k = len(kept)
        r = _project_out_blocked(qb[:, :k], col, twice=True) if k else col.copy()
        rn = vector_norm(r)
        if norm > 0 and rn >= tol * norm:
            np.divide(r, rn, out=qb[:, k])
            kept.append(j)
    kept_a = np.array(kept, dtype=np.intp)
    aliased = np.setdiff1d(np.arange(p), kept_a).astype(np.intp)
    q = np.ascontiguousarray(qb[:, : len(kept)])
    return Design(q, kept_a, aliased, sw)


def vector_norm(v: NDArray[np.float64]) -> float:
    """Euclidean norm of a 1-D array without BLAS (``np.linalg.norm`` calls a threaded
    ``ddot``, whose threads cost milliseconds on a busy machine for a microsecond's work:
    12 ms for 1e5 values measured at load 4 on 2 cores)."""
    return float(np.sqrt(np.einsum("i,i->", v, v)))


def r_factor(a: NDArray[np.float64]) -> NDArray[np.float64]:
    """The upper-triangular factor ``T`` of a tall matrix (``a = Q T``, ``Q`` not formed).

    By blocks of ``TSQR_ROWS`` rows (TSQR: the factors of the blocks, stacked, factorised
    again; Demmel, Grigori, Hoemmen & Langou 2012), each a Householder QR, so the result is
    as accurate as one Householder QR of ``a``; the rows of ``T`` may differ from it in
    sign. On 1e5 x 5 it is several times faster than one LAPACK call on all rows, whose
    level-2 BLAS runs through memory (and through threads) once per column.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.core.design import r_factor
    >>> a = np.random.default_rng(0).normal(size=(50_000, 3))
    >>> t = r_factor(a)
    >>> bool(np.allclose(t.T @ t, a.T @ a, rtol=1e-12))
    True

    References
    ----------
    Demmel, J., Grigori, L., Hoemmen, M. and Langou, J. (2012). Communication-optimal
    parallel and sequential QR and LU factorizations. SIAM J. Sci. Comput. 34, A206-A239.
    """
    n = a.shape[0]
    if n <= 2 * TSQR_ROWS:
        return np.asarray(np.linalg.qr(a, mode="r"), dtype=np.float64)
    parts = [np.linalg.qr(a[i : i + TSQR_ROWS], mode="r") for i in range(0, n, TSQR_ROWS)]
    return np.asarray(np.linalg.qr(np.vstack(parts), mode="r"), dtype=np.float64)
