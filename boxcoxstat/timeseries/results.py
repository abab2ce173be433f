"""``GuerreroResult``: the Box-Cox power of a time series chosen as forecast chooses it.

Layer 5. A column transform on the shared base (``lmbda``, ``params``, ``transform``,
``inverse_transform``, JSON) with the criterion and how the series was cut. Guerrero's method
is not a likelihood, so intervals and tests are refused with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..base import jsonio
from ..base.jsonio import saved
from ..base.summary import Summary, format_number
from ..base.transform import ColumnTransforms

__all__ = ["GuerreroResult"]

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
        return float(self.lmbda_used[0]) in (self.lower, self.upper)

    def conf_int(self, alpha: float = 0.05) -> Any:
        self._not_available("conf_int", _WHY)

    def test(self, lmbda0: Any) -> Any:
        self._not_available("test", _WHY)

    def summary(self) -> Summary:
        crit = ("coefficient of variation" if self.method == "guerrero"
                else "log-likelihood (trend + season)")
        table = pd.DataFrame({"lambda": [float(self.lmbda_used[0])], crit: [self.criterion],
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
        lam = format_number(float(self.lmbda_used[0]))
        return (f"<GuerreroResult {self.names[0]}: lmbda {lam} ({self.method}, "
                f"period {self.period})>")
