"""Matplotlib figures for fitted power transformations.

Every function takes ``ax=None`` (one matplotlib Axes, or a sequence of them for a figure of
several panels), imports pyplot lazily, returns the Axes it drew on and never calls
``plt.show()``. The numbers come from the result object and ``diagnostics``; nothing is
estimated here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation.columns import BoxCoxError
from ..base.diagnostics import profile_cutoff
from ..base.results import check_alpha
from ..exceptions import TransformOverflowError
from ..graphics.plotting import draw_qq

__all__ = ["plot_profile", "qqplot"]

_FAMILY_LABEL = {"boxcox": "Box-Cox", "yeojohnson": "Yeo-Johnson", "bcnpower": "bcnPower"}


def _check_axes(ax: Any, count: int, name: str = "ax") -> Any:
    """``ax`` as given if it is ``None`` or holds ``count`` matplotlib Axes, else the package's
    error (a wrong ``ax`` would otherwise fail deep inside matplotlib)."""
    if ax is None:
        return None
    from matplotlib.axes import Axes

    flat = np.asarray(ax, dtype=object).reshape(-1)
    if flat.size != count or not all(isinstance(a, Axes) for a in flat):
        what = "a matplotlib Axes" if count == 1 else f"{count} matplotlib Axes"
        raise BoxCoxError(f"{name} must be {what} (or None for a new figure), got "
                          f"{ax!r:.60}")
    return ax


def _column(result: Any, column: Any) -> tuple[int, str]:
    j = result.column_index(column)
    return j, result.names[j]


def plot_profile(result: Any, column: Any = None, *, ax: Any = None, alpha: float = 0.05,
                 lmbda: Any = None) -> Any:
    """Profile log-likelihood of lambda with the confidence cut-off, as ``MASS::boxcox`` draws it.

    The curve; a dotted horizontal line at ``max - chi2_1(1-alpha)/2`` labelled with the level;
    dotted vertical lines from the bottom up to the curve at the interval's ends and at the
    estimate. A fixed power has no interval: one line marks it. ``lmbda`` is the grid (as
    MASS's ``lambda=``, e.g. to zoom); by default it spans the interval with half its width on
    each side. The one profile figure of the package (``fit`` and ``lm`` results alike).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, boxcoxstat as bcs
    >>> r = bcs.fit(np.random.default_rng(0).lognormal(size=100))
    >>> ax = r.plot_profile(lmbda=np.linspace(-0.5, 0.5, 51))
    >>> ax.get_xlabel(), len(ax.get_lines())
    ('λ', 5)
    """
    import matplotlib.pyplot as plt

    j, name = _column(result, column)
    own = _check_axes(ax, 1) is None
    if own:
        _, ax = plt.subplots(figsize=(5, 4))
    lam_hat = float(result.lmbda_used[j])
    ends: tuple[float, float] | None = None
    if not result.fixed:
        lo, hi = result.conf_int(alpha).iloc[j]
        ends = (float(lo), float(hi))
    if lmbda is None:
        grid = None if ends is None else np.linspace(
            ends[0] - 0.5 * (ends[1] - ends[0]), ends[1] + 0.5 * (ends[1] - ends[0]), 201)
    else:
        grid = np.asarray(lmbda, dtype=np.float64).reshape(-1)
    if grid is not None:
        grid = np.union1d(grid, [lam_hat]) if grid.min() <= lam_hat <= grid.max() else grid
    prof = result.profile(j, grid)
    llf_hat = float(result.llf_values[j])  # at the power used (a ymax bound may move it)
    top_mle = float(result.profile(j, [result.lmbda_mle[j]])["llf"].iloc[0])
    cut = profile_cutoff(top_mle, alpha)
    ax.plot(prof["lmbda"], prof["llf"], color="k", lw=1.2)
    top = max(float(prof["llf"].max()), top_mle)
    bottom = float(prof["llf"].min()) if ends is None else min(float(prof["llf"].min()), cut)
    pad = 0.04 * max(top - bottom, 1e-12)
    ax.set_ylim(bottom - pad, top + pad)
    if ends is not None:
        ax.axhline(cut, color="k", ls=":", lw=1)
        for v in ends:
            ax.plot([v, v], [bottom - pad, cut], color="k", ls=":", lw=1)
        x0 = float(prof["lmbda"].iloc[0])
        ax.text(x0, cut, f" {round(100 * (1 - alpha), 6):g}%", va="bottom", ha="left",
                fontsize=9)
    ax.plot([lam_hat, lam_hat], [bottom - pad, llf_hat], color="C3", ls=":", lw=1)
    ax.set_xlabel("λ")
    ax.set_ylabel("log-likelihood")
    fam = _FAMILY_LABEL[result.families[j]]
    ax.set_title(f"{name} ({fam}): λ = {lam_hat:.4g}" + (" (fixed)" if result.fixed else ""))
    if own:  # a caller's own figure keeps its layout
        ax.figure.tight_layout()
    return ax


def qqplot(result: Any, column: Any = None, *, alpha: float = 0.05, ax: Any = None) -> Any:
    """car's normal QQ plot (:func:`boxcoxstat.graphics.plotting.draw_qq`: quartile line and
    ``1 - alpha`` envelope) of one column before (left) and after (right) the transform.

    ``ax``: two matplotlib Axes (left, right), or None for a new figure.

    Returns
    -------
    ndarray of two matplotlib Axes
    """
    import matplotlib.pyplot as plt

    j, name = _column(result, column)
    if result.data is None:
        raise BoxCoxError("this result holds no data (it was loaded from JSON)")
    alpha = check_alpha(alpha)
    own = _check_axes(ax, 2) is None
    if own:
        _, ax = plt.subplots(1, 2, figsize=(9, 4))
    axes = np.asarray(ax).reshape(-1)
    x = result.data[:, j]
    x = x[~np.isnan(x)]
    lam = result.lmbda_used[j]
    try:
        y = result._transform_values(x, j)
    except TransformOverflowError as err:
        raise TransformOverflowError(f"column {name!r}: {err}") from None
    fam = _FAMILY_LABEL[result.families[j]]
    for panel, values, title in (
        (axes[0], x, f"{name}: original"),
        (axes[1], y, f"{name}: {fam}, λ = {lam:.4g}"),
    ):
        draw_qq(panel, values, alpha=alpha, title=title)
    if own:
        axes[0].figure.tight_layout()
    return axes
