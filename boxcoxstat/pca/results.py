"""Robust PCA of (transformed) data: the result of ``bcs.robust_pca`` (:mod:`.model`).

ROBPCA (:mod:`.robpca`) of complete numeric data, or MacroPCA (:mod:`.macropca`) of
data with missing and outlying cells, labelled: explained variance, loadings, scores, score
and orthogonal distances with their cut-offs, the flagged rows (and, for MacroPCA, cells),
the outlier map, the pairs plot of the scores and the cellwise residual map (Raymaekers &
Rousseeuw 2021, section 4.3, Figures 12-13). The result saves to JSON without the data; a
loaded one still projects new data (``transform``) and reports, and refuses what needs the
fitted rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .._validation.columns import new_columns
from ..base import jsonio
from ..base.jsonio import saved
from ..base.results import LIKELIHOOD, UNCERTAINTY, ResultBase, refusals
from ..base.summary import Summary, format_number

__all__ = ["RobustPCAResult"]


_NOT_A_LIKELIHOOD_FIT = (
    "robust PCA estimates a subspace, not powers with a likelihood; see loadings, "
    "eigenvalues and the outlier flags"
)


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

    _vocabulary_why: ClassVar[dict[str, str]] = refusals(
        _NOT_A_LIKELIHOOD_FIT, "lmbda", "params", *UNCERTAINTY, *LIKELIHOOD)

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

    _json_version = 2
    _json_added = {"scale_values": 2}  # MacroPCA's; version-1 documents load with None

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
        :func:`boxcoxstat.pca.plotting.plot_outlier_map`."""
        from .plotting import plot_outlier_map

        self._need("plot_outlier_map")
        return plot_outlier_map(self, ax=ax, labels=labels, color=color)

    def plot_scores(self, *, ax: Any = None, color: Any = None) -> Any:
        """Pairs plot of the scores (Raymaekers & Rousseeuw 2021, Fig. 12); see
        :func:`boxcoxstat.pca.plotting.plot_score_pairs`."""
        from .plotting import plot_score_pairs

        self._need("plot_scores")
        return plot_score_pairs(self, ax=ax, color=color)

    def plot_residual_map(self, rows: Any = None, *, ax: Any = None, cutoff: float | None = None
                          ) -> Any:
        """MacroPCA's cellwise residual map (Hubert, Rousseeuw & Van den Bossche 2019): the
        standardized residuals of the chosen rows, coloured when beyond the cut-off (red
        above, blue below); see :func:`boxcoxstat.pca.plotting.plot_residual_map`.
        ``rows``: labels (positions for NumPy input); default the 30 rows with the largest
        orthogonal distance."""
        from .plotting import plot_residual_map

        resid = self.cell_residuals
        return plot_residual_map(self, resid, rows, ax=ax, cutoff=cutoff)
