"""Figures for classifier tuning: trace, 2-D heatmap, criterion-vs-lambda curves.

Layer 6 (``classify``). Functions take ``ax=None``, import pyplot lazily, return the Axes and
never call ``plt.show()``; no statistics are computed here.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._validation import BoxCoxError

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


def plot_heatmap(result: Any, *, ax: Any = None) -> Any:
    """Criterion over an exhaustive 2-D grid (Blum, Menon & Elgendi, Figure 2)."""
    ev = result.evaluations
    if ev.shape[1] != 3 or result.search != "grid":
        raise BoxCoxError("plot_heatmap needs a full-mode grid search over exactly 2 features")
    a, b = ev.columns[0], ev.columns[1]
    table = ev.pivot_table(index=a, columns=b, values="score")
    ax = _axes(ax)
    cols, rows = table.columns.to_numpy(float), table.index.to_numpy(float)
    hc = (cols[1] - cols[0]) / 2 if cols.size > 1 else 0.5
    hr = (rows[1] - rows[0]) / 2 if rows.size > 1 else 0.5
    im = ax.imshow(table.to_numpy(), origin="lower", aspect="auto", cmap="viridis",
                   extent=(cols[0] - hc, cols[-1] + hc, rows[0] - hr, rows[-1] + hr))
    ax.figure.colorbar(im, ax=ax, label=result.criterion)
    lam = result.lmbda_used
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
    ax.axvline(float(result.lmbda_used[0]), color="red", linestyle="--")
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
