"""The numbers behind car's symbox: one column over a ladder of Box-Cox powers.

``symbox_frame`` transforms one column over a ladder of powers (the statistics a symbox
shows); drawing is ``plotting``'s.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import pandas as pd

from .. import families
from .._validation.columns import BoxCoxError
from ._column import _check_size, _column

__all__ = ["symbox_frame"]


def symbox_frame(x: Any, powers: tuple[float, ...] = (-1.0, -0.5, 0.0, 0.5, 1.0), *,
                 start: float | None = None,
                 missing: Literal["drop", "raise"] = "raise") -> pd.DataFrame:
    """The column Box-Cox transformed at each power and standardised (car's ``symbox``).

    ``start`` is added first; by default 0 for positive data, else car's ``|min| + 0.01
    range``. Columns are named by power (``"log"`` for 0); each is centred and divided by its
    standard deviation, so the boxplots compare shapes only. Missing values (NaN) are refused,
    or left out with ``missing="drop"`` (as car's boxplots leave out NA).

    Examples
    --------
    >>> from boxcoxstat.graphics.symbox import symbox_frame
    >>> symbox_frame([1.0, 2.0, 4.0, 8.0], powers=(0.0, 1.0))["log"].round(3).tolist()
    [-1.162, -0.387, 0.387, 1.162]
    """
    v, name, _, _ = _column(x, "symbox", missing)
    _check_size(v, name)
    if start is None:
        start = 0.0 if v.min() > 0 else float(abs(v.min()) + 0.01 * np.ptp(v))
    shifted = v + float(start)
    if shifted.min() <= 0:
        raise BoxCoxError(f"x + start has values <= 0 (start = {start:g}); use a larger start")
    out = {}
    for p in powers:
        with np.errstate(over="ignore"):
            t = families.boxcox(shifted, float(p))
        if not np.all(np.isfinite(t)):
            raise BoxCoxError(f"column {name!r} at power {p:g} overflows float64; rescale it "
                              "(divide by its median) or leave that power out")
        t = t / np.max(np.abs(t))  # standardised values are scale free; squares stay finite
        out["log" if p == 0 else f"{p:g}"] = (t - t.mean()) / t.std(ddof=1)
    return pd.DataFrame(out)
