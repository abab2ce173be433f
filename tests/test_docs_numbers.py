"""The "numbers side by side" tables of the docs' "Coming from R" and "Coming from
scikit-learn / SciPy" pages: their boxcoxstat column is what the package computes (issue 29,
item 3). The R column is checked against the committed R output by the tests of each model."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs
from tests import mpref

DOCS = mpref.REPO / "docs"


def _rows(page: str) -> dict[str, str]:
    """First cell -> last cell of the first list-table after "The numbers side by side"."""
    text = (DOCS / page).read_text(encoding="utf-8")
    table = text.split("The numbers side by side", 1)[1].split("\n\n.. list-table::", 1)[1]
    table = table.split("\n\n", 2)[1]  # the options, then the rows
    rows = []
    for item in re.split(r"^   \* - ", table, flags=re.M)[1:]:
        cells = [" ".join(c.split()) for c in re.split(r"^     - ", item, flags=re.M)]
        rows.append(cells)
    return {r[0]: r[-1] for r in rows[1:]}


def _f(x, d=7):
    return f"{x:.{d}f}"


def test_from_r_boxcoxstat_column_gh29():
    rows = _rows("from_r.rst")
    cars = bcs.datasets.load("topgear")
    r = bcs.fit(cars["MPG"])
    trees = bcs.datasets.load("trees")
    m = bcs.lm("Volume ~ np.log(Height) + np.log(Girth)", trees)
    lo, hi = m.power.conf_int().iloc[0]
    hw = bcs.datasets.load("highway1")
    j = bcs.fit_joint(hw, ["len", "adt", "trks", "sigs1"], design="~ htype")
    bn = bcs.fit(bcs.datasets.load("mroz")["lwg"], family="bcnpower")
    bt = bcs.box_tidwell("prestige ~ income + education", bcs.datasets.load("prestige"),
                         other="~ type + women + I(women**2)")
    air = bcs.datasets.load("airpassengers")
    series = pd.Series(air["passengers"].to_numpy(),
                       index=pd.period_range("1949-01", periods=len(air), freq="M"))
    rew = bcs.fit(cars["MPG"], method="rewml")
    held = [2, 7, 12, 17, 22, 27, 30]
    fixed = bcs.lm("Volume ~ np.log(Girth) + np.log(Height)", trees.drop(index=held), lmbda=0)
    p = fixed.predict(trees.iloc[held][["Girth", "Height"]], interval="prediction").iloc[0]
    ours = [
        _f(r.lmbda),
        _f(r.bse["MPG"]),
        f"{_f(m.lmbda)}; [{_f(lo)}, {_f(hi)}]",
        ", ".join(_f(v) for v in j.lmbda),
        f"{_f(bn.lmbda)}; {_f(bn.gamma)}",
        f"{_f(bt.lmbda['income'])}; {_f(bt.lmbda['education'])}",
        _f(bcs.guerrero(series).lmbda),
        _f(rew.lmbda),
        f"{p['fit']:.4f} [{p['lower']:.4f}, {p['upper']:.4f}]",
    ]
    assert list(rows.values()) == ours


def test_from_sklearn_boxcoxstat_column_gh29():
    rows = _rows("from_sklearn.rst")
    mpg = bcs.datasets.load("topgear")["MPG"].dropna().to_numpy()
    radius = bcs.datasets.load("wdbc")["radius1"].to_numpy()
    ours = [
        _f(bcs.fit(mpg).lmbda),
        _f(bcs.fit(mpg, family="yeojohnson").lmbda),
        _f(bcs.fit(radius).lmbda),
    ]
    # Table 1's optima map the data beyond float64: the fit says so (and names a safe power)
    with pytest.warns(bcs.ResolutionWarning, match="safe power is -102"):
        ours.append(_f(bcs.fit(np.array([0.1, 0.1, 0.1, 0.101]), ymax=None).lmbda, 6))
    with pytest.warns(bcs.ResolutionWarning, match="safe power is 97.9"):
        ours.append(_f(bcs.fit(np.array([10, 10, 10, 9.9]), family="yeojohnson",
                               ymax=None).lmbda, 6))
    assert list(rows.values()) == ours


@pytest.mark.parametrize("page", ["from_r.rst", "from_sklearn.rst"])
def test_side_by_side_tables_exist_gh29(page):
    assert len(_rows(page)) >= 5
