"""The minimum covariance determinant (MCD) estimator, reweighted, as robustbase computes it.

Used by ROBPCA (:mod:`.robpca`) when the data have few variables. The raw MCD is the
mean and covariance of the ``h`` rows whose covariance has the smallest determinant
(Rousseeuw 1984); they are found by concentration steps (C-steps: keep the ``h`` rows closest
to the current fit, refit) from many starts (Rousseeuw & Van Driessen 1999), deterministic
ones in the spirit of DetMCD (Hubert, Rousseeuw & Verdonck 2012) and random ``(p+1)``-subsets
as FastMCD, each iterated to convergence. Then, as ``robustbase::covMcd``: the raw covariance
times the consistency factor ``.MCDcons(p, h/n)`` and the small-sample factor
``.MCDcnp2(p, n, alpha)`` (Pison, Van Aelst & Willems 2002); rows with squared distance below
``chi2_p(0.975)`` are kept and their mean and covariance (``cov.wt``) times
``.MCDcons(p, m/n)`` and ``.MCDcnp2.rew(p, n, alpha)`` are the reweighted estimates.

Neither FastMCD nor DetMCD is sure to find the subset of smallest determinant; where R and
this search find different local minima their results differ (by a few rows on the DPOSS
data); see ``tests/reference/robpca_reference.R``.

References
----------
Rousseeuw, P. J. (1984). Least median of squares regression. JASA 79, 871-880.
Rousseeuw, P. J. and Van Driessen, K. (1999). A fast algorithm for the minimum covariance
determinant estimator. Technometrics 41, 212-223.
Pison, G., Van Aelst, S. and Willems, G. (2002). Small sample corrections for LTS and MCD.
Metrika 55, 111-123.
Hubert, M., Rousseeuw, P. J. and Verdonck, T. (2012). A deterministic algorithm for robust
location and scatter. JCGS 21, 618-637.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import stats

__all__ = ["MCD", "mcd", "detmcd", "scale_tau2", "h_alpha_n", "mcd_consistency",
           "mcd_small_sample"]


def h_alpha_n(alpha: float, n: int, p: int) -> int:
    """robustbase's ``h.alpha.n``: the size of the MCD's subset for coverage ``alpha``.

    Examples
    --------
    >>> from boxcoxstat.pca.mcd import h_alpha_n
    >>> h_alpha_n(0.75, 11478, 7)
    8610
    """
    n2 = (n + p + 1) // 2
    return int(np.floor(2 * n2 - n + 2 * (n - n2) * alpha))


def mcd_consistency(p: int, alpha: float) -> float:
    """robustbase's ``.MCDcons``: ``alpha / P(chi2_{p+2} <= chi2_p(alpha))``, which makes the
    covariance of the central ``alpha`` of a normal sample consistent."""
    q = stats.chi2.ppf(alpha, p)
    return float(alpha / stats.gamma.cdf(q / 2.0, p / 2.0 + 1.0))


_CNP2 = {  # robustbase's .MCDcnp2 (raw) and .MCDcnp2.rew (reweighted) coefficients
    "raw": {"p1": ((0.262024211897096, 0.604756680630497),
                   (-0.351584646688712, 1.01646567502486)),
            "p2": ((0.673292623522027, 0.691365864961895),
                   (0.446537815635445, 1.06690782995919)),
            "q500": ((-1.42764571687802, 1.26263336932151, 2.0),
                     (-1.06141115981725, 1.28907991440387, 3.0)),
            "q875": ((-0.455179464070565, 1.11192541278794, 2.0),
                     (-0.294241208320834, 1.09649329149811, 3.0))},
    "rew": {"p1": ((1.11098143415027, 1.5182890270453),
                   (-0.66046776772861, 0.88939595831888)),
            "p2": ((3.11101712909049, 1.91401056721863),
                   (0.79473550581058, 1.10081930350091)),
            "q500": ((-1.02842572724793, 1.67659883081926, 2.0),
                     (-0.26800273450853, 1.35968562893582, 3.0)),
            "q875": ((-0.544482443573914, 1.25994483222292, 2.0),
                     (-0.343791072183285, 1.25159004257133, 3.0))},
}


def _fp(coef: tuple, p: int, n: int) -> float:
    """``1 - exp(c0)/n^c1`` with (c0, c1) fitted through the two (p^2-scaled) points."""
    (a1, b1, m1), (a2, b2, m2) = coef
    y = np.log([-a1 / p**b1, -a2 / p**b2])
    a = np.array([[1.0, -np.log(m1 * p * p)], [1.0, -np.log(m2 * p * p)]])
    c0, c1 = np.linalg.solve(a, y)
    return float(1.0 - np.exp(c0) / n**c1)


def mcd_small_sample(p: int, n: int, alpha: float, kind: str = "raw") -> float:
    """robustbase's ``.MCDcnp2`` (``kind="raw"``) and ``.MCDcnp2.rew`` (``"rew"``): the
    small-sample correction of Pison, Van Aelst & Willems (2002), interpolated in ``alpha``.
    (robustbase replaces the ``alpha = 0.5`` value by a simulated table for some (p, n);
    that table is not reproduced, so alpha = 0.5 can differ slightly from R.)"""
    c = _CNP2[kind]
    if p == 1:
        f500, f875 = (1.0 - np.exp(a) / n**b for a, b in c["p1"])
    elif p == 2:
        f500, f875 = (1.0 - np.exp(a) / n**b for a, b in c["p2"])
    else:
        f500, f875 = _fp(c["q500"], p, n), _fp(c["q875"], p, n)
    if alpha <= 0.875:
        f = f500 + (f875 - f500) / 0.375 * (alpha - 0.5)
    else:
        f = f875 + (1.0 - f875) / 0.125 * (alpha - 0.875)
    return float(1.0 / f)


@dataclass(frozen=True)
class MCD:
    """The (reweighted) MCD of a data matrix, robustbase's ``covMcd`` fields."""

    center: NDArray[np.float64]
    cov: NDArray[np.float64]
    raw_center: NDArray[np.float64]
    raw_cov: NDArray[np.float64]
    best: NDArray[np.intp]  # the h rows (0-based, sorted)
    crit: float  # log det of the h rows' covariance (denominator h - 1)
    weights: NDArray[np.float64]  # reweighting: 1 where the raw distance is below the cut-off
    raw_cnp2: tuple[float, float]
    cnp2: tuple[float, float]


def _fit(x: NDArray, rows: NDArray) -> tuple[NDArray, NDArray]:
    sub = x[rows]
    return sub.mean(axis=0), np.cov(sub, rowvar=False, ddof=1).reshape(x.shape[1], -1)


def _closest(x: NDArray, center: NDArray, cov: NDArray, h: int) -> NDArray[np.intp] | None:
    """The ``h`` rows of smallest Mahalanobis distance, or None for a singular fit."""
    try:
        chol = np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        return None
    z = np.linalg.solve(chol, (x - center).T)
    d = np.einsum("ij,ij->j", z, z)
    return np.sort(np.argpartition(d, h - 1)[:h])


def _csteps(x: NDArray, rows: NDArray, h: int, limit: int) -> tuple[NDArray, float]:
    """C-steps from ``rows`` (at most ``limit``); the last subset and its log determinant."""
    crit = np.inf
    for _ in range(limit):
        center, cov = _fit(x, rows)
        sign, logdet = np.linalg.slogdet(cov)
        if sign <= 0:
            return rows, -np.inf
        new = _closest(x, center, cov, h)
        if new is None:
            return rows, -np.inf
        if np.array_equal(new, rows):
            return rows, logdet
        rows, crit = new, logdet
    return rows, crit


def _deterministic_starts(x: NDArray, h: int) -> list[NDArray[np.intp]]:
    """Starting subsets from robust initial fits on the columns standardized by median and
    MAD (in the spirit of DetMCD): the ``h`` rows closest by the correlation of tanh, of the
    ranks, of the normal scores, and by the spatial sign covariance; and the ``h`` rows
    nearest the coordinatewise median."""
    n, p = x.shape
    med = np.median(x, axis=0)
    mad = 1.4826 * np.median(np.abs(x - med), axis=0)
    z = (x - med) / np.where(mad > 0, mad, 1.0)
    ranks = stats.rankdata(z, axis=0)
    transforms = [np.tanh(z), ranks, stats.norm.ppf((ranks - 1.0 / 3.0) / (n + 1.0 / 3.0))]
    norms = np.sqrt((z * z).sum(axis=1, keepdims=True))
    transforms.append(z / np.where(norms > 0, norms, 1.0))
    starts = []
    for t in transforms:
        s = np.corrcoef(t, rowvar=False).reshape(p, p) if p > 1 else np.ones((1, 1))
        # eigenvectors of the initial correlation, scales of z along them (Qn-like: MAD)
        _, vec = np.linalg.eigh(s)
        proj = z @ vec
        pm = np.median(proj, axis=0)
        scale = 1.4826 * np.median(np.abs(proj - pm), axis=0)
        scale = np.where(scale > 0, scale, 1.0)
        d = (((proj - pm) / scale) ** 2).sum(axis=1)
        starts.append(np.sort(np.argpartition(d, h - 1)[:h]))
    d = (z * z).sum(axis=1)
    starts.append(np.sort(np.argpartition(d, h - 1)[:h]))
    return starts


def mcd(x: NDArray[np.float64], h: int, alpha: float, *, n_random: int = 500,
        n_best: int = 50, random_state: int = 0, max_csteps: int = 200) -> MCD:
    """The reweighted MCD of ``x`` (n, p) with subset size ``h``, as ``robustbase::covMcd``.

    ``alpha`` is the coverage robustbase passes to its small-sample factors (``covMcd``'s
    ``alpha``, whose ``h.alpha.n`` is ``h``). The search: the deterministic starts of
    :func:`_deterministic_starts` and ``n_random`` random ``(p+1)``-subsets (drawn with
    ``numpy.random.default_rng(random_state)``), each given two C-steps; the deterministic
    starts and the ``n_best`` best random ones are iterated to convergence and the smallest
    determinant wins.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.pca.mcd import mcd, h_alpha_n
    >>> x = np.random.default_rng(0).standard_normal((200, 3))
    >>> x[:20] += 8.0
    >>> fit = mcd(x, h_alpha_n(0.75, 200, 3), 0.75)
    >>> bool(np.all(np.abs(fit.center) < 0.3)), int(fit.weights[:20].sum())
    (True, 0)
    """
    n, p = x.shape
    rng = np.random.default_rng(random_state)
    fixed = _deterministic_starts(x, h)
    starts = []
    for _ in range(n_random):
        rows = np.sort(rng.choice(n, size=min(n, p + 1), replace=False))
        center, cov = _fit(x, rows)
        k = p + 1
        while np.linalg.matrix_rank(cov) < p and k < n:  # FastMCD: grow a singular start
            k += 1
            rows = np.sort(rng.choice(n, size=k, replace=False))
            center, cov = _fit(x, rows)
        new = _closest(x, center, cov, h)
        if new is not None:
            starts.append(new)
    short = [_csteps(x, s, h, 2) for s in starts]
    short.sort(key=lambda rc: rc[1])
    seen: list[NDArray] = []
    best_rows, best_crit = fixed[0], np.inf
    for rows in fixed + [rc[0] for rc in short[:n_best]]:
        if any(np.array_equal(rows, s) for s in seen):
            continue
        seen.append(rows)
        rows, crit = _csteps(x, rows, h, max_csteps)
        if crit < best_crit:
            best_rows, best_crit = rows, crit
    return _reweighted(x, best_rows, float(best_crit), h, alpha)


def _reweighted(x: NDArray, best_rows: NDArray, best_crit: float, h: int, alpha: float) -> MCD:
    """covMcd's tail: the raw estimates of the ``h`` rows ``best_rows`` with robustbase's
    consistency and small-sample factors, then the reweighted estimates."""
    n, p = x.shape
    raw_center, s_h = _fit(x, best_rows)
    raw_cnp2 = (mcd_consistency(p, h / n), mcd_small_sample(p, n, alpha, "raw"))
    raw_cov = s_h * raw_cnp2[0] * raw_cnp2[1]
    r = np.linalg.solve(np.linalg.cholesky(raw_cov), (x - raw_center).T)
    weights = (np.einsum("ij,ij->j", r, r) < stats.chi2.ppf(0.975, p)).astype(np.float64)
    m = int(weights.sum())
    center, cov = _fit(x, np.flatnonzero(weights))
    cnp2 = (1.0, 1.0)
    if m != n:
        cnp2 = (mcd_consistency(p, m / n), mcd_small_sample(p, n, alpha, "rew"))
        cov = cov * cnp2[0] * cnp2[1]
    return MCD(center, cov, raw_center, raw_cov, best_rows, best_crit, weights,
               raw_cnp2, cnp2)


def scale_tau2(x: NDArray[np.float64], c1: float = 4.5, c2: float = 3.0) -> float:
    """The tau scale of Yohai & Zamar (1988) in Maronna & Zamar's (2002) version, one step,
    with robustbase's consistency factor (``robustbase::scaleTau2`` with its defaults)."""
    n = x.size
    mu0 = float(np.median(x))
    xa = np.abs(x - mu0)
    s0 = float(np.median(xa))
    if s0 <= 0:
        return 0.0
    b = c2 * stats.norm.ppf(0.75)
    es2 = 2.0 * ((1.0 - b * b) * stats.norm.cdf(b) - b * stats.norm.pdf(b) + b * b) - 1.0
    w = np.maximum(0.0, 1.0 - (xa / (s0 * c1)) ** 2) ** 2
    mu = float((x * w).sum() / w.sum())
    rho = np.minimum(((x - mu) / s0) ** 2, c2 * c2)
    return float(s0 * np.sqrt(rho.sum() / (n * es2)))


def _median_tau(x: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    """robustbase's ``doScale(x, median, scaleTau2)``."""
    center = np.median(x, axis=0)
    xc = x - center
    scale = np.array([scale_tau2(c) for c in xc.T])
    if np.any(scale <= 0):
        raise ValueError("a column has zero tau scale")
    return xc / scale, center, scale


def _pc(x: NDArray) -> tuple[NDArray, NDArray, NDArray, int]:
    """robustbase's ``classPC`` (no sign flip): centre, loadings, eigenvalues (n - 1), rank."""
    n, p = x.shape
    center = x.mean(axis=0)
    _, sv, vt = np.linalg.svd(x - center, full_matrices=False)
    tol = max(n, p) * np.finfo(float).eps * (sv[0] if sv.size else 0.0)
    rank = int(np.sum(sv > tol))
    return center, vt[:rank].T, sv[:rank] ** 2 / (n - 1), rank


def _pc_order(z: NDArray, rows: NDArray) -> NDArray[np.intp]:
    center, vec, ev, rank = _pc(z[rows])
    if rank < z.shape[1]:
        raise ValueError("more than h of the observations lie on a hyperplane")
    score = (z - center) @ vec
    return np.argsort((score**2 / np.abs(ev)).sum(axis=1), kind="stable")


def _initset(z: NDArray, vec: NDArray, h: int) -> NDArray[np.intp]:
    proj = z @ vec
    lam = np.array([scale_tau2(c) for c in (proj - np.median(proj, axis=0)).T])
    sqrtcov = vec @ (lam[:, None] * vec.T)
    sqrtinv = vec @ (vec.T / lam[:, None])
    est = np.median(z @ sqrtinv, axis=0) @ sqrtcov
    cx = (z - est) @ vec
    return np.argsort(((cx / lam) ** 2).sum(axis=1), kind="stable")[:h]


def _eigvec(m: NDArray) -> NDArray:
    _, vec = np.linalg.eigh(m)
    return vec[:, ::-1]


def _r6pack(z: NDArray, h: int) -> list[NDArray[np.intp]]:
    """robustbase's ``r6pack``: the six deterministic starts of DetMCD (Hubert, Rousseeuw &
    Verdonck 2012) on median/tau-standardized data, each refined by one C-step."""
    n, p = z.shape
    ranks = stats.rankdata(z, axis=0)
    starts = []
    vecs = [_eigvec(np.corrcoef(np.tanh(z), rowvar=False).reshape(p, p)),
            _eigvec(np.corrcoef(ranks, rowvar=False).reshape(p, p)),
            _eigvec(np.corrcoef(stats.norm.ppf((ranks - 1.0 / 3.0) / (n + 1.0 / 3.0)),
                                rowvar=False).reshape(p, p))]
    norm = np.sqrt((z * z).sum(axis=1))
    big = norm > np.finfo(float).eps
    zn = z.copy()
    zn[big] = z[big] / norm[big, None]
    vecs.append(_eigvec(zn.T @ zn))
    half = np.argsort(norm, kind="stable")[: int(np.ceil(n / 2))]
    vecs.append(_eigvec(np.cov(z[half], rowvar=False).reshape(p, p)))
    u = np.eye(p)
    for i in range(1, p):
        for j in range(i):
            u[i, j] = u[j, i] = (scale_tau2(z[:, i] + z[:, j]) ** 2
                                 - scale_tau2(z[:, i] - z[:, j]) ** 2) / 4.0
    vecs.append(_eigvec(u))
    for vec in vecs:
        starts.append(_pc_order(z, _initset(z, vec, h))[:h])
    return starts


def detmcd(x: NDArray[np.float64], h: int, alpha: float, *, max_csteps: int = 200) -> MCD:
    """The reweighted deterministic MCD (Hubert, Rousseeuw & Verdonck 2012) as
    ``robustbase::covMcd(x, nsamp = "deterministic")`` computes it for ``n >= 1000`` rows
    (robustbase's default scale, ``scaleTau2``, there): the six starts of ``r6pack``,
    C-steps from each until the subset repeats, the subset of smallest determinant, then
    covMcd's consistency factors and reweighting. ``crit`` is the log determinant of the
    best subset's covariance, as covMcd reports it.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.pca.mcd import detmcd, h_alpha_n
    >>> i = np.arange(1, 1201)
    >>> x = np.column_stack([np.sin(i), np.cos(1.7 * i) + 0.3 * np.sin(i)])
    >>> x[:50] += 6.0
    >>> fit = detmcd(x, h_alpha_n(0.75, 1200, 2), 0.75)
    >>> int(fit.weights[:50].sum()), bool(np.all(np.abs(fit.center) < 0.1))
    (0, True)
    """
    n, p = x.shape
    if n < 1000:
        raise ValueError("detmcd follows robustbase's scaleTau2 branch, for n >= 1000")
    z, _, zscale = _median_tau(x)
    best_rows: NDArray[np.intp] | None = None
    best = np.inf
    for start in _r6pack(z, h):
        rows = start
        prev_obj, prev_rows = np.nan, None
        for j in range(max_csteps):
            if j > 0:
                rows = _pc_order(z, rows)[:h]
            center, vec, ev, rank = _pc(z[rows])
            if rank < p:
                raise ValueError("more than h of the observations lie on a hyperplane")
            obj = float(np.log(ev).sum())
            if j > 0 and obj == prev_obj and prev_rows is not None and \
                    np.array_equal(rows, prev_rows):
                break
            prev_obj, prev_rows = obj, rows
        if obj < best:
            best, best_rows = obj, rows
    assert best_rows is not None
    crit = best + 2.0 * float(np.log(zscale).sum())
    return _reweighted(x, np.sort(best_rows), crit, h, alpha)
