"""``SpreadLevelResult``: car's spread-level statistics and suggested power.

Immutable, on the shared base (summary, JSON); the plot is ``plotting``'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ..base import jsonio
from ..base.jsonio import saved
from ..base.results import LIKELIHOOD, UNCERTAINTY, ResultBase, refusals
from ..base.summary import Summary, format_number

__all__ = ["SpreadLevelResult"]

_WHY = "the suggested power is read off a fitted line; it has no likelihood inference here"


_NOT_A_LIKELIHOOD_FIT = (
    "the spread-level plot fits a line to log spreads against log levels; its power "
    "is 1 - slope, with no likelihood"
)


@dataclass(frozen=True, repr=False)
class SpreadLevelResult(ResultBase):
    """The spread-level line ``log spread = intercept + slope log level`` and the power
    ``1 - slope`` that makes spread constant (Tukey; car's ``spreadLevelPlot``).

    Examples
    --------
    >>> import numpy as np, boxcoxstat as bcs
    >>> r = bcs.spread_level(np.r_[1.0, 2, 3, 4, 10, 20, 30, 40, 100, 200, 300, 400],
    ...                      np.repeat(["a", "b", "c"], 4))
    >>> round(r.power, 3), bcs.SpreadLevelResult.from_json(r.to_json()).power == r.power
    (0.0, True)
    """

    _vocabulary_why: ClassVar[dict[str, str]] = refusals(
        _NOT_A_LIKELIHOOD_FIT, "lmbda", "nobs", *UNCERTAINTY, *LIKELIHOOD)

    intercept: float = saved(jsonio.Float())
    slope: float = saved(jsonio.Float())
    start: float = saved(jsonio.Float())
    kind: str = saved(jsonio.Str(choices=("groups", "fitted values")))
    robust: bool = saved(jsonio.Bool())
    statistics: pd.DataFrame = saved(jsonio.Frame())
    n_dropped: int = saved(jsonio.Int(minimum=0), default=0)

    @property
    def power(self) -> float:
        """The suggested power ``1 - slope``."""
        return 1.0 - self.slope

    @property
    def params(self) -> pd.Series:
        return pd.Series([self.intercept, self.slope], index=["intercept", "slope"],
                         name="params")

    def conf_int(self, alpha: float = 0.05) -> Any:
        self._not_available("conf_int", _WHY)

    def test(self, *args: Any) -> Any:
        self._not_available("test", _WHY)

    def line(self) -> pd.DataFrame:
        """The fitted line at the smallest and largest level (for the plot)."""
        lv = self.statistics["level"].to_numpy(dtype=np.float64)
        ends = np.array([lv.min(), lv.max()])
        return pd.DataFrame({"level": ends,
                             "spread": np.exp(self.intercept + self.slope * np.log(ends))})

    def summary(self) -> Summary:
        how = "Huber M-estimate" if self.robust else "least squares"
        notes = [f"log spread = {format_number(self.intercept)} + {format_number(self.slope)} "
                 f"log level ({how}); suggested power 1 - slope = {format_number(self.power)}."]
        if self.start:
            notes.append(f"{format_number(self.start)} added to every level to make them "
                         "positive (car's start).")
        if self.n_dropped:
            notes.append(f"{self.n_dropped} non-positive fitted value(s) left out (as car).")
        table = self.statistics if self.kind == "groups" else self.statistics.describe()
        return Summary(f"Spread-level plot ({self.kind})", [("", table)], notes)

    def __repr__(self) -> str:
        return f"<SpreadLevelResult {self.kind}: power {format_number(self.power)}>"

    def plot(self, *, ax: Any = None) -> Any:
        """The spread-level plot on log-log axes (see ``plotting.plot_spread_level``)."""
        from .plotting import plot_spread_level

        return plot_spread_level(self, ax=ax)
