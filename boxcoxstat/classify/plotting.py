"""Figures for classifier tuning: trace, 2-D heatmap, criterion-vs-lambda curves.

Functions take ``ax=None``, import pyplot lazily, return the Axes and
never call ``plt.show()``; no statistics are computed here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._validation.columns import BoxCoxError

__all__ = ["plot_trace", "plot_heatmap", "plot_curve", "plot_criterion_curves"]


def _axes(ax: Any) -> Any:
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
    return ax


def plot_trace(result: Any, *, ax: Any = None) -> Any:
    """Best criterion value after each epoch of the search(es) in ``result``."""
    ax = _axes(ax)
    trace = result.trace
    for col in trace.columns:
        ax.plot(trace.index, trace[col], marker="o", label=str(col))
    ax.set_xlabel("epoch")
    ax.set_ylabel(f"best {result.criterion}")
    if trace.shape[1] > 1 and trace.shape[1] <= 10:
        ax.legend()
    return ax


def plot_heatmap(result: Any, *, ax: Any = None,
                 marks: Mapping[str, Sequence[float]] | None = None) -> Any:
    """Criterion over an exhaustive 2-D grid (Blum, Menon & Elgendi, Figure 2).

    Rows are the first feature's lambda, columns the second's, each tick a grid value.

    Parameters
    ----------
    result : TuningResult
        A ``mode="full", search="grid"`` result over exactly two features.
    ax : matplotlib Axes, optional
    marks : mapping of str to (float, float), optional
        Labels drawn at lambda pairs ``(lambda_1, lambda_2)``, as the paper marks its
        spherical, diagonal and full optima 1, 2 and 3; labels at the same cell are joined
        with a comma. Without ``marks`` a star marks ``result._lmbda_used``.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.classify import tune
    >>> rng = np.random.default_rng(0)
    >>> X = rng.lognormal(size=(60, 2)); y = (X[:, 0] > 1).astype(int)
    >>> res = tune(X, y, mode="full", criterion="fisher", search="grid",
    ...            grid=np.linspace(-2, 2, 5))
    >>> ax = res.plot_heatmap(marks={"3": res.params.to_numpy()})
    >>> [t.get_text() for t in ax.texts]
    ['3']
    """
    ev = result.evaluations
    if ev.shape[1] != 3 or result.search != "grid":
        raise BoxCoxError("plot_heatmap needs a full-mode grid search over exactly 2 features")
    points: dict[tuple[float, float], list[str]] = {}
    for label, where in (marks or {}).items():
        try:
            pair = np.asarray(where, dtype=float)
        except (TypeError, ValueError):
            pair = np.array([np.nan])
        if pair.shape != (2,) or not np.all(np.isfinite(pair)):
            raise BoxCoxError(f"plot_heatmap: mark {label!r} must be a pair of finite lambdas "
                              f"(lambda of the first feature, of the second); got {where!r}")
        points.setdefault((float(pair[0]), float(pair[1])), []).append(str(label))
    a, b = ev.columns[0], ev.columns[1]
    table = ev.pivot_table(index=a, columns=b, values="score")
    ax = _axes(ax)
    cols, rows = table.columns.to_numpy(float), table.index.to_numpy(float)
    hc = (cols[1] - cols[0]) / 2 if cols.size > 1 else 0.5
    hr = (rows[1] - rows[0]) / 2 if rows.size > 1 else 0.5
    im = ax.imshow(table.to_numpy(), origin="lower", aspect="auto", cmap="viridis",
                   extent=(cols[0] - hc, cols[-1] + hc, rows[0] - hr, rows[-1] + hr))
    ax.figure.colorbar(im, ax=ax, label=result.criterion)
    if cols.size <= 21 and rows.size <= 21:
        ax.set_xticks(cols)
        ax.set_yticks(rows)
        ax.set_xticklabels([f"{v:g}" for v in cols], fontsize="small")
        ax.set_yticklabels([f"{v:g}" for v in rows], fontsize="small")
    if points:
        import matplotlib.patheffects as pe

        for (l1, l2), labels in points.items():
            ax.text(l2, l1, ",".join(labels), color="white", ha="center", va="center",
                    fontweight="bold", path_effects=[pe.withStroke(linewidth=2,
                                                                   foreground="black")])
    else:
        lam = result._lmbda_used
        ax.plot([lam[1]], [lam[0]], marker="*", color="red", markersize=12)
    ax.set_xlabel(f"lambda of {b}")
    ax.set_ylabel(f"lambda of {a}")
    return ax


def plot_curve(result: Any, *, ax: Any = None) -> Any:
    """Criterion against lambda for a spherical search, the chosen lambda marked."""
    if result.mode != "spherical":
        raise BoxCoxError("plot_curve shows a spherical search; use mode='spherical'")
    ev = result.evaluations.sort_values("lmbda")
    ax = _axes(ax)
    ax.plot(ev["lmbda"], ev["score"], marker=".")
    ax.axvline(float(result._lmbda_used[0]), color="red", linestyle="--")
    ax.axvline(1.0, color="green", linestyle=":")
    ax.set_xlabel("lambda")
    ax.set_ylabel(result.criterion)
    return ax


def plot_criterion_curves(curves: pd.DataFrame, *, normalize: bool = True,
                          ax: Any = None) -> Any:
    """Curves from :func:`.model.criterion_curves`, each scaled to ``[0, 1]`` by default.

    As in Bicego & Baldo (2016), Figures 4-6; the green line marks lambda = 1.
    """
    ax = _axes(ax)
    for col in curves.columns:
        v = curves[col].to_numpy(dtype=float)
        span = v.max() - v.min()
        if normalize:
            v = (v - v.min()) / span if span > 0 else np.zeros_like(v)
        ax.plot(curves.index, v, label=str(col))
    ax.axvline(1.0, color="green", linestyle=":")
    ax.set_xlabel("lambda")
    ax.set_ylabel("normalised value" if normalize else "value")
    ax.legend()
    return ax
