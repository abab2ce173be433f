"""boxcoxstat.robust.plotting on the Agg backend: the robust QQ plot marks flagged points."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot  # noqa: E402
import numpy as np  # noqa: E402


def test_qqplot_marks_flagged_points(mpg):
    r, _ = mpg
    axes = r.qqplot()
    red = [ln for ln in axes[1].get_lines() if ln.get_color() == "C3"]
    assert len(red) == 1 and len(red[0].get_xdata()) == 3
    # the flagged points are the three largest transformed values
    assert np.min(red[0].get_ydata()) > np.max(axes[1].get_lines()[0].get_ydata())
    matplotlib.pyplot.close("all")
