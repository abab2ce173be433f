"""car's spreadLevelPlot numbers (car_toolbox_reference.R, car 3.1-1); the symbox ladder's
missing values (the ladder itself: test_symbox.py).

Tolerances: the hinges are order statistics (exact); the powers come from one least-squares
line on both sides (1e-12 relative); car's default rlm line equals least squares on Ornstein's
four groups, and statsmodels' Huber fit there too (1e-6: the two IRLS stop differently).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf

import boxcoxstat as bcs
from boxcoxstat.base.diagnostics import fivenum
from boxcoxstat.graphics.symbox import symbox_frame

REF = json.loads((Path(__file__).parents[1] / "reference" / "car_toolbox_reference.json")
                 .read_text())
SL = REF["spread_level"]


def test_spread_level_by_groups_matches_car():
    r = bcs.spread_level(SL["x"], SL["by"])
    st = SL["statistics"]
    assert list(r.statistics.index) == SL["groups"]  # ordered by median, as car orders them
    np.testing.assert_array_equal(r.statistics["lower hinge"], st["LowerHinge"])
    np.testing.assert_array_equal(r.statistics["level"], st["Median"])
    np.testing.assert_array_equal(r.statistics["spread"], st["Hinge-Spread"])
    assert r.power == pytest.approx(SL["power_ls"], rel=1e-12)
    assert bcs.spread_level(SL["x"], SL["by"], robust=True).power == pytest.approx(
        SL["power_rlm"], rel=1e-6)


def test_spread_level_of_a_model_matches_car():
    df = pd.DataFrame({"interlocks": np.array(SL["x"]) - 1, "assets": SL["assets"],
                       "nation": SL["by"]})
    ols = smf.ols("I(interlocks + 1) ~ np.log(assets) + nation", df).fit()
    r = bcs.spread_level(ols)
    assert r.n_dropped == 21  # car: "21 negative fitted values removed"
    assert r.power == pytest.approx(SL["power_lm_fitted"], rel=1e-10)


def test_fivenum_is_tukeys():
    assert fivenum([1.0, 2, 3, 4, 5, 6]).tolist() == [1.0, 2.0, 3.5, 5.0, 6.0]  # R's fivenum
    assert fivenum([3.0, 1, 2]).tolist() == [1.0, 1.5, 2.0, 2.5, 3.0]


def test_bad_input():
    with pytest.raises(bcs.BoxCoxError, match="by="):
        bcs.spread_level([1.0, 2.0, 3.0])
    with pytest.raises(bcs.BoxCoxError, match="3 groups"):
        bcs.spread_level([1.0, 2, 3, 4, 5, 6], [0, 0, 0, 1, 1, 1])
    with pytest.raises(bcs.BoxCoxError, match="infinite"):
        bcs.symbox([1.0, np.inf, 2.0])


def test_missing_drop_is_accepted_where_the_message_advises_it():
    # issue 27: spread_level and symbox said "use missing='drop'", which they did not take
    x = np.array(SL["x"], dtype=float)
    by = np.array(SL["by"], dtype=object)
    x[[0, 7]] = np.nan
    by[11] = None
    with pytest.raises(bcs.BoxCoxError, match="missing value.*use missing='drop'"):
        bcs.spread_level(x, by)
    dropped = bcs.spread_level(x, by, missing="drop")
    keep = ~np.isnan(x) & (by != None)  # noqa: E711 (elementwise on an object array)
    same = bcs.spread_level(x[keep], by[keep])  # the rows left out by hand
    assert dropped.power == pytest.approx(same.power, rel=1e-15)  # the same arithmetic
    pd.testing.assert_frame_equal(dropped.statistics, same.statistics)
    with pytest.raises(bcs.BoxCoxError, match="missing label.*use missing='drop'"):
        bcs.spread_level(np.array(SL["x"]), by)
    with pytest.raises(bcs.BoxCoxError, match="use missing='drop'"):
        symbox_frame(x)
    pd.testing.assert_frame_equal(symbox_frame(x, missing="drop"), symbox_frame(x[~np.isnan(x)]))
