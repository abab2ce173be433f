"""``TuningResult``: the lambdas chosen by :func:`boxcoxstat.classify.tune` and how.

Layer 6 (``classify``). Immutable; tables are labelled with pandas when asked for; text and
HTML rendering goes through :class:`boxcoxstat.summary.Summary`, figures through
:mod:`boxcoxstat.classify.plotting`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from ..families import transform
from ..summary import Summary
from .search import SearchOutcome

__all__ = ["TuningResult"]


@dataclass(frozen=True, repr=False)
class TuningResult:
    """Lambdas tuned for classification, with the criterion's baseline and tuned values.

    Attributes
    ----------
    lmbda : ndarray of shape (p,)
        The chosen lambda of every feature.
    criterion, mode, search : str
        What was maximised, and how.
    baseline, score : float
        The criterion at ``lmbda = 1`` (no transform) and at the chosen lambdas.
    ml_lmbda : ndarray
        Per-feature ML lambdas of the scaled data (the default start of the search).
    outcomes : tuple of SearchOutcome
        One search (full, spherical) or one per feature (diagonal).
    data_min, data_max : ndarray
        Range of the training data, used by :meth:`transform` to scale into ``[1, 2]``.
    """

    lmbda: NDArray[np.float64]
    feature_names: tuple[str, ...]
    criterion: str
    mode: str
    search: str
    baseline: float
    score: float
    ml_lmbda: NDArray[np.float64]
    outcomes: tuple[SearchOutcome, ...]
    data_min: NDArray[np.float64]
    data_max: NDArray[np.float64]
    grid: NDArray[np.float64]
    nobs: int

    @property
    def params(self) -> pd.Series:
        """The chosen lambdas labelled by feature."""
        return pd.Series(self.lmbda, index=list(self.feature_names), name="lmbda")

    @property
    def trace(self) -> pd.DataFrame:
        """Best criterion value after every epoch (one column per search in diagonal mode)."""
        cols = {}
        for k, o in enumerate(self.outcomes):
            name = "score" if len(self.outcomes) == 1 else self.feature_names[k]
            cols[name] = pd.Series(o.trace_scores, index=np.arange(1, o.trace_scores.size + 1))
        frame = pd.DataFrame(cols)
        frame.index.name = "epoch"
        return frame

    @property
    def evaluations(self) -> pd.DataFrame:
        """Every lambda vector the (first) search evaluated and its criterion value."""
        o = self.outcomes[0]
        names = (list(self.feature_names) if o.evaluated.shape[1] == len(self.feature_names)
                 else ["lmbda"])
        frame = pd.DataFrame(o.evaluated, columns=names)
        frame["score"] = o.evaluated_scores
        return frame

    def transform(self, X: ArrayLike) -> NDArray[np.float64]:
        """Scale ``X`` into ``[1, 2]`` with the training range (clipped) and transform it."""
        from .tune import scale_unit_range

        Xs = scale_unit_range(X, self.data_min, self.data_max)
        return transform(Xs, self.lmbda, "boxcox")

    def summary(self) -> Summary:
        """Chosen lambdas, criterion, baseline vs tuned value and the per-epoch trace."""
        lam = pd.DataFrame({"lmbda": self.lmbda, "ML lambda": self.ml_lmbda},
                           index=list(self.feature_names))
        overview = pd.DataFrame(
            {"value": [self.criterion, self.mode, self.search, self.nobs, self.baseline,
                       self.score, self.score - self.baseline]},
            index=["criterion", "mode", "search", "observations", "baseline (lambda = 1)",
                   "tuned", "improvement"])
        notes = ["Data min-max scaled into [1, 2] before the Box-Cox transform "
                 "(Bicego & Baldo 2016; Blum, Menon & Elgendi)."]
        if self.criterion == "train":
            notes.append("Criterion 'train' scores the classifier on its own training data: "
                         "optimistic, prefer 'cv'.")
        return Summary("Box-Cox lambdas tuned for classification",
                       [("", overview), ("Lambdas", lam), ("Trace (best value per epoch)",
                                                          self.trace)], notes)

    def __repr__(self) -> str:
        return (f"TuningResult(mode={self.mode!r}, criterion={self.criterion!r}, "
                f"p={self.lmbda.size}, baseline={self.baseline:.4g}, score={self.score:.4g})")

    def plot_trace(self, *, ax: Any = None) -> Any:
        """Best criterion value per epoch (see :func:`.plotting.plot_trace`)."""
        from .plotting import plot_trace

        return plot_trace(self, ax=ax)

    def plot_heatmap(self, *, ax: Any = None) -> Any:
        """Criterion over a 2-D grid search (Blum et al., Figure 2)."""
        from .plotting import plot_heatmap

        return plot_heatmap(self, ax=ax)

    def plot_curve(self, *, ax: Any = None) -> Any:
        """Criterion against the single lambda of a spherical search."""
        from .plotting import plot_curve

        return plot_curve(self, ax=ax)
