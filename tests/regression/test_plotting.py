"""boxcoxstat.regression.plotting on the Agg backend: the profile, QQ and residual plots."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import boxcoxstat as bcs  # noqa: E402

from .simdata import sim as _sim  # noqa: E402


def test_plots():
    m = bcs.lm("y ~ x", _sim())
    ax = m.plot_profile()
    assert ax.get_xlabel() == "λ" and len(ax.lines) == 5
    qq = m.qqplot(label=4)
    assert qq.get_xlabel() == "normal quantiles" and len(qq.texts) == 4
    assert m.plot_residuals().get_ylabel() == "residuals"
    import matplotlib.pyplot as plt

    plt.close("all")
