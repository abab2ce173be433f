"""car's diagnostic plots: symbox, the spread-level plot and a QQ plot with an envelope.

Each function takes ``ax=None``, imports pyplot lazily, returns the Axes and never
calls ``plt.show()``; the numbers come from ``model`` and ``base.diagnostics``.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from .._validation.columns import check_option
from ..base.diagnostics import display_unit, qq_envelope
from ..base.results import check_alpha
from ._column import _check_size, _column
from .symbox import symbox_frame

__all__ = ["symbox", "qqplot", "draw_qq", "plot_spread_level"]


def _axes(ax: Any) -> tuple[Any, bool]:
    import matplotlib.pyplot as plt

    if ax is None:
        return plt.subplots(figsize=(5, 4))[1], True
    return ax, False


def symbox(x: Any, powers: tuple[float, ...] = (-1.0, -0.5, 0.0, 0.5, 1.0), *,
           start: float | None = None, missing: Literal["drop", "raise"] = "raise",
           ax: Any = None) -> Any:
    """Boxplots of the standardised column at each power of a ladder (car's ``symbox``): the
    most symmetric box suggests the power.

    Missing values (NaN) are refused, or left out with ``missing="drop"`` (car's boxplots
    leave out NA); ``start`` and ``powers`` as in
    :func:`~boxcoxstat.graphics.symbox.symbox_frame`.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, boxcoxstat as bcs
    >>> ax = bcs.symbox(np.random.default_rng(0).lognormal(size=100))
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['-1', '-0.5', 'log', '0.5', '1']
    """
    frame = symbox_frame(x, powers, start=start, missing=missing)
    ax, own = _axes(ax)
    ax.boxplot([frame[c].to_numpy() for c in frame.columns], tick_labels=list(frame.columns))
    ax.set_xlabel("powers")
    ax.set_ylabel("standardised transformed values")
    ax.set_yticks([])
    if own:
        ax.figure.tight_layout()
    return ax


def qqplot(x: Any, *, alpha: float = 0.05,
           envelope: Literal["pointwise", "simulated"] = "pointwise", n_label: int = 2,
           reps: int = 1000, random_state: Any = None,
           missing: Literal["drop", "raise"] = "raise", ax: Any = None) -> Any:
    """Normal QQ plot with car's quartile line, a ``1 - alpha`` envelope and the ``n_label``
    points farthest from the mean labelled by their index (car's ``qqPlot``).

    The package's one QQ figure (:func:`draw_qq`): a fit result's ``qqplot()`` draws it for a
    column before and after the transform, ``LmResult.qqplot()`` for the studentized
    residuals.

    ``envelope="pointwise"`` is car's normal-theory band; ``"simulated"`` the pointwise
    quantiles of ``reps`` simulated normal samples (``random_state`` seeds them). Missing
    values (NaN) are refused, or left out with ``missing="drop"`` (as car's ``qqPlot``); the
    labels stay those of the caller's rows (positions for an array).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, pandas as pd, boxcoxstat as bcs
    >>> x = pd.Series(np.r_[np.random.default_rng(1).normal(size=50), 6.0],
    ...               index=[f"c{i}" for i in range(51)])
    >>> ax = bcs.qqplot(x)
    >>> [t.get_text() for t in ax.texts]
    ['c50', 'c24']
    """
    check_option("envelope", envelope, ("pointwise", "simulated"))
    alpha = check_alpha(alpha)
    v, name, index, _ = _column(x, "qqplot", missing)
    _check_size(v, name)
    ax, own = _axes(ax)
    env = draw_qq(ax, v, alpha=alpha, envelope=envelope, reps=reps, random_state=random_state,
                  ylabel=name)
    dist = np.abs(v[env["order"]] - v.mean())  # in the data's unit, sorted as drawn
    far = np.argsort(-dist, kind="stable")[: max(0, int(n_label))]
    for k in far:
        pos = int(env["order"][k])
        label = index[pos] if index is not None else pos
        ax.annotate(str(label), (env["z"][k], env["y"][k]), textcoords="offset points",
                    xytext=(4, 0), fontsize=8)
    if own:
        ax.figure.tight_layout()
    return ax


def draw_qq(ax: Any, values: Any, *, alpha: float = 0.05,
            envelope: Literal["pointwise", "simulated"] = "pointwise", reps: int = 1000,
            random_state: Any = None, line: tuple[float, float] | None = None,
            flagged: Any = None, ylabel: str = "sample quantiles", title: str = ""
            ) -> dict[str, Any]:
    """Draw car's normal QQ figure of ``values`` on ``ax``: the points, the reference line
    (the quartiles' line, or ``line=(a, b)``) and its ``1 - alpha`` envelope
    (:func:`~boxcoxstat.base.diagnostics.qq_envelope`); points where ``flagged`` (booleans
    in the order of ``values``) are drawn red. Values near float64's limit are drawn in a
    power of ten (named in the y label). Returns the envelope's coordinates as drawn.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> from boxcoxstat.graphics.plotting import draw_qq
    >>> fig, ax = plt.subplots()
    >>> env = draw_qq(ax, [2.0, 1.0, 4.0, 3.0, 10.0], flagged=[False] * 4 + [True])
    >>> len(ax.collections), env["order"].tolist()  # band, points, flagged points
    (3, [1, 0, 3, 2, 4])
    >>> plt.close(fig)
    """
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    unit = display_unit(v)  # matplotlib's tick locator overflows on axes near 1e308
    ref = None if line is None else (float(line[0]) / unit, float(line[1]) / unit)
    env = qq_envelope(v / unit, alpha, envelope, reps, random_state, line=ref)
    z, y = env["z"], env["y"]
    mark = (np.zeros(v.size, dtype=bool) if flagged is None
            else np.asarray(flagged, dtype=bool).reshape(-1)[env["order"]])
    ax.fill_between(z, env["lower"], env["upper"], color="C1", alpha=0.15, lw=0)
    ax.plot(z, env["lower"], "--", color="C1", lw=1)
    ax.plot(z, env["upper"], "--", color="C1", lw=1)
    ax.plot(z, env["fit"], color="C1", lw=1.5)
    ax.scatter(z[~mark], y[~mark], s=12, color="C0")
    if mark.any():
        ax.scatter(z[mark], y[mark], s=20, color="C3", label=f"flagged ({int(mark.sum())})")
        ax.legend(loc="upper left", fontsize=8)
    ax.set_xlabel("normal quantiles")
    ax.set_ylabel(ylabel + ("" if unit == 1.0 else f" (x {unit:.0e})"))
    if title:
        ax.set_title(title, fontsize=10)
    return env


def plot_spread_level(result: Any, *, ax: Any = None) -> Any:
    """Spread against level on log-log axes with the fitted line and the suggested power.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, boxcoxstat as bcs
    >>> g = np.repeat([1, 2, 3, 4], 10)
    >>> r = bcs.spread_level(g * np.tile(np.linspace(0.5, 1.5, 10), 4), g)
    >>> r.plot().get_xscale()
    'log'
    """
    ax, own = _axes(ax)
    st = result.statistics
    ax.scatter(st["level"], st["spread"], s=14, color="C0")
    if result.kind == "groups":
        for label, row in st.iterrows():
            ax.annotate(str(label), (row["level"], row["spread"]), textcoords="offset points",
                        xytext=(4, 2), fontsize=8)
    line = result.line()
    ax.plot(line["level"], line["spread"], color="C1", lw=1.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("level (median)" if result.kind == "groups" else "fitted values")
    ax.set_ylabel("spread (hinge spread)" if result.kind == "groups"
                  else "|studentized residuals|")
    ax.set_title(f"Spread-level plot: suggested power {result.power:.3g}")
    if own:
        ax.figure.tight_layout()
    return ax
