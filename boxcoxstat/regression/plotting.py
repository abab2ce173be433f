"""Matplotlib figures for :class:`~boxcoxstat.regression.results.LmResult`.

Layer 6. Each function takes ``ax=None``, imports pyplot lazily, returns the Axes and never
calls ``plt.show()``; the numbers come from the result and ``diagnostics``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base.diagnostics import profile_cutoff
from ..univariate.plotting import draw_qq

__all__ = ["plot_lm_profile", "plot_lm_qq", "plot_lm_residuals"]


def _axes(ax: Any, size: tuple[float, float] = (5, 4)) -> tuple[Any, bool]:
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=size)
        return ax, True
    return ax, False


def plot_lm_profile(result: Any, *, ax: Any = None, alpha: float = 0.05) -> Any:
    """Profile log-likelihood of the response power, drawn as ``MASS::boxcox`` draws it.

    The curve over the grid, a dotted horizontal line at ``max - chi2_1(1-alpha)/2`` with the
    level written at its left end, and dotted vertical lines from the bottom to the curve at
    the estimate and at the interval's ends.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, pandas as pd, boxcoxstat as bcs
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"x": rng.uniform(1, 2, 50)})
    >>> df["y"] = np.exp(df["x"] + rng.normal(scale=0.1, size=50))
    >>> bcs.lm("y ~ x", df).plot_profile().get_ylabel()
    'log-Likelihood'
    """
    ax, own = _axes(ax)
    prof = result.profile()
    lo, hi = result.power.conf_int(alpha).iloc[0]
    cut = profile_cutoff(result.llf, alpha)
    ax.plot(prof["lmbda"], prof["llf"], color="k", lw=1.2)
    ax.axhline(cut, color="k", ls=":", lw=1)
    bottom = min(float(prof["llf"].min()), cut)
    top = float(prof["llf"].max())
    ax.set_ylim(bottom - 0.04 * (top - bottom), top + 0.04 * (top - bottom))
    for v, level in ((lo, cut), (result.lmbda, result.llf), (hi, cut)):
        ax.plot([v, v], [ax.get_ylim()[0], level], color="k", ls=":", lw=1)
    ax.text(float(prof["lmbda"].iloc[0]), cut, f" {100 * (1 - alpha):g}%", va="bottom",
            ha="left", fontsize=9)
    ax.set_xlabel("λ")
    ax.set_ylabel("log-Likelihood")
    ax.set_title(f"{result.response}: λ = {result.lmbda:.4g} "
                 f"[{lo:.3g}, {hi:.3g}]")
    if own:
        ax.figure.tight_layout()
    return ax


def plot_lm_qq(result: Any, *, ax: Any = None) -> Any:
    """Normal QQ plot of the (weighted) residuals on the transformed scale."""
    ax, own = _axes(ax)
    e = result.resid.to_numpy()
    if result.weights is not None:
        e = e * np.sqrt(result.weights)
    draw_qq(ax, e, ylabel="residual quantiles", title=f"Residuals at λ = {result.lmbda:.4g}")
    if own:
        ax.figure.tight_layout()
    return ax


def plot_lm_residuals(result: Any, *, ax: Any = None) -> Any:
    """Residuals against fitted values (transformed scale) with a zero line."""
    ax, own = _axes(ax)
    ax.plot(result.fittedvalues.to_numpy(), result.resid.to_numpy(), "o", ms=3, color="C0",
            alpha=0.7)
    ax.axhline(0.0, color="0.3", ls="--", lw=1)
    ax.set_xlabel("fitted values")
    ax.set_ylabel("residuals")
    ax.set_title(f"Residuals vs fitted, λ = {result.lmbda:.4g}")
    if own:
        ax.figure.tight_layout()
    return ax
