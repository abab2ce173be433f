"""Matplotlib figures for :class:`~boxcoxstat.regression.results.LmResult`.

Each function takes ``ax=None``, imports pyplot lazily, returns the Axes and never
calls ``plt.show()``; the numbers come from the result and ``base.diagnostics`` (studentized
residuals, the simulated envelope, the lowess curve). The profile figure is the one of
``bcs.fit`` results (``univariate.plotting.plot_profile``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base.diagnostics import (
    lowess_curve,
    normal_qq,
    residual_envelope,
    studentized_residuals,
)
from ..core.design import qr_design

__all__ = ["plot_lm_qq", "plot_lm_residuals"]


def _axes(ax: Any, size: tuple[float, float] = (5, 4)) -> tuple[Any, bool]:
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=size)
        return ax, True
    return ax, False


def _studentized(result: Any) -> tuple[np.ndarray, np.ndarray]:
    """Studentized residuals of the fit and the orthonormal basis of its weighted design."""
    design = qr_design(result.x[:, result._kept], result.weights)
    e = result.resid.to_numpy()
    if result.weights is not None:
        e = e * np.sqrt(result.weights)
    return studentized_residuals(e, design.q, result.scale), design.q


def plot_lm_qq(result: Any, *, ax: Any = None, nsim: int = 199, label: int = 3,
               random_state: Any = 1) -> Any:
    """Normal QQ plot of the studentized residuals with a simulated 95% envelope.

    The envelope is pointwise over ``nsim`` normal responses simulated for the same design
    (Atkinson 1985; R's ``car::qqPlot(simulate=TRUE)``); the ``label`` points farthest from
    zero are labelled with their row index.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import boxcoxstat as bcs
    >>> m = bcs.lm("Volume ~ np.log(Height) + np.log(Girth)", bcs.datasets.load("trees"))
    >>> ax = m.qqplot(label=2)
    >>> ax.get_xlabel(), len(ax.texts)
    ('normal quantiles', 2)
    """
    ax, own = _axes(ax)
    r, q = _studentized(result)
    order = np.argsort(r, kind="stable")
    z, s = normal_qq(r)
    lo, hi = residual_envelope(q, nsim=nsim, random_state=random_state)
    ax.fill_between(z, lo, hi, color="0.85", lw=0, label="95% simulated envelope")
    ax.plot(z, s, "o", ms=3, color="C0")
    ax.plot(z, z, color="C3", lw=1)
    extreme = np.argsort(-np.abs(s), kind="stable")[: max(0, int(label))]
    for k in extreme:
        ax.annotate(str(result.index[order[k]]), (z[k], s[k]), xytext=(3, 0),
                    textcoords="offset points", fontsize=8, va="center")
    ax.set_xlabel("normal quantiles")
    ax.set_ylabel("studentized residuals")
    ax.set_title(f"Residuals at λ = {result.lmbda:.4g}")
    if own:
        ax.figure.tight_layout()
    return ax


def plot_lm_residuals(result: Any, *, ax: Any = None) -> Any:
    """Residuals against fitted values (transformed scale) with a zero line and a lowess
    smoother (statsmodels' ``lowess``, span 2/3 as R's ``lowess``).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import boxcoxstat as bcs
    >>> m = bcs.lm("Volume ~ np.log(Height) + np.log(Girth)", bcs.datasets.load("trees"))
    >>> len(m.plot_residuals().get_lines())
    3
    """
    ax, own = _axes(ax)
    f, e = result.fittedvalues.to_numpy(), result.resid.to_numpy()
    ax.plot(f, e, "o", ms=3, color="C0", alpha=0.7)
    ax.axhline(0.0, color="0.3", ls="--", lw=1)
    sx, sy = lowess_curve(f, e)
    ax.plot(sx, sy, color="C3", lw=1.2)
    ax.set_xlabel("fitted values")
    ax.set_ylabel("residuals")
    ax.set_title(f"Residuals vs fitted, λ = {result.lmbda:.4g}")
    if own:
        ax.figure.tight_layout()
    return ax
