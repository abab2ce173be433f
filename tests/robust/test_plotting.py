"""boxcoxstat.robust.plotting on the Agg backend: the robust QQ plot marks flagged points."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.colors  # noqa: E402
import matplotlib.pyplot  # noqa: E402
import numpy as np  # noqa: E402


def test_qqplot_marks_flagged_points(mpg):
    r, _ = mpg
    axes = r.qqplot()
    band, points, red = axes[1].collections
    assert np.allclose(red.get_facecolor()[0], matplotlib.colors.to_rgba("C3"))
    assert len(red.get_offsets()) == 3
    # the flagged points are the three largest transformed values
    assert np.min(red.get_offsets()[:, 1]) > np.max(points.get_offsets()[:, 1])
    matplotlib.pyplot.close("all")


def test_qqplot_takes_two_axes_as_ax_gh28(mpg):
    """issue 28: plots take ax= (this one took axes=, unchecked); two Axes, or an error."""
    import pytest

    import boxcoxstat as bcs

    r, _ = mpg
    fig, two = matplotlib.pyplot.subplots(1, 2)
    out = r.qqplot(ax=two)
    assert out[0] is two[0] and out[1] is two[1]
    with pytest.raises(bcs.BoxCoxError, match="ax must be 2 matplotlib Axes"):
        r.qqplot(ax=two[0])
    matplotlib.pyplot.close("all")


def test_qqplot_envelope_is_around_the_robust_line(mpg):
    """issue 28: the robust fit's qqplot draws car's envelope too, around its Huber line
    location + scale * z (car's pointwise band with that line's slope)."""
    from scipy import stats

    r, _ = mpg
    axes = r.qqplot(alpha=0.1)
    lower, upper, fit = axes[1].get_lines()[:3]
    z = fit.get_xdata()
    a, b = float(r.location_values[0]), float(r.scale_values[0])
    np.testing.assert_allclose(fit.get_ydata(), a + b * z, rtol=1e-12)
    n = z.size
    p = stats.norm.cdf(z)
    half = stats.norm.isf(0.05) * b / stats.norm.pdf(z) * np.sqrt(p * (1 - p) / n)
    np.testing.assert_allclose(upper.get_ydata() - fit.get_ydata(), half, rtol=1e-9)
    matplotlib.pyplot.close("all")  # the same formula in float64: 1e-9
