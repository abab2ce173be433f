"""``TuningResult``: the lambdas chosen by :func:`boxcoxstat.classify.model` and how.

Layer 6 (``classify``). Immutable; tables are labelled with pandas when asked for; text and
HTML rendering goes through :class:`boxcoxstat.base.summary.Summary`, figures through
:mod:`boxcoxstat.classify.plotting`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from ..base.summary import Summary
from ..families import transform
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
        """Every lambda the (first) search evaluated and its criterion value.

        Full mode: one column per feature; spherical and diagonal (first feature): ``lmbda``.
        """
        o = self.outcomes[0]
        names = list(self.feature_names) if self.mode == "full" else ["lmbda"]
        frame = pd.DataFrame(o.evaluated, columns=names)
        frame["score"] = o.evaluated_scores
        return frame

    def transform(self, X: ArrayLike) -> NDArray[np.float64]:
        """Scale ``X`` into ``[1, 2]`` with the training range (clipped) and transform it."""
        from .model import scale_unit_range

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

    def to_json(self) -> str:
        """Everything in the result as JSON (deploy the transform without pickle).

        Examples
        --------
        >>> import numpy as np
        >>> from boxcoxstat.classify import TuningResult, tune
        >>> X = np.array([[1.0], [1.2], [1.9], [2.0]])
        >>> res = tune(X, [0, 0, 1, 1], mode="spherical", criterion="fisher", search="grid")
        >>> back = TuningResult.from_json(res.to_json())
        >>> bool(np.array_equal(back.transform(X), res.transform(X)))
        True
        """
        out: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name == "outcomes":
                v = [{k.name: np.asarray(getattr(o, k.name)).tolist() for k in fields(o)}
                     for o in v]
            elif isinstance(v, np.ndarray):
                v = v.tolist()
            elif isinstance(v, tuple):
                v = list(v)
            out[f.name] = v
        return json.dumps(out)

    @classmethod
    def from_json(cls, text: str) -> TuningResult:
        """Rebuild a result written by :meth:`to_json`."""
        d = json.loads(text)
        arrays = ("lmbda", "ml_lmbda", "data_min", "data_max", "grid")
        kw: dict[str, Any] = {k: (np.asarray(v, dtype=np.float64) if k in arrays else v)
                              for k, v in d.items()}
        kw["feature_names"] = tuple(d["feature_names"])
        outs = []
        for o in d["outcomes"]:
            ok: dict[str, Any] = {k: np.asarray(v, dtype=np.float64) for k, v in o.items()}
            ok["score"] = float(o["score"])
            outs.append(SearchOutcome(**ok))
        kw["outcomes"] = tuple(outs)
        return cls(**kw)

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
