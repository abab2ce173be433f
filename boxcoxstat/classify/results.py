"""``TuningResult``: the lambdas chosen by :func:`boxcoxstat.classify.tune` and how.

A sibling of :class:`~boxcoxstat.PowerTransformResult` and
:class:`~boxcoxstat.RobustTransformResult` on the shared per-column transform surface
(:class:`~boxcoxstat.base.transform.ColumnTransforms`, itself a
:class:`~boxcoxstat.base.results.ResultBase`): the same ``lmbda``, ``params``, ``transform``,
``inverse_transform``, JSON (its fields declared once with ``jsonio.saved``, the searches'
records on :class:`~boxcoxstat.classify.search.SearchOutcome`), ``str()`` and notebook
display. What is its own: the min-max scaling into ``[1, 2]`` that ``transform`` applies
first, the criterion, the searches, ``summary()`` and the figures of
:mod:`boxcoxstat.classify.plotting`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .._validation.columns import BoxCoxError, new_columns
from ..base import jsonio
from ..base.jsonio import saved
from ..base.results import LIKELIHOOD, UNCERTAINTY, refusals
from ..base.summary import Summary
from ..base.transform import ColumnTransforms
from .criteria import RESCALES, scale_unit_range
from .search import MODES, RULES, SEARCHES, SearchOutcome

__all__ = ["TuningResult"]


_NOT_A_LIKELIHOOD_FIT = (
    "the powers are tuned for a classification criterion, not estimated by likelihood"
)


@dataclass(frozen=True, repr=False)
class TuningResult(ColumnTransforms):
    """Box-Cox lambdas tuned for classification, with the criterion's baseline and tuned values.

    Build with :func:`boxcoxstat.classify.tune`. ``lmbda`` is shaped like the input (a Series
    by feature for a DataFrame, an ndarray for an array), ``params`` is always a Series.
    Every field is saved by :meth:`to_json`, so a loaded result transforms, reports and plots
    as the original.

    Attributes
    ----------
    names : tuple of str
        The features: DataFrame column names, else ``x0, x1, ...``.
    lmbda_used : ndarray of shape (p,)
        The chosen lambda of every feature (``lmbda``, ``params`` label it).
    criterion, mode, search : str
        What was maximised, and how.
    baseline, score : float
        The criterion at ``lmbda = 1`` (no transform) and at the chosen lambdas.
    ml_lmbda : ndarray of shape (p,)
        Per-feature ML lambdas of the scaled data (the default start of the search).
    outcomes : tuple of SearchOutcome
        One search (full, spherical) or one per feature (diagonal).
    data_min, data_max : ndarray of shape (p,)
        Range of the training data, used by :meth:`transform` to scale into ``[1, 2]``.
    grid : ndarray
        The candidate lambdas of one direction.
    nobs : int
        Number of training rows.
    rule : str
        Acceptance rule of the iterative search (``"incumbent"`` or Blum et al.'s
        ``"paper"``).
    rescale : str
        How the transformed features were scaled for the classifier or margin criteria
        (``"standard"`` or ``"minmax"`` into ``[1, 2]``).
    clip : bool
        Whether :meth:`transform` clips new values into the training range (``False``:
        Blum et al.'s Algorithm 3, values beyond it scaled outside ``[1, 2]``).

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.classify import TuningResult, tune
    >>> X = np.array([[1.0], [1.2], [1.9], [2.0]])
    >>> res = tune(X, [0, 0, 1, 1], mode="spherical", criterion="fisher", search="grid")
    >>> res
    <TuningResult spherical, criterion fisher, 1 feature: score 40.17 (baseline 28.9)>
    >>> back = TuningResult.from_json(res.to_json())
    >>> bool(np.array_equal(back.transform(X), res.transform(X)))
    True
    """

    _vocabulary_why: ClassVar[dict[str, str]] = refusals(
        _NOT_A_LIKELIHOOD_FIT, *UNCERTAINTY, *LIKELIHOOD)

    criterion: str = saved(jsonio.Str())
    mode: str = saved(jsonio.Str(choices=MODES))
    search: str = saved(jsonio.Str(choices=SEARCHES))
    baseline: float = saved(jsonio.Float(finite=True))
    score: float = saved(jsonio.Float(finite=True))
    ml_lmbda: NDArray[np.float64] = saved(jsonio.Floats(length_of="names", finite=True))
    outcomes: tuple[SearchOutcome, ...] = saved(jsonio.Nesteds(SearchOutcome))
    data_min: NDArray[np.float64] = saved(jsonio.Floats(length_of="names", finite=True))
    data_max: NDArray[np.float64] = saved(jsonio.Floats(length_of="names", finite=True))
    grid: NDArray[np.float64] = saved(jsonio.Floats(finite=True))
    nobs: int = saved(jsonio.Int(minimum=2))
    rule: str = saved(jsonio.Str(choices=RULES), default="incumbent", kw_only=True)
    rescale: str = saved(jsonio.Str(choices=RESCALES), default="standard", kw_only=True)
    clip: bool = saved(jsonio.Bool(), default=True, kw_only=True)

    @staticmethod
    def _check_loaded(values: dict[str, Any]) -> None:
        """The searches match the mode and the features; lambdas are finite Box-Cox powers;
        the training range is a range."""
        p, mode = len(values["names"]), values["mode"]
        if p == 0:
            raise jsonio._Bad("field 'names' must name at least one feature")
        if values["layout"] not in ("frame", "array2d"):
            raise jsonio._Bad(f"field 'layout' must be 'frame' or 'array2d' (tune takes 2-D "
                              f"data), got {values['layout']!r}")
        if any(f != "boxcox" for f in values["families"]):
            raise jsonio._Bad("field 'families' must be 'boxcox' for every feature")
        searches = p if mode == "diagonal" else 1
        if len(values["outcomes"]) != searches:
            raise jsonio._Bad(f"field 'outcomes' must hold {searches} search(es) for mode "
                              f"{mode!r} with {p} feature(s), got {len(values['outcomes'])}")
        width = p if mode == "full" else 1
        for k, outcome in enumerate(values["outcomes"]):
            if outcome.lmbda.size != width:
                raise jsonio._Bad(f"field 'outcomes': item {k} searched {outcome.lmbda.size} "
                                  f"lambda(s), mode {mode!r} searches {width}")
        if np.any(values["data_min"] > values["data_max"]):
            raise jsonio._Bad("field 'data_min' exceeds 'data_max' for some feature")
        if values["grid"].size == 0:
            raise jsonio._Bad("field 'grid' must hold at least one lambda")

    # ------------------------------------------------------------------ transforms
    def _prepare(self, x: NDArray[np.float64], j: int) -> NDArray[np.float64]:
        """Column ``j`` scaled into ``[1, 2]`` by the training range (clipped to it unless
        ``clip`` is False)."""
        u = scale_unit_range(x, self.data_min[j], self.data_max[j], clip=self.clip)
        if not self.clip and np.any(u <= 0):
            low = self.data_min[j] - (self.data_max[j] - self.data_min[j])
            raise BoxCoxError(f"values at or below {low:.6g} (the training minimum less its "
                              "range) scale to <= 0, where Box-Cox is undefined; tune with "
                              "clip=True to clip new values into the training range")
        return u

    def _unprepare(self, u: NDArray[np.float64], j: int) -> NDArray[np.float64]:
        return self.data_min[j] + (u - 1.0) * (self.data_max[j] - self.data_min[j])

    def transform(self, data: Any) -> Any:
        """Scale ``data`` into ``[1, 2]`` with the training range (values beyond it clipped
        to its ends, unless tuned with ``clip=False``) and Box-Cox transform it with the
        tuned lambdas.

        Any real values are accepted (no positivity check: the scaling comes first); the
        layout is kept (a DataFrame is matched by column name) and NaN stays NaN.

        Raises
        ------
        BoxCoxError
            For data that do not match the tuned features, or infinite values; with
            ``clip=False``, for values so far below the training range that they scale to
            ``<= 0``.

        Examples
        --------
        Training range [0, 10] and lambda 2: 5 scales to 1.5, so (1.5**2 - 1) / 2 = 0.625;
        12 is clipped to 2, so (2**2 - 1) / 2 = 1.5.

        >>> import numpy as np
        >>> from boxcoxstat.classify import tune
        >>> X = np.array([[0.0], [2.0], [8.0], [10.0]])
        >>> res = tune(X, [0, 0, 1, 1], criterion="fisher", search="grid", grid=[2.0])
        >>> res.transform(np.array([[5.0], [12.0]])).ravel().tolist()
        [0.625, 1.5]
        """
        x = new_columns(data, self.names, None)
        return self._wrap(self._transform_matrix(x), data)

    @property
    def trace(self) -> pd.DataFrame:
        """Best criterion value after every epoch (one column per search in diagonal mode)."""
        cols = {}
        for k, o in enumerate(self.outcomes):
            name = "score" if len(self.outcomes) == 1 else self.names[k]
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
        names = list(self.names) if self.mode == "full" else ["lmbda"]
        frame = pd.DataFrame(o.evaluated, columns=names)
        frame["score"] = o.evaluated_scores
        return frame

    def summary(self) -> Summary:
        """Chosen lambdas, criterion, baseline vs tuned value and the per-epoch trace."""
        lam = pd.DataFrame({"lmbda": self._lmbda_used, "ML lambda": self.ml_lmbda},
                           index=list(self.names))
        search = self.search + (f" (rule {self.rule})" if self.search == "iterative" else "")
        overview = pd.DataFrame(
            {"value": [self.criterion, self.mode, search, self.rescale, self.nobs,
                       self.baseline, self.score, self.score - self.baseline]},
            index=["criterion", "mode", "search", "rescaled after transform", "observations",
                   "baseline (lambda = 1)", "tuned", "improvement"])
        notes = ["Data min-max scaled into [1, 2] before the Box-Cox transform "
                 "(Bicego & Baldo 2016; Blum, Menon & Elgendi)."]
        if self.criterion == "train":
            notes.append("Criterion 'train' scores the classifier on its own training data: "
                         "optimistic, prefer 'cv'.")
        return Summary("Box-Cox lambdas tuned for classification",
                       [("", overview), ("Lambdas", lam), ("Trace (best value per epoch)",
                                                          self.trace)], notes)

    def __repr__(self) -> str:
        p = len(self.names)
        return (f"<TuningResult {self.mode}, criterion {self.criterion}, {p} "
                f"feature{'s' if p != 1 else ''}: score {self.score:.4g} "
                f"(baseline {self.baseline:.4g})>")

    def plot_trace(self, *, ax: Any = None) -> Any:
        """Best criterion value per epoch (see :func:`.plotting.plot_trace`)."""
        from .plotting import plot_trace

        return plot_trace(self, ax=ax)

    def plot_heatmap(self, *, ax: Any = None,
                     marks: Mapping[str, Sequence[float]] | None = None) -> Any:
        """Criterion over a 2-D grid search, ``marks`` labelling lambda pairs (Blum et al.,
        Figure 2; see :func:`.plotting.plot_heatmap`)."""
        from .plotting import plot_heatmap

        return plot_heatmap(self, ax=ax, marks=marks)

    def plot_curve(self, *, ax: Any = None) -> Any:
        """Criterion against the single lambda of a spherical search."""
        from .plotting import plot_curve

        return plot_curve(self, ax=ax)
