"""Robust PCA of (transformed) data: ``bcs.robust_pca``.

ROBPCA (:mod:`.robpca`) of complete numeric data, or MacroPCA (:mod:`.macropca`) of data with
missing and outlying cells: the checks of the input, the fit, and the flagged rows (and
cells) labelled by the data's rows, in a :class:`~boxcoxstat.pca.results.RobustPCAResult`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation.columns import BoxCoxError, as_columns
from .macropca import macropca
from .results import RobustPCAResult
from .robpca import robpca

__all__ = ["robust_pca"]


def _plain(v: Any) -> Any:
    if isinstance(v, np.generic):
        v = v.item()
    return v if isinstance(v, (int, float, str)) and not isinstance(v, bool) else str(v)


def robust_pca(data: Any, n_components: int | None = None, *, method: str = "robpca",
               h: float | None = None, kmax: int = 10, random_state: int = 0
               ) -> RobustPCAResult:
    """Robust principal component analysis by ROBPCA (Hubert, Rousseeuw & Vanden Branden
    2005), as rrcov's ``PcaHubert`` computes it, or by MacroPCA (Hubert, Rousseeuw & Van den
    Bossche 2019), as cellWise's ``MacroPCA`` computes it.

    Raymaekers & Rousseeuw (2021, section 4.3) transform each variable to central normality
    (``bcs.fit(..., method="rewml").standardized``) and then run a robust PCA: the transformed
    variables are roughly normal in the centre, which is what a robust PCA assumes, so the
    skewed variables' long tails no longer look like outliers.

    Parameters
    ----------
    data : array_like or DataFrame of shape (n, p)
        Numeric rows. ROBPCA needs complete rows (drop incomplete ones first, e.g.
        ``data.dropna()``); MacroPCA takes missing cells (NaN) and imputes them.
    n_components : int, optional
        Number of components ``k``; default: rrcov's rule (components up to an eigenvalue
        below 0.001 of the largest, at most ``kmax``, then the fewest reaching 80% of the
        robust variance; for MacroPCA, of the initial h-subset's variance, the number
        cellWise's ``MacroPCA(k = 0)`` suggests).
    method : {"robpca", "macropca"}, default="robpca"
        ``"robpca"``: ROBPCA, for complete rows with rowwise outliers. ``"macropca"``:
        MacroPCA, which also detects outlying cells (DDC, Rousseeuw & Van den Bossche 2018)
        and handles missing ones, with cellWise's defaults; it divides each variable by a
        robust scale first, and its results (scores, distances, cut-offs at the 0.99
        quantiles) are on that scale.
    h : float, optional
        Fraction of rows in the h-subsets (rrcov's and cellWise's ``alpha``); at least half.
        Default 0.75 for ROBPCA, 0.5 for MacroPCA (each package's default).
    kmax : int, default=10
        Most components considered.
    random_state : int, default=0
        Seed of the MCD's random starts (the deterministic starts do not depend on it).

    Returns
    -------
    RobustPCAResult

    Raises
    ------
    BoxCoxError
        Non-numeric values, missing values (ROBPCA), an unknown ``method``, fewer than 1000
        rows (MacroPCA: its DetMCD step follows robustbase's large-sample scale),
        ``n_components`` or ``h`` out of range.

    Notes
    -----
    MacroPCA (:mod:`boxcoxstat.pca.macropca`) equals cellWise 2.5.3's ``MacroPCA`` on the
    paper's DPOSS data (``tests/reference/macropca_reference.R``). ROBPCA: with few variables
    (rank ``<= min(n/5, kmax)``, as in the paper's DPOSS data) ROBPCA is the PCA of the
    reweighted MCD of the data; otherwise the projection stage (outlyingness
    over rrcov's deterministic directions, C-steps, the MCD in the k-dimensional subspace).
    The MCD's subset is searched from deterministic and random starts
    (:mod:`boxcoxstat.pca.mcd`), which is not certain to find the smallest determinant
    (neither are R's FastMCD and DetMCD). Shares of the variance are of all eigenvalues of
    the robust covariance (MCD stage) or of the initial h-subset's total variance
    (projection stage), as rrcov reports them.

    References
    ----------
    - Hubert, M., Rousseeuw, P. J. and Vanden Branden, K. (2005). ROBPCA: a new approach to
      robust principal component analysis. Technometrics 47, 64-79.
    - Raymaekers, J. and Rousseeuw, P. J. (2021). Transforming variables to central normality.
      Machine Learning 113, 4953-4975.
    - Hubert, M., Rousseeuw, P. J. and Van den Bossche, W. (2019). MacroPCA: an all-in-one
      PCA method allowing for missing values as well as cellwise and rowwise outliers.
      Technometrics 61, 459-473.

    Examples
    --------
    >>> import numpy as np, boxcoxstat as bcs
    >>> x = np.random.default_rng(1).standard_normal((100, 3)) @ np.diag([3.0, 1.0, 0.1])
    >>> bcs.robust_pca(x, n_components=2).explained_variance_ratio.round(2).tolist()
    [0.91, 0.09]

    MacroPCA flags single cells and takes missing ones:

    >>> i = np.arange(1, 1201)
    >>> t = np.column_stack([np.sin(i), np.cos(1.3 * i)])
    >>> x = t @ np.array([[1.0, 1.0, 0.0, 2.0], [0.0, 1.0, 1.0, -1.0]])
    >>> x = x + 0.05 * np.cos(np.outer(i, [3.0, 5.0, 7.0, 11.0]))
    >>> x[5, 2], x[7, 0] = 9.0, np.nan
    >>> pca = bcs.robust_pca(x, 2, method="macropca")
    >>> (5, 'x2') in pca.outlying_cells, 5 in pca.outliers
    (True, True)
    """
    if isinstance(n_components, bool) or not (
            n_components is None or isinstance(n_components, (int, np.integer))
            and n_components >= 1):
        raise BoxCoxError(f"n_components must be a positive integer or None, got "
                          f"{n_components!r}")
    if method not in ("robpca", "macropca"):
        raise BoxCoxError(f"method must be 'robpca' or 'macropca', got {method!r}")
    if h is None:
        h = 0.75 if method == "robpca" else 0.5
    if isinstance(h, bool) or not isinstance(h, (int, float)) or not 0.5 <= h <= 1:
        raise BoxCoxError(f"h must lie in [0.5, 1], got {h!r}")
    if isinstance(kmax, bool) or not isinstance(kmax, (int, np.integer)) or kmax < 1:
        raise BoxCoxError(f"kmax must be a positive integer, got {kmax!r}")
    k = None if n_components is None else int(n_components)
    if method == "macropca":
        return _macropca_result(data, k, float(h), int(kmax))
    cols = as_columns(data, family="yeojohnson", missing="drop", min_n=3)
    x = cols.values
    if np.isnan(x).any():
        i, j = np.argwhere(np.isnan(x))[0]
        raise BoxCoxError(f"robust_pca needs complete rows, but column {cols.names[j]!r} is "
                          f"missing at row {cols.row_label(int(i))!r}; drop incomplete rows "
                          "first (e.g. data.dropna()), or use method='macropca'")
    n = x.shape[0]
    fit = robpca(x, k, h=float(h), kmax=int(kmax), random_state=int(random_state))
    out = (fit.score_distances > fit.sd_cutoff) | (
        (fit.od_cutoff > 0) & (fit.orthogonal_distances > fit.od_cutoff))
    rows = np.flatnonzero(out)
    labels = [int(i) for i in rows] if cols.index is None else \
        [_plain(cols.index[i]) for i in rows]
    return RobustPCAResult(
        names=tuple(cols.names), center_values=fit.center, loadings_matrix=fit.loadings,
        eigenvalue_values=fit.eigenvalues, all_eigenvalues=fit.all_eigenvalues,
        sd_cutoff=fit.sd_cutoff, od_cutoff=fit.od_cutoff, h=fit.h, rank=fit.rank, nobs=n,
        method=fit.method, layout=cols.layout, flagged={"rows": labels},
        scores_matrix=fit.scores, sd_values=fit.score_distances,
        od_values=fit.orthogonal_distances, index=cols.index,
    )


MACRO_MIN_ROWS = 1000


def _macropca_result(data: Any, k: int | None, alpha: float, kmax: int) -> RobustPCAResult:
    """``robust_pca(..., method="macropca")``: checks, :func:`.macropca.macropca`, labels."""
    cols = as_columns(data, family="yeojohnson", missing="drop", min_n=3)
    x = cols.values
    n, d = x.shape
    if d < 2:
        raise BoxCoxError("MacroPCA needs at least 2 columns")
    if n < MACRO_MIN_ROWS:
        raise BoxCoxError(f"method='macropca' needs at least {MACRO_MIN_ROWS} rows (its DetMCD "
                          "step follows robustbase's scale for n >= 1000, the only branch "
                          f"implemented); got {n}. Use method='robpca' for smaller data")
    seen = np.isfinite(x)
    for j in range(d):
        if seen[:, j].sum() < n / 2:
            raise BoxCoxError(f"column {cols.names[j]!r} is missing in more than half of the "
                              "rows; MacroPCA needs at least half of each column (drop it)")
    bad = np.flatnonzero(seen.sum(axis=1) < d / 2)
    if bad.size:
        raise BoxCoxError(f"row {cols.row_label(int(bad[0]))!r} is missing in more than half "
                          f"of its cells ({bad.size} such rows); MacroPCA needs at least half "
                          "of each row (drop them first)")
    try:
        fit = macropca(x, k, alpha=alpha, kmax=kmax)
    except ValueError as err:  # DetMCD: more than h rows on a hyperplane
        raise BoxCoxError(f"MacroPCA failed: {err}; the data have too many identical or "
                          "collinear rows") from None
    out = (fit.score_distances > fit.sd_cutoff) | (
        (fit.od_cutoff > 0) & (fit.orthogonal_distances > fit.od_cutoff))

    def label(i: int) -> Any:
        return int(i) if cols.index is None else _plain(cols.index[i])

    rows = [label(int(i)) for i in np.flatnonzero(out)]
    cells = [[label(int(i)), cols.names[j]] for i, j in np.argwhere(fit.flagged_cells)]
    return RobustPCAResult(
        names=tuple(cols.names), center_values=fit.center, loadings_matrix=fit.loadings,
        eigenvalue_values=fit.eigenvalues, all_eigenvalues=fit.all_eigenvalues,
        sd_cutoff=fit.sd_cutoff, od_cutoff=fit.od_cutoff, h=fit.h, rank=fit.rank, nobs=n,
        method=f"MacroPCA (DDC, projection pursuit, {fit.iterations} iterations, DetMCD)",
        layout=cols.layout, flagged={"rows": rows, "cells": cells},
        scale_values=fit.scale, scores_matrix=fit.scores, sd_values=fit.score_distances,
        od_values=fit.orthogonal_distances, index=cols.index, resid_matrix=fit.std_resid,
    )
