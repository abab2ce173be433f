"""Robust PCA of (transformed) data: ``bcs.robust_pca`` and its result.

Layer 5. ROBPCA (:mod:`.pca`) of complete numeric data, labelled: explained variance,
loadings, scores, score and orthogonal distances with their cut-offs, the flagged rows, the
outlier map and the pairs plot of the scores (Raymaekers & Rousseeuw 2021, section 4.3,
Figures 12-13). The result saves to JSON without the data; a loaded one still projects new
data (``transform``) and reports, and refuses what needs the fitted rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .._validation import BoxCoxError, as_columns, new_columns
from ..base import jsonio
from ..base.jsonio import saved
from ..base.results import ResultBase
from ..base.summary import Summary, format_number
from .pca import robpca

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
        How the robust covariance was found (ROBPCA's MCD or projection stage).
    h : int
        Rows in ROBPCA's h-subset.
    rank : int
        Rank of the centred data.
    nobs : int
        Number of rows fitted.
    sd_cutoff, od_cutoff : float
        Cut-offs of the score distance (``sqrt(chi2_k(0.975))``) and of the orthogonal
        distance (0 when ``k`` equals the rank: no orthogonal space).

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
    scores_matrix: NDArray[np.float64] | None = None
    sd_values: NDArray[np.float64] | None = None
    od_values: NDArray[np.float64] | None = None
    index: Any = None

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
        """Each component's share of the robust total variance (the sum of all the robust
        covariance's eigenvalues; for ROBPCA's projection stage, of the initial h-subset's
        total variance, rrcov's ``totvar0``)."""
        return pd.Series(self.eigenvalue_values / self.all_eigenvalues.sum(),
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

    # ----------------------------------------------------------------- new data
    def transform(self, data: Any) -> Any:
        """Scores of ``data`` (same variables): ``(x - center) @ loadings``."""
        x = new_columns(data, self.names, None)
        out = (x - self.center_values) @ self.loadings_matrix
        if isinstance(data, (pd.DataFrame, pd.Series)):
            return pd.DataFrame(out, index=data.index, columns=self.components)
        return out

    # ----------------------------------------------------------------- reports
    def summary(self) -> Summary:
        """Eigenvalues, explained variance, loadings, cut-offs and flagged rows."""
        ratio = self.explained_variance_ratio
        var = pd.DataFrame({"eigenvalue": self.eigenvalue_values, "proportion": ratio,
                            "cumulative": ratio.cumsum()}, index=self.components)
        notes = [
            f"{self.method}; h = {self.h} of {self.nobs} rows; rank {self.rank}.",
            "Proportions are of the robust total variance (rrcov's totvar0: all eigenvalues of "
            "the robust covariance, or of the initial h-subset in the projection stage).",
            f"Cut-offs: score distance {format_number(self.sd_cutoff)} "
            f"(sqrt chi2_{self.n_components}(0.975)), orthogonal distance "
            f"{format_number(self.od_cutoff)} (Hubert, Rousseeuw & Vanden Branden 2005).",
        ]
        rows = self.outliers
        shown = ", ".join(str(v) for v in rows[:20])
        notes.append(f"{len(rows)} rows beyond a cut-off" + (f": {shown}" if rows else "")
                     + (f" ... ({len(rows)} in all)" if len(rows) > 20 else ""))
        return Summary(f"Robust PCA (ROBPCA), {self.n_components} components",
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
        from .plotting import plot_outlier_map

        self._need("plot_outlier_map")
        return plot_outlier_map(self, ax=ax, labels=labels, color=color)

    def plot_scores(self, *, axes: Any = None, color: Any = None) -> Any:
        """Pairs plot of the scores (Raymaekers & Rousseeuw 2021, Fig. 12); see
        :func:`boxcoxstat.robust.plotting.plot_score_pairs`."""
        from .plotting import plot_score_pairs

        self._need("plot_scores")
        return plot_score_pairs(self, axes=axes, color=color)


def robust_pca(data: Any, n_components: int | None = None, *, h: float = 0.75,
               kmax: int = 10, random_state: int = 0) -> RobustPCAResult:
    """Robust principal component analysis by ROBPCA (Hubert, Rousseeuw & Vanden Branden
    2005), as rrcov's ``PcaHubert`` computes it.

    Raymaekers & Rousseeuw (2021, section 4.3) transform each variable to central normality
    (``bcs.fit(..., method="rewml").standardized``) and then run a robust PCA: the transformed
    variables are roughly normal in the centre, which is what a robust PCA assumes, so the
    skewed variables' long tails no longer look like outliers.

    Parameters
    ----------
    data : array_like or DataFrame of shape (n, p)
        Complete numeric rows (drop incomplete ones first, e.g. ``data.dropna()``).
    n_components : int, optional
        Number of components ``k``; default: rrcov's rule (components up to an eigenvalue
        below 0.001 of the largest, at most ``kmax``, then the fewest reaching 80% of the
        robust variance).
    h : float, default=0.75
        Fraction of rows in the h-subsets (rrcov's ``alpha``); at least half.
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
        Missing or non-numeric values, ``n_components`` or ``h`` out of range.

    Notes
    -----
    With few variables (rank ``<= min(n/5, kmax)``, as in the paper's DPOSS data) ROBPCA is
    the PCA of the reweighted MCD of the data; otherwise the projection stage (outlyingness
    over rrcov's deterministic directions, C-steps, the MCD in the k-dimensional subspace).
    The MCD's subset is searched from deterministic and random starts
    (:mod:`boxcoxstat.robust.mcd`), which is not certain to find the smallest determinant
    (neither are R's FastMCD and DetMCD). Shares of the variance are of all eigenvalues of
    the robust covariance (MCD stage) or of the initial h-subset's total variance
    (projection stage), as rrcov reports them.

    References
    ----------
    - Hubert, M., Rousseeuw, P. J. and Vanden Branden, K. (2005). ROBPCA: a new approach to
      robust principal component analysis. Technometrics 47, 64-79.
    - Raymaekers, J. and Rousseeuw, P. J. (2021). Transforming variables to central normality.
      Machine Learning 113, 4953-4975.

    Examples
    --------
    >>> import numpy as np, boxcoxstat as bcs
    >>> x = np.random.default_rng(1).standard_normal((100, 3)) @ np.diag([3.0, 1.0, 0.1])
    >>> bcs.robust_pca(x, n_components=2).explained_variance_ratio.round(2).tolist()
    [0.91, 0.09]
    """
    if isinstance(n_components, bool) or not (
            n_components is None or isinstance(n_components, (int, np.integer))
            and n_components >= 1):
        raise BoxCoxError(f"n_components must be a positive integer or None, got "
                          f"{n_components!r}")
    if isinstance(h, bool) or not isinstance(h, (int, float)) or not 0.5 <= h <= 1:
        raise BoxCoxError(f"h must lie in [0.5, 1], got {h!r}")
    if isinstance(kmax, bool) or not isinstance(kmax, (int, np.integer)) or kmax < 1:
        raise BoxCoxError(f"kmax must be a positive integer, got {kmax!r}")
    cols = as_columns(data, family="yeojohnson", missing="drop", min_n=3)
    x = cols.values
    if np.isnan(x).any():
        i, j = np.argwhere(np.isnan(x))[0]
        raise BoxCoxError(f"robust_pca needs complete rows, but column {cols.names[j]!r} is "
                          f"missing at row {cols.row_label(int(i))!r}; drop incomplete rows "
                          "first (e.g. data.dropna())")
    n = x.shape[0]
    fit = robpca(x, None if n_components is None else int(n_components), h=float(h),
                 kmax=int(kmax), random_state=int(random_state))
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
