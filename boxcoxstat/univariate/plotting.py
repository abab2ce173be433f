"""Matplotlib figures for fitted power transformations.

Layer 6. Every function takes ``ax=None`` (or ``axes=None``), imports pyplot lazily, returns the
Axes it drew on and never calls ``plt.show()``. The numbers come from the result object and
``diagnostics``; nothing is estimated here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import BoxCoxError, TransformOverflowError
from ..base.diagnostics import normal_qq, profile_cutoff, qq_line

__all__ = ["plot_profile", "qqplot"]

_FAMILY_LABEL = {"boxcox": "Box-Cox", "yeojohnson": "Yeo-Johnson", "bcnpower": "bcnPower"}


def _column(result: Any, column: Any) -> tuple[int, str]:
    j = result.column_index(column)
    return j, result.names[j]


def plot_profile(result: Any, column: Any = None, *, ax: Any = None, alpha: float = 0.05):
    """Profile log-likelihood of lambda with the confidence cut-off, as ``MASS::boxcox`` draws it.

    A solid curve, a dashed horizontal line at ``max - chi2_1(1-alpha)/2``, dashed vertical
    lines at the interval's ends and a dotted one at the estimate.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, boxcoxstat as bcs
    >>> r = bcs.fit(np.random.default_rng(0).lognormal(size=100))
    >>> ax = r.plot_profile()
    >>> ax.get_xlabel()
    'λ'
    """
    import matplotlib.pyplot as plt

    j, name = _column(result, column)
    own = ax is None
    if own:
        _, ax = plt.subplots(figsize=(5, 4))
    ci = np.asarray(result.conf_int(alpha), dtype=float).reshape(-1, 2)
    lo, hi = ci[0] if ci.shape[0] == 1 else ci[j]
    width = hi - lo
    grid = np.linspace(lo - 0.5 * width, hi + 0.5 * width, 201)
    lam_hat = result.lmbda_mle[j]
    grid = np.sort(np.r_[grid, lam_hat])
    prof = result.profile(j, grid)
    llf_max = float(prof["llf"].max())
    cut = profile_cutoff(llf_max, alpha)
    ax.plot(prof["lmbda"], prof["llf"], color="C0", lw=1.5)
    ax.axhline(cut, color="0.3", ls="--", lw=1)
    for v in (lo, hi):
        ax.axvline(v, color="0.3", ls="--", lw=1)
    ax.axvline(lam_hat, color="C3", ls=":", lw=1)
    level = round(100 * (1 - alpha), 6)
    ax.text(lo, cut, f" {level:g}%", va="bottom", ha="left", fontsize=9)
    ax.set_xlabel("λ")
    ax.set_ylabel("log-likelihood")
    fam = _FAMILY_LABEL[result.families[j]]
    ax.set_title(f"{name}: {fam} profile, λ = {result.lmbda_used[j]:.4g}")
    if own:  # a caller's own figure keeps its layout
        ax.figure.tight_layout()
    return ax


def draw_qq(ax: Any, values: Any, *, ylabel: str = "sample quantiles", title: str = "") -> Any:
    """Draw the normal QQ points of ``values`` and their quartile line on ``ax``."""
    z, s = normal_qq(values)
    a, b = qq_line(values)
    ax.plot(z, s, "o", ms=3, color="C0", alpha=0.7)
    ax.plot(z, a + b * z, color="C3", lw=1)
    ax.set_xlabel("normal quantiles")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    return ax


def qqplot(result: Any, column: Any = None, *, axes: Any = None):
    """Normal QQ plots of one column before (left) and after (right) the transform.

    Returns
    -------
    ndarray of two matplotlib Axes
    """
    import matplotlib.pyplot as plt

    j, name = _column(result, column)
    if result.data is None:
        raise BoxCoxError("this result holds no data (it was loaded from JSON)")
    own = axes is None
    if own:
        _, axes = plt.subplots(1, 2, figsize=(9, 4))
    axes = np.asarray(axes).reshape(-1)
    x = result.data[:, j]
    x = x[~np.isnan(x)]
    lam = result.lmbda_used[j]
    try:
        y = result._transform_values(x, j)
    except TransformOverflowError as err:
        raise TransformOverflowError(f"column {name!r}: {err}") from None
    fam = _FAMILY_LABEL[result.families[j]]
    for ax, values, title in (
        (axes[0], x, f"{name}: original"),
        (axes[1], y, f"{name}: {fam}, λ = {lam:.4g}"),
    ):
        draw_qq(ax, values, title=title)
    if own:
        axes[0].figure.tight_layout()
    return axes
