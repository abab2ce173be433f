"""Tests for boxcoxstat.base.results: HypothesisTest, check_alpha, interval_frame, ResultBase.

p-values are checked against scipy.stats.chi2.sf and, independently of scipy, against the
chi-square survival function in closed form: erfc(sqrt(x/2)) for 1 df, exp(-x/2) for 2 df,
exp(-x/2) (1 + x/2) for 4 df.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from boxcoxstat import BoxCoxError
from boxcoxstat.base import jsonio
from boxcoxstat.base.jsonio import saved
from boxcoxstat.base.results import HypothesisTest, ResultBase, check_alpha, interval_frame
from boxcoxstat.base.summary import Summary


def _sf_closed_form(x: float, df: int) -> float:
    return {1: math.erfc(math.sqrt(x / 2)), 2: math.exp(-x / 2),
            4: math.exp(-x / 2) * (1 + x / 2)}[df]


# ---------------------------------------------------------------- HypothesisTest
def test_a_scalar_test_gives_floats():
    t = HypothesisTest(("MPG",), [2.0528], 1, "lambda = 0", scalar=True)
    assert isinstance(t.statistic, float) and isinstance(t.pvalue, float)
    assert t.statistic == 2.0528 and t.df == 1 and t.null == "lambda = 0"
    # rel 1e-12: scipy's chi2.sf and math.erfc are separate implementations of the same value
    assert t.pvalue == pytest.approx(_sf_closed_form(2.0528, 1), rel=1e-12)
    assert t.pvalue == pytest.approx(stats.chi2.sf(2.0528, 1), rel=1e-15)  # same function


def test_the_5_percent_critical_value_has_p_005():
    """chi2(1) 95% quantile 3.841458820694124 (tables: 3.8415) has upper tail 0.05."""
    t = HypothesisTest(("x",), [3.841458820694124], 1, "lambda = 1", scalar=True)
    assert t.pvalue == pytest.approx(0.05, rel=1e-12)  # 16-digit quantile: p to ~1e-15


@pytest.mark.parametrize("df", [1, 2, 4])
def test_a_test_by_column_gives_series(df):
    stat = np.array([0.0, 1.5, 40.0])
    t = HypothesisTest(("a", "b", "c"), stat, df, "lambda = 0")
    assert isinstance(t.statistic, pd.Series) and isinstance(t.pvalue, pd.Series)
    assert list(t.statistic.index) == ["a", "b", "c"] == list(t.pvalue.index)
    assert t.statistic.name == "statistic" and t.pvalue.name == "pvalue"
    np.testing.assert_array_equal(t.statistic.to_numpy(), stat)
    ref = [_sf_closed_form(x, df) for x in stat]
    # rtol 1e-12: scipy's chi2.sf against the closed form, both in double precision
    np.testing.assert_allclose(t.pvalue.to_numpy(), ref, rtol=1e-12)
    np.testing.assert_allclose(t.pvalue.to_numpy(), stats.chi2.sf(stat, df), rtol=1e-15)
    frame = t.frame()
    assert list(frame.columns) == ["statistic", "df", "pvalue"]
    assert list(frame.index) == ["a", "b", "c"] and (frame["df"] == df).all()


def test_one_row_not_marked_scalar_is_a_series():
    t = HypothesisTest(("all",), [13.1339], 4, "lambda = (0, 0, 0, 0)")
    assert isinstance(t.pvalue, pd.Series) and t.pvalue.index.tolist() == ["all"]
    # car::powerTransform on Highway1 (README): LR 13.1339 on 4 df has p = 0.01064
    assert t.pvalue["all"] == pytest.approx(0.01064, abs=5e-6)  # car prints 4 digits


def test_text_html_and_repr():
    t = HypothesisTest(("MPG", "Weight"), [2.0528, 42.4472], 1, "lambda = 0")
    text = str(t)
    assert text == t.summary().as_text()
    lines = text.splitlines()
    assert lines[0] == "Likelihood ratio test"
    assert "H0: lambda = 0" in text and "Reference distribution: chi-square with 1 df." in text
    assert lines[2] == "H0: lambda = 0" and lines[3].split() == ["statistic", "df", "pvalue"]
    assert lines[4].split() == ["MPG", "2.0528", "1", "0.1519"]  # p from car's README table
    assert lines[5].split() == ["Weight", "42.4472", "1", "7.262e-11"]
    html = t._repr_html_()
    assert html == t.summary().as_html()
    seen: list[str] = []

    class Cells(HTMLParser):
        def handle_data(self, data: str) -> None:
            if data.strip():
                seen.append(data.strip())

    Cells().feed(html)
    assert "H0: lambda = 0" in seen and "7.262e-11" in seen and "MPG" in seen
    assert repr(t) == "<HypothesisTest H0: lambda = 0; statistic 2.053, 42.45, df 1>"


def test_a_test_round_trips_through_json():
    t = HypothesisTest(("a", "b"), [1.0, np.inf], 2, "lambda = 1")
    back = HypothesisTest.from_json(t.to_json())
    assert back.names == t.names and back.df == 2 and back.null == "lambda = 1"
    np.testing.assert_array_equal(back.statistic_values, [1.0, np.inf])
    assert back.pvalue["b"] == 0.0
    doc = json.loads(t.to_json())
    bad = {**doc, "scalar": True}
    with pytest.raises(BoxCoxError, match="HypothesisTest JSON document: field 'scalar'"):
        HypothesisTest.from_json(bad)
    with pytest.raises(BoxCoxError, match="field 'df': expected an integer >= 1"):
        HypothesisTest.from_json({**doc, "df": 0})


@pytest.mark.parametrize(("args", "says"), [
    ((("a", "b"), [1.0], 1, "h"), "1 statistic(s) for 2 row name(s)"),
    ((("a",), [1.0, 2.0], 1, "h"), "2 statistic(s) for 1 row name(s)"),
    ((("a",), [1.0], 0, "h"), "df must be an integer >= 1"),
    ((("a",), [1.0], 1.5, "h"), "df must be an integer >= 1"),
    ((("a",), [1.0], True, "h"), "df must be an integer >= 1"),
])
def test_inconsistent_tests_are_refused_gh11(args, says):
    """A statistic per name was not checked: one value was broadcast over every row."""
    with pytest.raises(BoxCoxError) as info:
        HypothesisTest(*args)
    assert says in str(info.value)


def test_scalar_needs_one_row_gh11():
    """scalar=True with two rows silently returned a Series."""
    with pytest.raises(BoxCoxError, match="scalar=True needs exactly one row"):
        HypothesisTest(("a", "b"), [1.0, 2.0], 1, "h", scalar=True)


# ---------------------------------------------------------------- check_alpha, interval_frame
@pytest.mark.parametrize("alpha", [0, 1, 0.0, 1.0, -0.05, 1.5, np.nan, np.inf])
def test_check_alpha_refuses_values_outside_0_1(alpha):
    with pytest.raises(BoxCoxError, match="alpha must lie strictly between 0 and 1"):
        check_alpha(alpha)


@pytest.mark.parametrize("alpha", ["0.05", True, False, None, np.bool_(True), [0.05]])
def test_check_alpha_refuses_non_numbers(alpha):
    with pytest.raises(BoxCoxError, match="alpha must be a number between 0 and 1"):
        check_alpha(alpha)


def test_check_alpha_accepts_levels_and_returns_a_float():
    assert check_alpha(0.05) == 0.05 and type(check_alpha(0.05)) is float
    assert check_alpha(np.float32(0.25)) == 0.25 and type(check_alpha(np.float32(0.25))) is float


def test_interval_frame_has_the_one_shape():
    f = interval_frame([1.0, 2.0], np.array([[3.0], [4.0]]), ("a", "b"))
    assert list(f.columns) == ["lower", "upper"] and list(f.index) == ["a", "b"]
    assert f.to_numpy().tolist() == [[1.0, 3.0], [2.0, 4.0]]


# ---------------------------------------------------------------- ResultBase
@dataclass(frozen=True, repr=False)
class Tiny(ResultBase):
    level: float = saved(jsonio.Float())
    _json_version = 2

    def summary(self) -> Summary:
        return Summary("Tiny report", [("", pd.DataFrame({"level": [self.level]}, index=["x"]))],
                       ["a note"])

    def conf_int(self) -> pd.DataFrame:
        self._not_available("conf_int", "a tiny result has no interval")


def test_str_and_html_come_from_summary():
    r = Tiny(0.5)
    assert str(r).splitlines()[0] == "Tiny report" and "0.5000" in str(r)
    assert r._repr_html_().startswith("<h4>Tiny report</h4>") and "<li>a note</li>" in \
        r._repr_html_()


def test_not_available_is_the_package_error_naming_class_and_method():
    with pytest.raises(BoxCoxError,
                       match=r"^Tiny.conf_int is not available: a tiny result has no interval$"):
        Tiny(0.5).conf_int()


@pytest.mark.parametrize("version", [1, 2])
def test_a_class_reads_every_version_up_to_its_own(version):
    doc = {"format": "boxcoxstat.Tiny", "version": version, "level": 0.5}
    assert Tiny.from_json(doc).level == 0.5
    assert json.loads(Tiny(0.5).to_json())["version"] == 2


def test_a_newer_version_is_refused():
    with pytest.raises(BoxCoxError, match="field 'version' must be an integer from 1 to 2, got 3"):
        Tiny.from_json({"format": "boxcoxstat.Tiny", "version": 3, "level": 0.5})
