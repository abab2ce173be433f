"""Robust principal components: ROBPCA (Hubert, Rousseeuw & Vanden Branden 2005), as rrcov's
``PcaHubert`` computes it, for the analysis of transformed data in Raymaekers & Rousseeuw
(2021), section 4.3 (Figures 12 and 13).

Layer 4. The data are centred by their mean and rotated onto their classical principal axes
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

from .._validation import BoxCoxError
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
    all_eigenvalues: NDArray[np.float64]  # of the robust covariance, for the variance share
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


def _projection_branch(x: NDArray, pc: ClassPC, k: int | None, h: int, kmax: int,
                       random_state: int) -> PCAFit:
    raise BoxCoxError(
        f"ROBPCA's projection stage (rank {pc.rank} > min(n/5, kmax) = "
        f"{min(x.shape[0] // 5, kmax)}) is not implemented; reduce the number of variables "
        "or use more rows")
