"""The numbers behind car's spread-level plot: the power that stabilises spread.

``spread_level`` computes car's ``spreadLevelPlot`` statistics and its suggested
power. Drawing is ``plotting``'s; the symbox ladder is ``symbox``'s.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import pandas as pd

from .._validation.columns import BoxCoxError
from ..base.diagnostics import fivenum
from ._column import _check_size, _column
from .results import SpreadLevelResult

__all__ = ["spread_level"]


def spread_level(x: Any, by: Any = None, *, robust: bool = False,
                 missing: Literal["drop", "raise"] = "raise") -> SpreadLevelResult:
    """The power that stabilises spread (car's ``spreadLevelPlot``): ``1 - slope`` of log
    spread on log level.

    Parameters
    ----------
    x : array_like or statsmodels results
        Values with group labels ``by`` (spread = the hinge spread, level = the median of each
        group, from Tukey's five numbers), or a fitted statsmodels regression (spread =
        ``|studentized residuals|``, level = the fitted values).
    by : array_like, optional
        Group labels (needed unless ``x`` is a fitted model).
    robust : bool, default=False
        Fit the line by Huber's M-estimator (statsmodels ``RLM``), as car does by default with
        ``MASS::rlm``; the default is least squares.
    missing : {"raise", "drop"}, default="raise"
        A missing value (NaN) in ``x``, or a missing group label, is refused, or its row is
        left out (``"drop"``, as car's ``spreadLevelPlot`` leaves out NA).

    Returns
    -------
    SpreadLevelResult
        ``power`` (the suggested one), ``slope``, ``start`` (added to make group levels
        positive, car's rule without its rounding to a "nice" number; non-positive fitted
        values are left out instead, as car does, and counted in ``n_dropped``),
        ``statistics``, ``plot()``.

    Examples
    --------
    >>> import numpy as np, boxcoxstat as bcs
    >>> g = np.repeat(np.arange(1, 7), 30)
    >>> x = g * np.tile(np.linspace(0.6, 1.4, 30), 6)     # spread proportional to level
    >>> abs(round(bcs.spread_level(x, g).power, 10))      # so the log: power 0
    0.0
    """
    if by is None and hasattr(x, "fittedvalues") and hasattr(x, "get_influence"):
        resid = np.abs(np.asarray(x.get_influence().resid_studentized_external))
        level = np.asarray(x.fittedvalues, dtype=np.float64)
        stats_frame = pd.DataFrame({"level": level, "spread": resid})
        kind = "fitted values"
    else:
        if by is None:
            raise BoxCoxError("pass group labels by=, or a fitted statsmodels model as x")
        v, name, _, kept = _column(x, "spread_level", missing)
        labels = np.asarray(by)
        if labels.ndim != 1 or labels.shape[0] != kept.shape[0]:
            raise BoxCoxError(f"by has {labels.shape[0] if labels.ndim else 1} labels for "
                              f"{kept.shape[0]} values")
        no_label = np.asarray(pd.isna(labels), dtype=bool)
        if no_label.any() and missing == "raise":
            raise BoxCoxError(f"by has {int(no_label.sum())} missing label(s), first at "
                              f"position {int(np.flatnonzero(no_label)[0])}; use "
                              "missing='drop' to leave those rows out")
        v, labels = v[~no_label[kept]], labels[kept & ~no_label]
        _check_size(v, name)
        stats_frame = None
        kind = "groups"
    start = 0.0
    n_dropped = 0
    if kind == "groups":
        lo = float(v.min())
        if lo <= 0:
            q1, q3 = np.quantile(v, [0.25, 0.75])
            start = -lo + 0.05 * float(q3 - q1)
        groups = list(dict.fromkeys(labels.tolist()))
        rows = []
        for g in groups:
            five = fivenum(v[labels == g] + start)
            rows.append([five[1], five[2], five[3], five[3] - five[1]])
        stats_frame = pd.DataFrame(rows, index=[str(g) for g in groups],
                                   columns=["lower hinge", "level", "upper hinge", "spread"])
        stats_frame = stats_frame.sort_values("level")
    else:  # car 3.1-1 leaves out non-positive fitted values (and says how many)
        positive = stats_frame["level"].to_numpy() > 0
        n_dropped = int((~positive).sum())
        stats_frame = stats_frame[positive]
    assert stats_frame is not None
    spread = stats_frame["spread"].to_numpy(dtype=np.float64)
    level = stats_frame["level"].to_numpy(dtype=np.float64)
    if np.any(spread <= 0):
        raise BoxCoxError("a spread is 0 (a group with equal hinges, or a residual of 0); "
                          "the log spread is undefined")
    if level.size < 3 and kind == "groups":
        raise BoxCoxError("at least 3 groups are needed to fit the spread-level line")
    design = np.column_stack([np.ones(level.size), np.log(level)])
    if robust:
        import statsmodels.api as sm

        coef = sm.RLM(np.log(spread), design, M=sm.robust.norms.HuberT()).fit().params
    else:
        coef = np.linalg.lstsq(design, np.log(spread), rcond=None)[0]
    return SpreadLevelResult(intercept=float(coef[0]), slope=float(coef[1]), start=start,
                             kind=kind, robust=bool(robust), statistics=stats_frame,
                             n_dropped=n_dropped)
