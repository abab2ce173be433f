"""Robust principal components: ROBPCA (Hubert, Rousseeuw & Vanden Branden 2005), as rrcov's
``PcaHubert`` computes it, for the analysis of transformed data in Raymaekers & Rousseeuw
(2021), section 4.3 (Figures 12 and 13).

The data are centred by their mean and rotated onto their classical principal axes
(rrcov's ``.classPC``). With few variables (rank ``r <= min(n/5, kmax)``) ROBPCA is the PCA
of the reweighted MCD (:mod:`.mcd`) of those scores; otherwise the ``h`` least outlying rows
(Stahel-Donoho outlyingness over directions through pairs of points, univariate MCD
location and scale) give an initial subspace, which C-steps on the orthogonal distances and
the score distances refine, and the MCD in the ``k``-dimensional subspace gives the final
centre and eigenvectors. Each row gets a score distance ``SD = sqrt(sum_j t_j^2/l_j)`` and an
orthogonal distance ``OD = ||x - centre - P t||`` with the cut-offs ``sqrt(chi2_k(0.975))``
and ``(median(OD^(2/3)) + MAD(OD^(2/3)) Phi^-1(0.975))^(3/2)`` (Hubert et al. 2005, after
Wilson & Hilferty), as rrcov computes them.

References
----------
Hubert, M., Rousseeuw, P. J. and Vanden Branden, K. (2005). ROBPCA: a new approach to robust
principal component analysis. Technometrics 47, 64-79.
Raymaekers, J. and Rousseeuw, P. J. (2021). Transforming variables to central normality.
Machine Learning 113, 4953-4975.
Todorov, V. and Filzmoser, P. (2009). An object-oriented framework for robust multivariate
analysis. Journal of Statistical Software 32(3) (rrcov).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from .._validation.columns import BoxCoxError
from .mcd import h_alpha_n, mcd

__all__ = ["PCAFit", "robpca", "class_pc", "od_cutoff"]

CRIT = 0.975  # rrcov's crit.pca.distances


@dataclass(frozen=True)
class ClassPC:
    """Classical PCA as rrcov's ``.classPC``: centre, rank, loadings (sign-flipped so that the
    largest entry of each is positive), eigenvalues (denominator n - 1) and scores."""

    center: NDArray[np.float64]
    rank: int
    loadings: NDArray[np.float64]
    eigenvalues: NDArray[np.float64]
    scores: NDArray[np.float64]


def _signflip(v: NDArray[np.float64]) -> NDArray[np.float64]:
    big = v[np.argmax(np.abs(v), axis=0), np.arange(v.shape[1])]
    return v * np.where(big < 0, -1.0, 1.0)


def class_pc(x: NDArray[np.float64]) -> ClassPC:
    """rrcov's ``.classPC(x, scores = TRUE)`` (centred by the mean, not scaled)."""
    n, p = x.shape
    center = x.mean(axis=0)
    xc = x - center
    _, sv, vt = np.linalg.svd(xc, full_matrices=False)
    tol = max(n, p) * np.finfo(float).eps * (sv[0] if sv.size else 0.0)
    rank = int(np.sum(sv > tol))
    loadings = _signflip(vt[:rank].T)
    return ClassPC(center, rank, loadings, sv[:rank] ** 2 / (n - 1), xc @ loadings)


def od_cutoff(od: NDArray[np.float64], crit: float = CRIT) -> float:
    """rrcov's ``.crit.od(od, crit, "medmad")``: ``(median + mad * Phi^-1(crit))^(3/2)`` of
    ``od^(2/3)``, R's ``mad`` (1.4826)."""
    t = od ** (2.0 / 3.0)
    med = np.median(t)
    return float((med + 1.4826 * np.median(np.abs(t - med)) * stats.norm.ppf(crit)) ** 1.5)


def _choose_k(ev: NDArray[np.float64], rank: int, kmax: int) -> int:
    """rrcov's rule when k is not given: up to the first eigenvalue below 0.001 of the
    largest (at most ``kmax``), then the fewest components with 80% of the variance."""
    small = np.flatnonzero(ev / ev[0] <= 1e-3)
    k = min(rank, int(small[0]) + 1, kmax) if small.size else min(rank, kmax)
    cumulative = np.cumsum(ev[:k]) / ev.sum()
    if cumulative[k - 1] > 0.8:
        k = int(np.argmax(cumulative >= 0.8)) + 1
    return k


@dataclass(frozen=True)
class PCAFit:
    """What :func:`robpca` found (arrays; the result class labels them)."""

    center: NDArray[np.float64]
    loadings: NDArray[np.float64]  # (p, k)
    eigenvalues: NDArray[np.float64]  # (k,)
    # the total variance's parts: the robust covariance's eigenvalues (MCD branch), the
    # initial h-subset's (projection branch; rrcov's eig0)
    all_eigenvalues: NDArray[np.float64]
    scores: NDArray[np.float64]  # (n, k)
    score_distances: NDArray[np.float64]
    orthogonal_distances: NDArray[np.float64]
    sd_cutoff: float
    od_cutoff: float
    h: int
    rank: int
    method: str


def _distances(x: NDArray, center: NDArray, loadings: NDArray, ev: NDArray,
               scores: NDArray, rank: int) -> tuple[NDArray, NDArray, float, float]:
    k = loadings.shape[1]
    sd = np.sqrt((scores**2 / ev[:k]).sum(axis=1))
    od = np.sqrt((((x - center) - scores @ loadings.T) ** 2).sum(axis=1))
    cut_od = od_cutoff(od) if k != rank else 0.0
    return sd, od, float(np.sqrt(stats.chi2.ppf(CRIT, k))), cut_od


def robpca(x: NDArray[np.float64], k: int | None = None, *, h: float = 0.75, kmax: int = 10,
           random_state: int = 0) -> PCAFit:
    """ROBPCA of complete data ``x`` (n, p) with ``k`` components (None: rrcov's rule).

    ``h`` is the fraction of rows in the h-subsets (rrcov's ``alpha``), ``kmax`` the largest
    number of components considered.
    """
    n, p = x.shape
    pc = class_pc(x)
    if pc.rank == 0:
        raise BoxCoxError("all rows are identical: there are no principal components")
    kmax = max(min(int(kmax), pc.rank), 1)
    if k is not None and k > kmax:
        raise BoxCoxError(f"n_components={k} is more than the {kmax} components available "
                          f"(rank {pc.rank}, kmax {kmax})")
    hh = min(h_alpha_n(h, n, kmax), n)
    floor_h = (n + (kmax if k is None else k) + 1) // 2
    hh = max(hh, floor_h)
    alpha = hh / n
    if pc.rank <= min(n // 5, kmax):
        return _mcd_branch(x, pc, k, alpha, kmax, random_state)
    return _projection_branch(x, pc, k, hh, kmax, random_state)


def _mcd_branch(x: NDArray, pc: ClassPC, k: int | None, alpha: float, kmax: int,
                random_state: int) -> PCAFit:
    """Few variables: the PCA of the reweighted MCD of the classical scores."""
    n = x.shape[0]
    fit = mcd(pc.scores, h_alpha_n(alpha, n, pc.rank), alpha, random_state=random_state)
    u, ev, _ = np.linalg.svd(fit.cov)
    if k is None:
        k = _choose_k(ev, pc.rank, kmax)
    k = min(k, pc.rank)
    u = _signflip(u)
    scores = (pc.scores - fit.center) @ u[:, :k]
    center = pc.center + fit.center @ pc.loadings.T
    loadings = pc.loadings @ u[:, :k]
    sd, od, cut_sd, cut_od = _distances(x, center, loadings, ev, scores, pc.rank)
    return PCAFit(center, loadings, ev[:k], ev, scores, sd, od, cut_sd, cut_od,
                  len(fit.best), pc.rank, "ROBPCA (MCD of the classical scores)")


def _uniran(seed: float) -> tuple[float, float]:
    """rrcov's ``uniran``: the congruential generator behind its directions."""
    seed = np.floor(seed * 5761) + 999
    quot = np.floor(seed / 65536)
    seed = np.floor(seed) - np.floor(quot * 65536)
    return float(seed), float(seed / 65536)


def _directions(x: NDArray, ndir: int) -> NDArray:
    """rrcov's ``extradir``: differences of pairs of rows, all pairs when there are at most
    ``ndir`` of them, else ``ndir`` pairs from ``uniran`` started at 0 (deterministic)."""
    n = x.shape[0]
    if n * (n - 1) // 2 <= ndir:
        i, j = np.triu_indices(n, 1)
        order = np.lexsort((j, i))  # R's combn: (1,2), (1,3), ..., (2,3), ...
        return x[i[order]] - x[j[order]]
    out = np.empty((ndir, x.shape[1]))
    seed = 0.0
    for r in range(ndir):
        seed, u = _uniran(seed)
        a = int(np.floor(u * n))
        while True:
            seed, u = _uniran(seed)
            b = int(np.floor(u * n))
            if b != a:
                break
        out[r] = x[a] - x[b]
    return out


def unimcd(y: NDArray, quan: int) -> tuple[float, float, NDArray[np.bool_]]:
    """rrcov's ``unimcd``: the univariate MCD of ``y`` with ``quan`` points (the contiguous
    window of smallest variance), rescaled and reweighted at ``chi2_1(0.975)``; returns the
    reweighted location, scale and weights."""
    n = y.size
    if n - quan + 1 == 1:
        return float(y.mean()), float(y.std(ddof=1)), np.ones(n, dtype=bool)
    order = np.argsort(y, kind="stable")
    ys = y[order]
    c1 = np.concatenate([[0.0], np.cumsum(ys)])
    c2 = np.concatenate([[0.0], np.cumsum(ys * ys)])
    sums = c1[quan:] - c1[:-quan]
    sq = (c2[quan:] - c2[:-quan]) - sums**2 / quan
    best = np.flatnonzero(sq == sq.min())
    mean0 = sums[best[(best.size + 1) // 2 - 1]] / quan
    var0 = sq.min() / (quan - 1)
    res = (ys - mean0) ** 2 / var0
    var0 *= np.sort(res)[quan - 1] / stats.chi2.ppf(quan / n, 1)
    w = (ys - mean0) ** 2 / var0 < stats.chi2.ppf(0.975, 1)
    t = float((ys * w).sum() / w.sum())
    sd = float(np.sqrt(((ys - t) ** 2 * w).sum() / (w.sum() - 1)))
    weights = np.empty(n, dtype=bool)
    weights[order] = w
    return t, sd, weights


def outlyingness(x: NDArray, h: int, ndir: int = 250) -> NDArray:
    """Stahel-Donoho outlyingness over rrcov's directions, with the univariate MCD's location
    and scale (rrcov's ``outl``)."""
    b = _directions(x, ndir)
    norms = np.sqrt((b * b).sum(axis=1))
    a = b[norms > 1e-12] / norms[norms > 1e-12, None]
    proj = x @ a.T
    z = np.zeros(proj.shape)
    for i in range(proj.shape[1]):
        t, sd, _ = unimcd(proj[:, i], h)
        if sd >= 1e-12:
            z[:, i] = np.abs(proj[:, i] - t) / sd
    return z.max(axis=1)


def _projection_branch(x: NDArray, pc: ClassPC, k: int | None, h: int, kmax: int,
                       random_state: int) -> PCAFit:
    """Many variables: ROBPCA's projection stage (Hubert et al. 2005, steps 1-3)."""
    n = x.shape[0]
    alpha = h / n
    xs = pc.scores
    h0 = np.argsort(outlyingness(xs, h), kind="stable")[:h]
    sub = class_pc(xs[h0])
    eig0 = sub.eigenvalues
    kmax = min(sub.rank, kmax)
    if k is None:
        k = _choose_k(sub.eigenvalues, sub.rank, kmax)
    if k != pc.rank:  # reweight by the orthogonal distances to the initial subspace
        k = min(sub.rank, k)
        xrc = xs - sub.center
        p_k = sub.loadings[:, :k]
        odh = np.sqrt(((xrc - xrc @ p_k @ p_k.T) ** 2).sum(axis=1))
        t, sd, _ = unimcd(odh ** (2.0 / 3.0), h)
        keep = odh <= (t + sd * stats.norm.ppf(CRIT)) ** 1.5
        sub = class_pc(xs[keep])
        k = min(sub.rank, k)
    center = pc.center + sub.center @ pc.loadings.T
    rot = (pc.loadings @ sub.loadings)[:, :k]
    x2 = ((xs - sub.center) @ sub.loadings)[:, :k]
    ev = sub.eigenvalues
    # C-steps on the score distances in the k-dimensional subspace
    mah = (x2**2 / ev[:k]).sum(axis=1)
    old = np.prod(ev[:k])
    for _ in range(100):
        step = class_pc(x2[np.argsort(mah, kind="stable")[:h]])
        obj = np.prod(step.eigenvalues)
        x2 = (x2 - step.center) @ step.loadings
        center = center + step.center @ rot.T
        rot = rot @ step.loadings
        mah = (x2**2 / step.eigenvalues).sum(axis=1)
        if step.rank == k and abs(old - obj) < 1e-12:
            break
        old = obj
        k = min(k, step.rank)
    fit = mcd(x2, h_alpha_n(alpha, n, x2.shape[1]), alpha, random_state=random_state)
    ev_all, vec = np.linalg.eigh(fit.cov)
    ev_all, vec = ev_all[::-1], _signflip(vec[:, ::-1])
    center = center + fit.center @ rot.T
    loadings = rot @ vec
    scores = (x2 - fit.center) @ vec
    sd_, od, cut_sd, cut_od = _distances(x, center, loadings, ev_all, scores, pc.rank)
    # no robust eigenvalues beyond the k-dimensional subspace: shares of the variance are of
    # the initial h-subset's total variance (rrcov's eig0 and totvar0)
    return PCAFit(center, loadings, ev_all, eig0, scores, sd_, od, cut_sd, cut_od, h,
                  pc.rank, "ROBPCA (projection pursuit, C-steps, MCD in the subspace)")
