"""Robust PCA of (transformed) data: ``bcs.robust_pca`` and its result.

Layer 5. ROBPCA (:mod:`.pca`) of complete numeric data, or MacroPCA (:mod:`.macropca`) of
data with missing and outlying cells, labelled: explained variance, loadings, scores, score
and orthogonal distances with their cut-offs, the flagged rows (and, for MacroPCA, cells),
the outlier map, the pairs plot of the scores and the cellwise residual map (Raymaekers &
Rousseeuw 2021, section 4.3, Figures 12-13). The result saves to JSON without the data; a
loaded one still projects new data (``transform``) and reports, and refuses what needs the
fitted rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .._validation.columns import BoxCoxError, as_columns, new_columns
from ..base import jsonio
from ..base.jsonio import saved
from ..base.results import ResultBase
from ..base.summary import Summary, format_number
from .macropca import macropca
from .robpca import robpca

__all__ = ["RobustPCAResult", "robust_pca"]


def _plain(v: Any) -> Any:
    if isinstance(v, np.generic):
        v = v.item()
    return v if isinstance(v, (int, float, str)) and not isinstance(v, bool) else str(v)


@dataclass(frozen=True, repr=False, eq=False)
class RobustPCAResult(ResultBase):
    """Robust principal components (build with :func:`boxcoxstat.robust_pca`).

    Attributes
    ----------
    names : tuple of str
        The variables.
    method : str
        How the robust covariance was found (ROBPCA's MCD or projection stage, or MacroPCA).
    h : int
        Rows in the h-subset.
    rank : int
        Rank of the centred data.
    nobs : int
        Number of rows fitted.
    sd_cutoff, od_cutoff : float
        Cut-offs of the score distance (``sqrt(chi2_k(q))``, ``q`` 0.975 for ROBPCA and
        0.99 for MacroPCA) and of the orthogonal distance (0 when ``k`` equals the rank: no
        orthogonal space).
    scale_values : ndarray or None
        MacroPCA: the variables' one-step M scales, by which the data are divided before the
        PCA (None for ROBPCA).

    Examples
    --------
    >>> import numpy as np, boxcoxstat as bcs
    >>> rng = np.random.default_rng(0)
    >>> t = rng.standard_normal((200, 2))
    >>> x = np.column_stack([t[:, 0], t[:, 0] + 0.5 * t[:, 1], t[:, 1],
    ...                      0.05 * rng.standard_normal(200)])
    >>> x[:5, 3] += 3.0                                   # five orthogonal outliers
    >>> pca = bcs.robust_pca(x, n_components=2)
    >>> pca.outliers[:5], bool(pca.explained_variance_ratio.sum() > 0.95)
    ([0, 1, 2, 3, 4], True)
    """

    names: tuple[str, ...] = saved(jsonio.Strs())
    center_values: NDArray[np.float64] = saved(jsonio.Floats(length_of="names"))
    loadings_matrix: NDArray[np.float64] = saved(jsonio.Matrix(length_of="names"))
    eigenvalue_values: NDArray[np.float64] = saved(jsonio.Floats())
    all_eigenvalues: NDArray[np.float64] = saved(jsonio.Floats())
    sd_cutoff: float = saved(jsonio.Float())
    od_cutoff: float = saved(jsonio.Float())
    h: int = saved(jsonio.Int(minimum=1))
    rank: int = saved(jsonio.Int(minimum=1))
    nobs: int = saved(jsonio.Int(minimum=2))
    method: str = saved(jsonio.Str())
    layout: str = saved(jsonio.Str(choices=("series", "frame", "array1d", "array2d")))
    flagged: dict[str, list[Any]] = saved(jsonio.Mapping_())
    scale_values: NDArray[np.float64] | None = saved(
        jsonio.Floats(length_of="names", optional=True), default=None)
    scores_matrix: NDArray[np.float64] | None = None
    sd_values: NDArray[np.float64] | None = None
    od_values: NDArray[np.float64] | None = None
    index: Any = None
    resid_matrix: NDArray[np.float64] | None = None

    json_version = 2
    json_added = {"scale_values": 2}  # MacroPCA's; version-1 documents load with None

    @property
    def _macro(self) -> bool:
        return self.method.startswith("MacroPCA")

    @staticmethod
    def _check_loaded(values: dict[str, Any]) -> None:
        k = len(values["eigenvalue_values"])
        if values["loadings_matrix"].shape[1:] != (k,):
            raise jsonio._Bad(f"field 'loadings_matrix' must have {k} columns, one per "
                              "eigenvalue")
        if not isinstance(values["flagged"].get("rows"), list):
            raise jsonio._Bad("field 'flagged' must hold the list 'rows'")

    # ----------------------------------------------------------------- labelled values
    @property
    def n_components(self) -> int:
        """Number of components ``k``."""
        return int(self.eigenvalue_values.size)

    @property
    def components(self) -> list[str]:
        return [f"PC{j + 1}" for j in range(self.n_components)]

    @property
    def eigenvalues(self) -> pd.Series:
        """Robust variances of the ``k`` scores."""
        return pd.Series(self.eigenvalue_values, index=self.components, name="eigenvalue")

    @property
    def explained_variance_ratio(self) -> pd.Series:
        """Each component's share of the robust total variance. ROBPCA: the eigenvalue over
        the sum of all the robust covariance's eigenvalues (for its projection stage, of the
        initial h-subset's total variance, rrcov's ``totvar0``). MacroPCA: the shares
        cellWise's ``MacroPCA(k = 0)`` reports, the eigenvalues of the initial h-subset over
        their sum."""
        first = self.all_eigenvalues[: self.n_components] if self._macro \
            else self.eigenvalue_values
        return pd.Series(first / self.all_eigenvalues.sum(),
                         index=self.components, name="explained variance ratio")

    @property
    def loadings(self) -> pd.DataFrame:
        """The ``p x k`` loadings (unit columns; each component's sign is a convention: its
        largest entry in the rotation of the classical axes is positive)."""
        return pd.DataFrame(self.loadings_matrix, index=list(self.names),
                            columns=self.components)

    @property
    def center(self) -> pd.Series:
        """The robust centre, by variable."""
        return pd.Series(self.center_values, index=list(self.names), name="center")

    def _need(self, what: str) -> None:
        if self.scores_matrix is None:
            self._not_available(what, "the result holds no fitted rows (it was loaded from "
                                "JSON); transform(data) gives the scores of any data")

    def _rows(self, values: NDArray, name: str) -> Any:
        if self.layout in ("series", "frame"):
            return pd.Series(values, index=self.index, name=name)
        return values.copy()

    @property
    def scores(self) -> Any:
        """The fitted rows' scores: DataFrame (pandas input) or ndarray ``n x k``."""
        self._need("scores")
        assert self.scores_matrix is not None
        if self.layout in ("series", "frame"):
            return pd.DataFrame(self.scores_matrix, index=self.index, columns=self.components)
        return self.scores_matrix.copy()

    @property
    def score_distances(self) -> Any:
        """Robust Mahalanobis distance of each row's projection: ``sqrt(sum_j t_j^2/l_j)``."""
        self._need("score_distances")
        assert self.sd_values is not None
        return self._rows(self.sd_values, "score distance")

    @property
    def orthogonal_distances(self) -> Any:
        """Distance of each row to the ``k``-dimensional robust subspace."""
        self._need("orthogonal_distances")
        assert self.od_values is not None
        return self._rows(self.od_values, "orthogonal distance")

    @property
    def cutoffs(self) -> pd.Series:
        """The score and orthogonal distance cut-offs."""
        return pd.Series({"score distance": self.sd_cutoff,
                          "orthogonal distance": self.od_cutoff}, name="cutoff")

    @property
    def outliers(self) -> list[Any]:
        """Rows beyond either cut-off (labels, or positions for NumPy input)."""
        return list(self.flagged["rows"])

    @property
    def outlying_cells(self) -> list[tuple[Any, str]]:
        """MacroPCA: the cells whose standardized residual exceeds ``sqrt(chi2_1(0.99))``,
        as ``(row, column)`` pairs (row labels, or positions for NumPy input); empty for
        ROBPCA, which does not look at cells."""
        return [(r, c) for r, c in self.flagged.get("cells", [])]

    @property
    def cell_residuals(self) -> pd.DataFrame:
        """MacroPCA: the standardized cell residuals ``(x - fit) / scale`` of the fitted
        rows (NaN where a cell is missing); rows labelled as the data."""
        if not self._macro:
            self._not_available("cell_residuals", "ROBPCA has no cellwise residuals; use "
                                "method='macropca'")
        self._need("cell_residuals")
        assert self.resid_matrix is not None
        return pd.DataFrame(self.resid_matrix, index=self.index, columns=list(self.names))

    # ----------------------------------------------------------------- new data
    def transform(self, data: Any) -> Any:
        """Scores of ``data`` (same variables, complete rows): ``(x - center) @ loadings``,
        with MacroPCA's variables first divided by their scales."""
        x = new_columns(data, self.names, None)
        xc = x - self.center_values
        if self.scale_values is not None:
            xc = xc / self.scale_values
        out = xc @ self.loadings_matrix
        if isinstance(data, (pd.DataFrame, pd.Series)):
            return pd.DataFrame(out, index=data.index, columns=self.components)
        return out

    # ----------------------------------------------------------------- reports
    def summary(self) -> Summary:
        """Eigenvalues, explained variance, loadings, cut-offs and flagged rows."""
        ratio = self.explained_variance_ratio
        var = pd.DataFrame({"eigenvalue": self.eigenvalue_values, "proportion": ratio,
                            "cumulative": ratio.cumsum()}, index=self.components)
        q = "0.99" if self._macro else "0.975"
        share = ("Proportions are of the initial h-subset's total variance, as cellWise's "
                 "MacroPCA(k = 0) reports them; the data were divided by the scales "
                 "(one-step M) first." if self._macro else
                 "Proportions are of the robust total variance (rrcov's totvar0: all "
                 "eigenvalues of the robust covariance, or of the initial h-subset in the "
                 "projection stage).")
        notes = [
            f"{self.method}; h = {self.h} of {self.nobs} rows; rank {self.rank}.",
            share,
            f"Cut-offs: score distance {format_number(self.sd_cutoff)} "
            f"(sqrt chi2_{self.n_components}({q})), orthogonal distance "
            f"{format_number(self.od_cutoff)} (Hubert, Rousseeuw & Vanden Branden 2005).",
        ]
        if self._macro:
            notes.append(f"{len(self.flagged.get('cells', []))} cells with a standardized "
                         "residual beyond sqrt(chi2_1(0.99)) (outlying_cells).")
        rows = self.outliers
        shown = ", ".join(str(v) for v in rows[:20])
        notes.append(f"{len(rows)} rows beyond a cut-off" + (f": {shown}" if rows else "")
                     + (f" ... ({len(rows)} in all)" if len(rows) > 20 else ""))
        name = "MacroPCA" if self._macro else "ROBPCA"
        return Summary(f"Robust PCA ({name}), {self.n_components} components",
                       [("Variance", var), ("Loadings", self.loadings)], notes, {})

    def __repr__(self) -> str:
        share = self.explained_variance_ratio.sum()
        return (f"<RobustPCAResult {self.n_components} of {len(self.names)} variables, "
                f"{share:.1%} of the robust variance; {len(self.outliers)} rows flagged>")

    # ----------------------------------------------------------------- plots
    def plot_outlier_map(self, *, ax: Any = None, labels: int = 0, color: Any = None) -> Any:
        """Score distance against orthogonal distance with both cut-offs (Hubert et al.
        2005; Raymaekers & Rousseeuw 2021, Fig. 13); see
        :func:`boxcoxstat.robust.plotting.plot_outlier_map`."""
        from ..robust.plotting import plot_outlier_map

        self._need("plot_outlier_map")
        return plot_outlier_map(self, ax=ax, labels=labels, color=color)

    def plot_scores(self, *, ax: Any = None, color: Any = None) -> Any:
        """Pairs plot of the scores (Raymaekers & Rousseeuw 2021, Fig. 12); see
        :func:`boxcoxstat.robust.plotting.plot_score_pairs`."""
        from ..robust.plotting import plot_score_pairs

        self._need("plot_scores")
        return plot_score_pairs(self, ax=ax, color=color)

    def plot_residual_map(self, rows: Any = None, *, ax: Any = None, cutoff: float | None = None
                          ) -> Any:
        """MacroPCA's cellwise residual map (Hubert, Rousseeuw & Van den Bossche 2019): the
        standardized residuals of the chosen rows, coloured when beyond the cut-off (red
        above, blue below); see :func:`boxcoxstat.robust.plotting.plot_residual_map`.
        ``rows``: labels (positions for NumPy input); default the 30 rows with the largest
        orthogonal distance."""
        from ..robust.plotting import plot_residual_map

        resid = self.cell_residuals
        return plot_residual_map(self, resid, rows, ax=ax, cutoff=cutoff)


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
