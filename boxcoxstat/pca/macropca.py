"""MacroPCA: principal components robust to cellwise and rowwise outliers and missing values
(Hubert, Rousseeuw & Van den Bossche 2019), as cellWise's ``MacroPCA`` computes it.

The steps (cellWise 2.5.3's defaults: ``alpha = 0.5``, ``scale = TRUE``,
``maxdir = 250``, ``distprob = 0.99``, ``maxiter = 20``, ``tol = 0.005``):

1. DDC (:mod:`.ddc`) flags deviating cells and rows; flagged and missing cells get DDC's
   imputations. Each variable is divided by its one-step M scale.
2. Projection pursuit: in the ``n - h`` rows with the most flagged cells (and DDC's flagged
   rows) only the missing cells are imputed; the Stahel-Donoho outlyingness over 250
   directions through pairs of rows (rrcov's deterministic generator), with cellWise's
   univariate MCD, picks the ``h`` least outlying rows ``H0`` (not flagged by DDC).
3. The classical PCA of ``H0`` gives the initial ``k``-dimensional subspace.
4. Iteration: the imputed cells are replaced by their fit in the subspace and the PCA of
   ``H0`` recomputed, until the largest principal angle between successive subspaces is
   below ``tol`` (as a fraction of 90 degrees) or ``maxiter`` steps.
5. Reweighting: rows whose orthogonal distance is within the cut-off (univariate MCD of
   ``OD^(2/3)``, Wilson-Hilferty) and not flagged by DDC form ``H*``; their PCA.
6. DetMCD in the ``k``-dimensional subspace (C-steps as in ROBPCA, then
   ``robustbase::covMcd(nsamp = "deterministic")``, :func:`.mcd.detmcd`), whose covariance
   gives the final eigenvalues and loadings (or a reweighted covariance when the MCD
   criterion is not below the C-steps', as cellWise decides).
7. Scores, score and orthogonal distances of the data with only their missing values imputed
   (``X.NAimp``); the OD cut-off comes from the cell-imputed data, the SD cut-off is
   ``sqrt(chi2_k(0.99))``. Standardized cell residuals (by their one-step scale) flag
   outlying cells beyond ``sqrt(chi2_1(0.99))``.

cellWise's ``truncPC`` computes its SVDs with ``svd::propack.svd``; here NumPy's LAPACK
SVD, which agrees with it to rounding. (cellWise's fallback to base ``svd`` stops with an
error whenever ``k`` is below the rank; see ``tests/reference/CELLWISE_NOTES.md``.)

References
----------
Hubert, M., Rousseeuw, P. J. and Van den Bossche, W. (2019). MacroPCA: an all-in-one PCA
method allowing for missing values as well as cellwise and rowwise outliers. Technometrics
61, 459-473.
Rousseeuw, P. J. and Van den Bossche, W. (2018). Detecting deviating data cells.
Technometrics 60, 135-145.
Hubert, M., Rousseeuw, P. J. and Verdonck, T. (2012). A deterministic algorithm for robust
location and scatter. JCGS 21, 618-637.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from .._validation.columns import BoxCoxError
from .ddc import DDCFit, ddc, loc_scale_1step, unimcd_cw
from .mcd import detmcd, h_alpha_n
from .robpca import _choose_k, _directions, _signflip

__all__ = ["MacroPCAFit", "macropca"]


@dataclass(frozen=True)
class MacroPCAFit:
    """What :func:`macropca` found (arrays, on the scale of the data divided by ``scale``)."""

    scale: NDArray[np.float64]  # the variables' one-step M scales
    center: NDArray[np.float64]  # on the data's scale
    loadings: NDArray[np.float64]  # (d, k)
    eigenvalues: NDArray[np.float64]  # (k,)
    scores: NDArray[np.float64]  # of the NA-imputed data
    score_distances: NDArray[np.float64]
    orthogonal_distances: NDArray[np.float64]
    sd_cutoff: float
    od_cutoff: float
    h: int
    rank: int
    iterations: int
    angle: float
    std_resid: NDArray[np.float64]  # standardized cell residuals (NaN where missing)
    resid_scale: NDArray[np.float64]
    flagged_cells: NDArray[np.bool_]
    na_imputed: NDArray[np.float64]  # X.NAimp, on the data's scale
    ddc: DDCFit
    step6: str  # "mcd" or "reweighted"
    all_eigenvalues: NDArray[np.float64]  # of the initial h-subset (cellWise's scree)


def _trunc_pc(x: NDArray, ncomp: int | None = None
              ) -> tuple[int, NDArray, NDArray, NDArray]:
    """cellWise's ``truncPC`` (centred): rank (singular values > 1e-10 among the first
    ``ncomp``), eigenvalues ``sv^2/(n-1)``, sign-flipped loadings, centre."""
    n, d = x.shape
    center = x.mean(axis=0)
    _, sv, vt = np.linalg.svd(x - center, full_matrices=False)
    if ncomp is not None:
        ncomp = min(ncomp, n, d)
        sv, vt = sv[:ncomp], vt[:ncomp]
    rank = int(np.sum(sv > 1e-10))
    if rank == 0:
        raise BoxCoxError("MacroPCA: the rows used have rank zero (all equal)")
    return rank, sv[:rank] ** 2 / (n - 1), _signflip(vt[:rank].T), center


def _max_angle(p: NDArray, q: NDArray) -> float:
    m = p.T @ q @ q.T @ p
    lo = min(float(np.linalg.eigvalsh((m + m.T) / 2.0).min()), 1.0)
    return float(np.arccos(np.sqrt(max(lo, 0.0))) / (np.pi / 2.0))


def _od(x: NDArray, center: NDArray, loadings: NDArray) -> tuple[NDArray, NDArray]:
    scores = (x - center) @ loadings
    res = x - center - scores @ loadings.T
    return scores, np.sqrt((res * res).sum(axis=1))


def _least_outlying(dd: DDCFit, xnai: NDArray, xoimp: NDArray, h: int, alpha: float,
                    maxdir: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """MacroPCA's step 2: the ``h`` least outlying rows ``H0`` by projection pursuit, and the
    rows DDC flags among the ``n - h`` of largest row statistic (left out of ``H0``)."""
    n, d = xnai.shape
    q1 = float(np.sqrt(stats.chi2.ppf(0.99, 1)))
    ti = np.abs(dd.row_stat)
    by_ti = np.argsort(-ti, kind="stable")[: n - h]
    rows2 = np.sort(by_ti[ti[by_ti] > q1])
    # the rows with the most flagged cells keep their outlying cells for the projections
    cells = dd.flagged.sum(axis=1)
    cells[rows2] = d
    low = np.argsort(cells, kind="stable")[:h]
    xci = xoimp.copy()
    comb = np.setdiff1d(np.arange(n), low)
    xci[comb] = xnai[comb]
    b = _directions(xci, min(maxdir, n * (n - 1) // 2))
    norms = np.sqrt((b * b).sum(axis=1))
    a = b[norms > 1e-12] / norms[norms > 1e-12, None]
    proj = xci @ a.T
    z = np.empty(proj.shape)
    for j in range(proj.shape[1]):
        loc, sc, _ = unimcd_cw(proj[:, j], alpha)
        if sc < 1e-12:
            raise BoxCoxError("MacroPCA: at least half of the rows are identical along a "
                              "direction through two rows; remove duplicated rows")
        z[:, j] = np.abs(proj[:, j] - loc) / sc
    h0 = np.argsort(z.max(axis=1), kind="stable")
    return h0[~np.isin(h0, rows2)][:h], rows2


def macropca(x: NDArray[np.float64], k: int | None, *, alpha: float = 0.5, kmax: int = 10,
             maxdir: int = 250, distprob: float = 0.99, maxiter: int = 20,
             tol: float = 0.005) -> MacroPCAFit:
    """MacroPCA of ``x`` (n, d; NaN for a missing cell) with ``k`` components (None: the
    fewest whose share of the initial h-subset's variance reaches 80%, after dropping those
    with an eigenvalue below 0.001 of the largest, at most ``kmax``: the choice cellWise's
    ``MacroPCA(k = 0)`` suggests).

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.pca.macropca import macropca
    >>> i = np.arange(1, 1201)
    >>> t = np.column_stack([np.sin(i), np.cos(1.3 * i)])
    >>> x = t @ np.array([[1.0, 1.0, 0.0, 2.0], [0.0, 1.0, 1.0, -1.0]])
    >>> x = x + 0.05 * np.column_stack([np.cos(3 * i), np.sin(5 * i), np.cos(7 * i),
    ...                                 np.sin(11 * i)])
    >>> x[5, 2] = 9.0                       # one outlying cell
    >>> x[7, 0] = np.nan                    # one missing cell
    >>> fit = macropca(x, 2)
    >>> bool(fit.flagged_cells[5, 2]), bool(fit.score_distances[5] > fit.sd_cutoff
    ...                                     or fit.orthogonal_distances[5] > fit.od_cutoff)
    (True, True)
    """
    x = np.array(x, dtype=np.float64)
    n, d = x.shape
    q1 = float(np.sqrt(stats.chi2.ppf(0.99, 1)))
    kmax = min(kmax, d)
    dd = ddc(x)
    missing = ~np.isfinite(x)
    imp = dd.flagged | missing
    scale = loc_scale_1step(x)[1]
    xo = x / scale
    xnai = xo.copy()
    xoimp = np.where(imp, dd.imputed, x) / scale
    xnai[missing] = xoimp[missing]
    rank_all = _trunc_pc(xoimp)[0]
    # the total variance: all eigenvalues of the h0 rows' PCA, as cellWise's k = 0 (scree)
    # call reports them, with its subset size for kmax components
    hk = h_alpha_n(alpha, n, kmax)
    first = _least_outlying(dd, xnai, xoimp, hk, alpha, maxdir)
    h0k = first[0]
    rank0, eig0 = _trunc_pc(xoimp[h0k])[:2]
    if k is None:
        k = _choose_k(eig0, rank0, min(kmax, rank0))
    k = min(int(k), kmax)
    h = h_alpha_n(alpha, n, k)
    h0, rows2 = first if h == hk else _least_outlying(dd, xnai, xoimp, h, alpha, maxdir)
    xci = xoimp.copy()
    rank_h, ev_h, p_all, m = _trunc_pc(xci[h0], kmax)
    k = min(k, rank_h)
    pr = p_all[:, :k]
    iterations, angle = 0, 0.0
    if imp.any() and maxiter > 0:
        angle = 100.0
        while iterations < maxiter and angle > tol:
            iterations += 1
            fit = (xci - m) @ pr @ pr.T + m
            xci[imp] = fit[imp]
            rank_h, ev_h, p_new, m = _trunc_pc(xci[h0], k)
            p_all = p_new
            k = min(k, rank_h)
            angle = _max_angle(p_new[:, :k], pr)
            pr = p_new[:, :k]
    fit = (xci - m) @ pr @ pr.T + m
    xci[imp] = fit[imp]
    xnai[missing] = xci[missing]
    xfi = xci.copy()
    outside = np.setdiff1d(np.arange(n), h0)
    xci[outside] = xnai[outside]
    if k < rank_all:
        xrc = xci - m
        res = xrc - xrc @ pr @ pr.T
        odh = np.sqrt((res * res).sum(axis=1))
        loc, sc, _ = unimcd_cw(odh ** (2.0 / 3.0), alpha)
        hstar = odh <= np.sqrt(stats.norm.ppf(distprob, loc, sc) ** 3)
        hstar[rows2] = False
        rank_s, ev_s, p_s, c_s = _trunc_pc(xfi[hstar], k)
        k = min(rank_s, k)
    else:
        hstar = np.zeros(n, dtype=bool)
        hstar[h0] = True  # cellWise keeps the last PCA of the h0 rows
        rank_s, ev_s, p_s, c_s = rank_h, ev_h, p_all, m
    xci = xfi.copy()
    xci[~hstar] = xnai[~hstar]
    center = c_s.copy()
    rot = p_s[:, :k]
    n1 = int(hstar.sum())
    h1 = h_alpha_n(alpha, n1, k)
    x1 = ((xci[hstar] - c_s) @ p_s)[:, :k]
    mah = (x1**2 / ev_s[:k]).sum(axis=1)
    old = float(np.prod(ev_s[:k]))
    obj = old
    for _ in range(100):  # C-steps on the score distances, as ROBPCA
        sub = x1[np.argsort(mah, kind="stable")[:h1]]
        rank_c, ev_c, p_c, c_c = _trunc_pc(sub, k)
        obj = float(np.prod(ev_c))
        x1 = (x1 - c_c) @ p_c
        center = center + c_c @ rot.T
        rot = rot @ p_c
        mah = (x1**2 / ev_c).sum(axis=1)
        if rank_c == k and abs(old - obj) < 1e-12:
            break
        old = obj
        if rank_c < k:
            k = rank_c
    a_mcd = h1 / n1
    mcdfit = detmcd(x1, h_alpha_n(a_mcd, n1, x1.shape[1]), a_mcd)
    if mcdfit.crit < obj + 1e-16:
        cov2, c2, step6 = mcdfit.cov, mcdfit.center, "mcd"
    else:
        kk = x1.shape[1]
        mah = mah / (np.median(mah) / stats.chi2.ppf(0.5, kk))
        w = mah <= stats.chi2.ppf(0.975, kk)
        c2 = x1[w].mean(axis=0)
        cov2 = (x1[w] - c2).T @ (x1[w] - c2) / w.sum()
        step6 = "reweighted"
    ev, vec = np.linalg.eigh(cov2)
    ev, vec = ev[::-1], vec[:, ::-1]
    center = center + c2 @ rot.T
    loadings = _signflip(rot @ vec)
    kf = loadings.shape[1]
    # distances: the cut-off of OD from the cell-imputed data, the values of the NA-imputed
    _, od_ci = _od(xci, center, loadings)
    cut_sd = float(np.sqrt(stats.chi2.ppf(distprob, kf)))
    cut_od = 0.0
    if kf != rank_all:
        loc, sc, _ = unimcd_cw(od_ci ** (2.0 / 3.0), alpha)
        cut_od = float((loc + sc * stats.norm.ppf(distprob)) ** 1.5)
    scores, od = _od(xnai, center, loadings)
    sd = np.sqrt((scores**2 / ev[:kf]).sum(axis=1))
    if kf < rank_all:
        resid = (xo - center) - scores @ loadings.T
        rscale = loc_scale_1step(resid, center=False)[1]
        std = resid / rscale
        with np.errstate(invalid="ignore"):
            cellflag = np.abs(std) > q1
    else:
        std = 0.0 * (xo - center)
        rscale = np.zeros(d)
        cellflag = np.zeros((n, d), dtype=bool)
    return MacroPCAFit(scale, center * scale, loadings, ev[:kf], scores, sd, od, cut_sd,
                       cut_od, h, rank_all, iterations, angle, std, rscale, cellflag,
                       xnai * scale, dd, step6, eig0)
