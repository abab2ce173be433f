"""Figures for robust fits: QQ plots with the flagged points marked, sensitivity curves.

Nothing is estimated here; the numbers come from the result objects.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import families
from .._validation.columns import BoxCoxError
from ..base.results import check_alpha
from ..graphics.plotting import draw_qq
from ..univariate.plotting import _check_axes

__all__ = ["qqplot_robust", "plot_sensitivity"]

_FAMILY_LABEL = {"boxcox": "Box-Cox", "yeojohnson": "Yeo-Johnson"}


def qqplot_robust(result: Any, column: Any = None, *, alpha: float = 0.05, ax: Any = None):
    """car's normal QQ plot (:func:`boxcoxstat.graphics.plotting.draw_qq`) before (left) and
    after (right) a robust transform; flagged rows red.

    ``ax``: two matplotlib Axes (left, right), or None for a new figure. The reference line on
    the right, and the ``1 - alpha`` envelope around it, is ``location + scale * z`` (the
    robust fit's Huber location and scale), so the central part should follow it and
    outliers stand apart.

    Returns
    -------
    ndarray of two matplotlib Axes
    """
    import matplotlib.pyplot as plt

    j = result._column_index(column)
    name = result.names[j]
    if result._source.data is None:
        raise BoxCoxError("this result holds no data")
    alpha = check_alpha(alpha)
    own = _check_axes(ax, 2) is None
    if own:
        _, ax = plt.subplots(1, 2, figsize=(9, 4))
    axes = np.asarray(ax).reshape(-1)
    ok = ~np.isnan(result._source.data[:, j])
    x = result._source.data[ok, j]
    flagged = result._source.weights[ok, j] == 0
    lam = result._lmbda_used[j]
    y = families.forward_unchecked(result._prepare(x, j), lam, result._families[j])
    fam = _FAMILY_LABEL[result._families[j]]
    if not np.all(np.isfinite(y)):
        raise BoxCoxError(
            f"column {name!r}: the transformed values overflow float64 at lambda = {lam:.6g}, "
            "so they cannot be plotted; rescale the column (for example divide it by its "
            "median) and refit"
        )
    for ax, values, line, title in (
        (axes[0], x, None, f"{name}: original"),
        (axes[1], y, (result._location_values[j], result._scale_values[j]),
         f"{name}: {fam}, λ = {lam:.3g} ({result.method})"),
    ):
        draw_qq(ax, values, alpha=alpha, line=line, flagged=flagged, title=title)
    if own:
        axes[0].figure.tight_layout()
    return axes


def plot_sensitivity(curve: Any, *, ax: Any = None):
    """Sensitivity curves ``SC_n(z)`` of one or more estimators (Raymaekers & Rousseeuw 2021,
    Fig. 5). ``curve`` is a :class:`~boxcoxstat.robust.sensitivity.SensitivityCurve`."""
    import matplotlib.pyplot as plt

    own = ax is None
    if own:
        _, ax = plt.subplots(figsize=(6, 4))
    xs = curve.x_axis
    for k, col in enumerate(curve.values.columns):
        ax.plot(xs, curve.values[col], lw=1.5, color=f"C{k}", label=col)
    ax.axhline(0, color="0.5", lw=0.8)
    ax.set_xlabel("log(z)" if curve.family == "boxcox" else "z")
    ax.set_ylabel("SC(z)")
    ax.set_title(f"{_FAMILY_LABEL[curve.family]}, λ = {curve.lmbda:g}, n = {curve.n}")
    ax.legend(fontsize=8)
    if own:
        ax.figure.tight_layout()
    return ax
