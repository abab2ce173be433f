"""Plots return Axes and draw what the numbers say (Agg backend; no images compared)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

import boxcoxstat as bcs
from boxcoxstat.base.diagnostics import qq_envelope

REF = json.loads((Path(__file__).parents[1] / "reference" / "car_toolbox_reference.json")
                 .read_text())


def test_qqplot_labels_the_points_car_labels():
    """car's qqPlot(income, id = list(n = 3)) labels rows 2, 24, 17 (1-based)."""
    x = pd.Series(REF["qqplot"]["x"], index=np.arange(1, 103))
    ax = bcs.qqplot(x, n_label=3)
    assert sorted(int(t.get_text()) for t in ax.texts) == sorted(REF["qqplot"]["labelled"])
    assert len(ax.collections) == 2  # the envelope and the points


def test_qqplot_envelopes_cover_the_line():
    x = np.random.default_rng(0).normal(size=200)
    for envelope in ("pointwise", "simulated"):
        e = qq_envelope(x, 0.05, envelope, 500, 1)
        assert np.all(e["lower"] < e["fit"]) and np.all(e["fit"] < e["upper"])
    # the simulated band approaches the pointwise one in the middle (n = 200, 4000 draws)
    p = qq_envelope(x, 0.05, "pointwise")
    s = qq_envelope(x, 0.05, "simulated", 4000, 2)
    mid = slice(60, 140)
    np.testing.assert_allclose(s["upper"][mid] - s["fit"][mid], p["upper"][mid] - p["fit"][mid],
                               rtol=0.15)  # Monte Carlo error of a 97.5% quantile


def test_symbox_and_spread_level_plots():
    ax = bcs.symbox(np.random.default_rng(0).lognormal(size=60), powers=(-1, 0, 1))
    assert [t.get_text() for t in ax.get_xticklabels()] == ["-1", "log", "1"]
    sl = REF["spread_level"]
    ax = bcs.spread_level(sl["x"], sl["by"]).plot()
    assert ax.get_xscale() == "log" and len(ax.texts) == 4


def test_profile_plot_for_every_family():
    x = pd.Series(np.random.default_rng(2).lognormal(size=80) - 0.5, name="x")
    for family in ("yeojohnson", "bcnpower"):
        ax = bcs.fit(x, family=family).plot_profile()
        assert ax.get_xlabel() == "λ" and len(ax.get_lines()) >= 4
    ax = bcs.fit(x + 1.0, family="boxcox").plot_profile()
    assert "Box-Cox" in ax.get_title()


def test_qqplot_with_missing_drop_labels_the_callers_rows():
    # issue 27: the error advised missing='drop', which qqplot did not take
    x = pd.Series(REF["qqplot"]["x"], index=np.arange(1, 103))
    holed = x.copy()
    holed[[5, 40]] = np.nan  # labels 5 and 40 (neither is one car labels)
    try:
        bcs.qqplot(holed)
    except bcs.BoxCoxError as err:
        assert "missing='drop'" in str(err)
    else:
        raise AssertionError("missing values were accepted without missing='drop'")
    ax = bcs.qqplot(holed, n_label=3, missing="drop")
    assert sorted(int(t.get_text()) for t in ax.texts) == sorted(REF["qqplot"]["labelled"])
    ax = bcs.qqplot(holed.to_numpy(), n_label=1, missing="drop")
    top = int(np.nanargmax(np.abs(holed.to_numpy() - np.nanmean(holed.to_numpy()))))
    assert [t.get_text() for t in ax.texts] == [str(top)]  # a position in the caller's array
