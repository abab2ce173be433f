"""Figures of a robust PCA: the outlier map, the pairs plot of the scores and MacroPCA's
cellwise residual map (Raymaekers & Rousseeuw 2021, Figures 12-13).

Nothing is estimated here; the numbers come from the
:class:`~boxcoxstat.pca.results.RobustPCAResult`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..univariate.plotting import _check_axes

__all__ = ["plot_outlier_map", "plot_score_pairs", "plot_residual_map"]


def plot_outlier_map(result: Any, *, ax: Any = None, labels: int = 0, color: Any = None):
    """The outlier map of a robust PCA: score distance (horizontal) against orthogonal
    distance (vertical), with both cut-offs (Hubert, Rousseeuw & Vanden Branden 2005;
    Raymaekers & Rousseeuw 2021, Fig. 13). ``labels`` names that many of the most outlying
    rows (by the larger of the two distances relative to its cut-off); ``color``: one colour
    per row, or None.

    Returns
    -------
    matplotlib Axes
    """
    import matplotlib.pyplot as plt

    own = ax is None
    if own:
        _, ax = plt.subplots(figsize=(6, 4.5))
    sd, od = np.asarray(result.sd_values), np.asarray(result.od_values)
    ax.scatter(sd, od, s=6, c="0.2" if color is None else color, alpha=0.7, linewidths=0)
    ax.axvline(result.sd_cutoff, color="C3", lw=1)
    if result.od_cutoff > 0:
        ax.axhline(result.od_cutoff, color="C3", lw=1)
    if labels:
        ratio = np.maximum(sd / result.sd_cutoff,
                           od / result.od_cutoff if result.od_cutoff > 0 else 0.0)
        names = result.index if result.index is not None else np.arange(sd.size)
        for i in np.argsort(-ratio)[: int(labels)]:
            ax.annotate(str(names[i]), (sd[i], od[i]), fontsize=7,
                        xytext=(3, 3), textcoords="offset points")
    ax.set_xlabel("Score distance")
    ax.set_ylabel("Orthogonal distance")
    ax.set_title(f"Outlier map, k = {result.n_components}", fontsize=10)
    if own:
        ax.figure.tight_layout()
    return ax


def plot_score_pairs(result: Any, *, ax: Any = None, color: Any = None):
    """Pairs plot of the robust PCA scores (Raymaekers & Rousseeuw 2021, Fig. 12): score
    ``j`` against score ``i`` below and above the diagonal, histograms on it. ``ax``: ``k x k``
    matplotlib Axes, or None for a new figure.

    Returns
    -------
    ndarray of matplotlib Axes, ``k x k``
    """
    import matplotlib.pyplot as plt

    k = result.n_components
    t = np.asarray(result.scores_matrix)
    own = _check_axes(ax, k * k) is None
    if own:
        _, ax = plt.subplots(k, k, figsize=(2.2 * k, 2.2 * k), squeeze=False)
    axes = np.asarray(ax).reshape(k, k)
    for i in range(k):
        for j in range(k):
            ax = axes[i, j]
            if i == j:
                ax.hist(t[:, i], bins=60, color="0.5")
            else:
                ax.scatter(t[:, j], t[:, i], s=2, c="0.2" if color is None else color,
                           alpha=0.6, linewidths=0)
            if i == k - 1:
                ax.set_xlabel(f"PC{j + 1}", fontsize=8)
            if j == 0:
                ax.set_ylabel(f"PC{i + 1}", fontsize=8)
            ax.tick_params(labelsize=6)
    if own:
        axes[0, 0].figure.tight_layout()
    return axes


def plot_residual_map(result: Any, resid: Any, rows: Any = None, *, ax: Any = None,
                      cutoff: float | None = None):
    """MacroPCA's cellwise residual map (Hubert, Rousseeuw & Van den Bossche 2019, after
    cellWise's ``cellMap``): one square per cell of the chosen rows, yellow when its
    standardized residual is within ``cutoff`` (default ``sqrt(chi2_1(0.99))``), red above
    and blue below (darker the further out), white when missing; rows beyond an outlier-map
    cut-off are named in bold.

    Returns
    -------
    matplotlib Axes
    """
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from scipy import stats

    cut = float(np.sqrt(stats.chi2.ppf(0.99, 1))) if cutoff is None else float(cutoff)
    if rows is None:
        order = np.argsort(-np.asarray(result.od_values), kind="stable")[:30]
        sub = resid.iloc[np.sort(order)]
    else:
        try:
            sub = resid.loc[list(rows)]
        except KeyError as err:
            from .._validation.columns import BoxCoxError

            raise BoxCoxError(f"plot_residual_map: no fitted row {err}; pass row labels "
                              "(positions for NumPy input)") from None
    r = sub.to_numpy(dtype=float)
    # levels: 0 missing, 1 within, 2..4 above (mild to extreme), 5..7 below
    level = np.ones(r.shape)
    a = np.abs(np.nan_to_num(r))
    grade = np.where(a > 3 * cut, 2, np.where(a > 2 * cut, 1, 0))
    level = np.where(np.nan_to_num(r) > cut, 2 + grade, level)
    level = np.where(np.nan_to_num(r) < -cut, 5 + grade, level)
    level[np.isnan(r)] = 0
    cmap = ListedColormap(["white", "#f2e98a", "#f4a582", "#d6604d", "#8b0000",
                           "#92c5de", "#4393c3", "#08306b"])
    own = ax is None
    if own:
        _, ax = plt.subplots(figsize=(0.5 * r.shape[1] + 2.5, 0.22 * r.shape[0] + 1.5))
    ax.imshow(level, cmap=cmap, vmin=0, vmax=7, aspect="auto", interpolation="nearest")
    ax.set_xticks(range(r.shape[1]))
    ax.set_xticklabels(list(sub.columns), rotation=90, fontsize=8)
    ax.set_yticks(range(r.shape[0]))
    flagged = {str(v) for v in result.outliers}
    ax.set_yticklabels([str(v) for v in sub.index], fontsize=7)
    for tick, name in zip(ax.get_yticklabels(), sub.index, strict=True):
        if str(name) in flagged:
            tick.set_fontweight("bold")
    ax.set_xticks(np.arange(-0.5, r.shape[1]), minor=True)
    ax.set_yticks(np.arange(-0.5, r.shape[0]), minor=True)
    ax.grid(which="minor", color="white", lw=0.5)
    ax.tick_params(which="minor", length=0)
    ax.set_title("Cellwise residual map (red: above, blue: below the fit)", fontsize=10)
    if own:
        ax.figure.tight_layout()
    return ax
