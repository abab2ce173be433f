"""The inverse response plot (matplotlib).

Takes ``ax=None``, imports pyplot lazily, returns the Axes, never calls
``plt.show()``; the fitted lines come from the result (``InverseResponseResult.curves``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["plot_inverse_response"]


def plot_inverse_response(result: Any, *, ax: Any = None) -> Any:
    """car's ``inverseResponsePlot``: the fitted values against the response, with the fitted
    lines of ``yhat ~ psi(lambda, y)`` for the estimate and for -1, 0 and 1.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, boxcoxstat as bcs
    >>> y = np.linspace(1, 8, 40) ** 2
    >>> ax = bcs.inverse_response(np.sqrt(y) + np.sin(y), y).plot()
    >>> len(ax.get_lines())
    4
    """
    import matplotlib.pyplot as plt

    curves = result.curves()
    own = ax is None
    if own:
        _, ax = plt.subplots(figsize=(5, 4))
    ax.scatter(result.y, result.yhat, s=9, color="0.4", alpha=0.7)
    styles = ["-", "--", "-.", ":"]
    for k, col in enumerate(curves.columns):
        label = f"λ̂ = {col}" if k == 0 else f"λ = {col}"
        ax.plot(curves.index, curves[col], styles[k % 4], lw=1.8, label=label)
    ax.set_xlabel(result.response)
    ax.set_ylabel("fitted values")
    ax.set_title("Inverse response plot")
    ax.legend(fontsize=8)
    if own:
        ax.figure.tight_layout()
    return ax
