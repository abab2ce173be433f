"""``GuerreroResult``: the Box-Cox power of a time series chosen as forecast chooses it.

``GuerreroFrameResult`` holds the same for many series (a DataFrame's columns).
A column transform on the shared base (``lmbda``, ``params``, ``transform``,
``inverse_transform``, JSON) with the criterion and how the series was cut. Guerrero's method
is not a likelihood, so intervals and tests are refused with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..base import jsonio
from ..base.jsonio import saved
from ..base.results import LIKELIHOOD, UNCERTAINTY, refusals
from ..base.summary import Summary, format_number
from ..base.transform import ColumnTransforms

__all__ = ["GuerreroResult", "GuerreroFrameResult"]

_WHY = ("lambda is chosen by a criterion, not estimated with a likelihood here; use "
        "bcs.fit or bcs.lm for intervals and tests")


@dataclass(frozen=True, repr=False)
class GuerreroResult(ColumnTransforms):
    """The power of one series from :func:`boxcoxstat.guerrero`.

    ``criterion`` is the coefficient of variation at lambda (``method="guerrero"``) or the
    maximised log-likelihood of the seasonal-trend regression (``"loglik"``).

    Examples
    --------
    >>> import numpy as np, boxcoxstat as bcs
    >>> x = np.exp(np.linspace(0, 3, 48)) * (1 + 0.1 * np.tile([1, -1, 0.5, -0.5], 12))
    >>> r = bcs.guerrero(x, 4)
    >>> back = bcs.GuerreroResult.from_json(r.to_json())
    >>> back.lmbda == r.lmbda, back.n_dropped
    (True, 0)
    """

    _vocabulary_why: ClassVar[dict[str, str]] = refusals(_WHY, *UNCERTAINTY, *LIKELIHOOD)

    method: str = saved(jsonio.Str(choices=("guerrero", "loglik")))
    period: int = saved(jsonio.Int(minimum=1))
    lower: float = saved(jsonio.Float(finite=True))
    upper: float = saved(jsonio.Float(finite=True))
    criterion: float = saved(jsonio.Float())
    nobs: int = saved(jsonio.Int(minimum=1))
    n_used: int = saved(jsonio.Int(minimum=1))
    n_dropped: int = saved(jsonio.Int(minimum=0))
    subseries_length: int = saved(jsonio.Int(minimum=2))

    @property
    def at_bound(self) -> bool:
        """Whether lambda is at ``lower`` or ``upper``."""
        return float(self._lmbda_used[0]) in (self.lower, self.upper)

    def conf_int(self, alpha: float = 0.05) -> Any:
        self._not_available("conf_int", _WHY)

    def test(self, lmbda0: Any) -> Any:
        self._not_available("test", _WHY)

    def summary(self) -> Summary:
        crit = ("coefficient of variation" if self.method == "guerrero"
                else "log-likelihood (trend + season)")
        table = pd.DataFrame({"lambda": [float(self._lmbda_used[0])], crit: [self.criterion],
                              "period": [self.period], "n": [self.nobs]},
                             index=list(self.names))
        notes = [f"lambda searched on [{format_number(self.lower)}, "
                 f"{format_number(self.upper)}]" + (" (at a bound)." if self.at_bound else ".")]
        if self.method == "guerrero":
            k = self.n_used // self.subseries_length
            notes.append(f"Guerrero (1993) as forecast::BoxCox.lambda: {k} "
                         f"subseries of {self.subseries_length} values; the first "
                         f"{self.n_dropped} value(s) dropped.")
        else:
            notes.append("Maximum likelihood of the regression on a linear trend"
                         + (" and seasonal dummies" if self.period > 1 else "")
                         + " (forecast's method = 'loglik', solved exactly, not on its grid).")
        return Summary(f"Box-Cox lambda for a time series ({self.method})", [("", table)],
                       notes, {"period": str, "n": str})

    def __repr__(self) -> str:
        lam = format_number(float(self._lmbda_used[0]))
        return (f"<GuerreroResult {self.names[0]}: lmbda {lam} ({self.method}, "
                f"period {self.period})>")


@dataclass(frozen=True, repr=False)
class GuerreroFrameResult(ColumnTransforms):
    """The powers of many series from :func:`boxcoxstat.guerrero` on a DataFrame.

    One entry per series, in the order of the frame's columns (or of the first appearance of
    each ``id`` in long data): ``lmbda`` and ``criterion`` are Series indexed by series name,
    :meth:`to_frame` gives the whole table (lambda, criterion, observations used and dropped,
    whether lambda is at a bound). ``criterion`` is each series' coefficient of variation at
    its lambda (``method="guerrero"``) or its maximised log-likelihood (``"loglik"``).
    ``transform`` and ``inverse_transform`` apply each series' power to the column of the same
    position in a wide frame.

    Examples
    --------
    >>> import numpy as np, pandas as pd, boxcoxstat as bcs
    >>> t = np.arange(48)
    >>> wave = 1 + 0.1 * np.tile([1, -1, 0.5, -0.5], 12)
    >>> frame = pd.DataFrame({"log": np.exp(0.06 * t + 0.01 * np.sin(t)) * wave,
    ...                       "linear": 5 + 0.2 * t + 0.3 * np.tile([1, -1, 0.5, -0.5], 12)})
    >>> r = bcs.guerrero(frame, 4)
    >>> r.lmbda.round(3).tolist()
    [0.004, 1.0]
    >>> r.to_frame().columns.tolist()
    ['lambda', 'criterion', 'n', 'n_used', 'n_dropped', 'at_bound']
    """

    _vocabulary_why: ClassVar[dict[str, str]] = refusals(_WHY, *UNCERTAINTY, *LIKELIHOOD)

    method: str = saved(jsonio.Str(choices=("guerrero", "loglik")))
    period: int = saved(jsonio.Int(minimum=1))
    lower: float = saved(jsonio.Float(finite=True))
    upper: float = saved(jsonio.Float(finite=True))
    criterion_values: NDArray[np.float64] = saved(jsonio.Floats(length_of="names"))
    nobs_values: NDArray[np.int64] = saved(jsonio.Ints(length_of="names"))
    n_used_values: NDArray[np.int64] = saved(jsonio.Ints(length_of="names"))
    n_dropped_values: NDArray[np.int64] = saved(jsonio.Ints(length_of="names"))
    subseries_length: int = saved(jsonio.Int(minimum=2))

    @property
    def criterion(self) -> pd.Series:
        """The criterion at each series' lambda (see the class docstring)."""
        return self._series(self.criterion_values, "criterion")

    @property
    def at_bound(self) -> pd.Series:
        """Whether each series' lambda is at ``lower`` or ``upper``."""
        lam = np.asarray(self._lmbda_used)
        return self._series((lam == self.lower) | (lam == self.upper), "at_bound")

    def to_frame(self) -> pd.DataFrame:
        """One row per series: ``lambda``, ``criterion``, ``n`` (observations), ``n_used``
        and ``n_dropped`` (Guerrero's cut) and ``at_bound``."""
        return pd.DataFrame({
            "lambda": np.asarray(self._lmbda_used, dtype=np.float64),
            "criterion": np.asarray(self.criterion_values, dtype=np.float64),
            "n": np.asarray(self.nobs_values, dtype=np.int64),
            "n_used": np.asarray(self.n_used_values, dtype=np.int64),
            "n_dropped": np.asarray(self.n_dropped_values, dtype=np.int64),
            "at_bound": self.at_bound.to_numpy()}, index=pd.Index(list(self.names),
                                                                   name="series"))

    def conf_int(self, alpha: float = 0.05) -> Any:
        self._not_available("conf_int", _WHY)

    def test(self, lmbda0: Any) -> Any:
        self._not_available("test", _WHY)

    def summary(self) -> Summary:
        table = self.to_frame()
        lam = table["lambda"]
        notes = [f"{len(table)} series; lambda searched on [{format_number(self.lower)}, "
                 f"{format_number(self.upper)}], {int(table['at_bound'].sum())} at a bound; "
                 f"lambda quartiles {format_number(lam.quantile(0.25))}, "
                 f"{format_number(lam.median())}, {format_number(lam.quantile(0.75))}."]
        notes.append(f"Guerrero (1993) as forecast::BoxCox.lambda, subseries of "
                     f"{self.subseries_length} values." if self.method == "guerrero" else
                     "Maximum likelihood of the regression on a linear trend"
                     + (" and seasonal dummies" if self.period > 1 else "")
                     + " (forecast's method = 'loglik', solved exactly, not on its grid).")
        shown = table.head(20)
        return Summary(f"Box-Cox lambda for {len(table)} time series ({self.method})",
                       [("", shown.drop(columns=["n_used", "n_dropped"]))], notes,
                       {"n": str})

    def __repr__(self) -> str:
        return (f"<GuerreroFrameResult: {len(self.names)} series ({self.method}, "
                f"period {self.period})>")
