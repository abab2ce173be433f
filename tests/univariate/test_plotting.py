"""Tests for boxcoxstat.univariate.plotting on the Agg backend: what is drawn, not how it looks."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import boxcoxstat as bcs  # noqa: E402


@pytest.fixture
def result():
    rng = np.random.default_rng(0)
    return bcs.fit(pd.DataFrame({"a": rng.lognormal(size=150), "b": rng.gamma(2.0, size=150)}))


def test_profile_plot_draws_curve_cutoff_and_interval(result):
    ax = result.plot_profile(column="a")
    lines = ax.get_lines()
    assert len(lines) == 5  # curve, cut-off, two interval ends, estimate
    curve = lines[0]
    x, y = curve.get_data()
    lo, hi = result.conf_int().loc["a"]
    assert x.min() < lo < hi < x.max()
    assert np.argmax(y) == np.argmin(np.abs(x - result.lmbda["a"]))
    cut = lines[1].get_ydata()[0]
    assert y.max() - cut == pytest.approx(3.841458820694124 / 2, rel=1e-9)
    assert sorted([lines[2].get_xdata()[0], lines[3].get_xdata()[0]]) == pytest.approx([lo, hi])
    assert ax.get_xlabel() == "λ" and ax.get_ylabel() == "log-likelihood"
    assert "a" in ax.get_title()
    plt.close("all")


def test_profile_plot_uses_given_axes_and_alpha(result):
    fig, ax = plt.subplots()
    out = result.plot_profile(column="b", ax=ax, alpha=0.01)
    assert out is ax
    y = ax.get_lines()[0].get_ydata()
    assert y.max() - ax.get_lines()[1].get_ydata()[0] == pytest.approx(6.6348966 / 2, rel=1e-6)
    plt.close(fig)


def _car_band(values, alpha=0.05):
    """car's qqPlot pointwise band, from its documented formula: the line through the
    quartiles, -+ z_{1-alpha/2} b / phi(z) sqrt(P (1 - P) / n) with P R's ppoints."""
    from scipy import stats

    n = len(values)
    a3 = 3 / 8 if n <= 10 else 1 / 2
    p = (np.arange(1, n + 1) - a3) / (n + 1 - 2 * a3)
    z = stats.norm.ppf(p)
    q1, q3 = np.quantile(values, [0.25, 0.75])
    b = (q3 - q1) / (stats.norm.ppf(0.75) - stats.norm.ppf(0.25))
    fit = q1 - b * stats.norm.ppf(0.25) + b * z
    half = stats.norm.isf(alpha / 2) * b / stats.norm.pdf(z) * np.sqrt(p * (1 - p) / n)
    return fit - half, fit + half


def test_qqplot_before_and_after(result):
    axes = result.qqplot(column="b")
    assert len(axes) == 2
    n = result.nobs["b"]
    for ax in axes:
        band, points = ax.collections
        assert len(points.get_offsets()) == n
    assert "original" in axes[0].get_title() and "Box-Cox" in axes[1].get_title()
    after = np.sort(bcs.families.boxcox(result.data[:, 1], result.lmbda["b"]))
    np.testing.assert_allclose(axes[1].collections[1].get_offsets()[:, 1], after)
    plt.close("all")


def test_qqplot_draws_cars_envelope_in_both_panels(result):
    """issue 28: the fit result's qqplot and bcs.qqplot drew different figures (no
    envelope here); now both panels carry car's 1 - alpha pointwise band."""
    before = np.sort(result.data[:, 1])
    after = np.sort(bcs.families.boxcox(result.data[:, 1], result.lmbda["b"]))
    for alpha in (0.05, 0.2):
        axes = result.qqplot(column="b", alpha=alpha)
        for ax, values in zip(axes, (before, after), strict=True):
            lower, upper = ax.get_lines()[:2]  # the band's dashed edges
            lo, hi = _car_band(values, alpha)
            np.testing.assert_allclose(lower.get_ydata(), lo, rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(upper.get_ydata(), hi, rtol=1e-10, atol=1e-12)
        plt.close("all")  # float64 rounding of the same formula: 1e-10


def test_qqplot_takes_two_axes_as_ax(result):
    fig, two = plt.subplots(1, 2)
    out = result.qqplot(column="a", ax=two)
    assert out[0] is two[0] and out[1] is two[1]
    assert len(two[1].collections) == 2
    plt.close(fig)


def test_plot_needs_a_column_for_several(result):
    with pytest.raises(bcs.BoxCoxError, match="column="):
        result.plot_profile()
    plt.close("all")


def test_qqplot_of_an_overflowing_fit_names_the_column():
    r = bcs.fit(pd.Series([10.0, 10.0, 10.0, 9.9], name="tight"))
    with pytest.raises(bcs.TransformOverflowError, match="column 'tight'.*ymax"):
        r.qqplot()
    plt.close("all")


def test_qqplot_of_data_spanning_float64():
    """Data from 1e-300 to 1.7e308: the 'original' panel is drawn in units of 1e308 (was
    ``arange: cannot compute length`` from matplotlib's tick locator)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = np.r_[1e-300, np.random.default_rng(0).lognormal(size=48), 1.7e308]
    axes = bcs.fit(x).qqplot()
    try:
        axes[0].figure.canvas.draw()
        assert axes[0].get_ylabel().endswith("(x 1e+308)")
        assert np.all(np.isfinite(axes[0].get_ylim()))
        # the largest point drawn is the largest value in that unit (a division by a power
        # of ten: rounding only)
        top = float(np.max(axes[0].collections[1].get_offsets()[:, 1]))
        assert top == pytest.approx(1.7, rel=1e-15)
        assert axes[1].get_ylabel() == "sample quantiles"  # the transformed values need none
    finally:
        plt.close(axes[0].figure)
