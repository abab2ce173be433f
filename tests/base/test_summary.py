"""Tests for boxcoxstat.base.summary: rendering only (the numbers come from the result)."""

from __future__ import annotations

from html.parser import HTMLParser

import numpy as np
import pandas as pd

import boxcoxstat as bcs
from boxcoxstat.base.summary import Summary, format_number, format_power, format_pvalue


def _summary():
    df = pd.DataFrame({"est": [0.5, -1.25e-7], "p": [0.03, 1e-320]}, index=["a", "b"])
    return Summary("Title", [("caption", df)], ["a note"], {"p": format_pvalue})


def test_text_layout():
    text = _summary().as_text()
    lines = text.splitlines()
    assert lines[0] == "Title" and set(lines[1]) == {"="}
    assert "caption" in text and "a note" in text
    assert "0.5000" in text and "-1.2500e-07" in text and "<1e-300" in text
    assert str(_summary()) == text


def test_html_and_latex():
    s = _summary()
    html = s._repr_html_()
    assert "<caption>caption</caption>" in html and "<li>a note</li>" in html
    HTMLParser().feed(html)
    latex = s.as_latex()
    assert latex.count("\\begin{tabular}{lrr}") == 1 and "\\toprule" in latex
    odd = Summary("t", [("", pd.DataFrame({"a_b": ["50%"]}, index=["x&y"]))])
    assert "x\\&y & 50\\% \\\\" in odd.as_latex() and "a\\_b" in odd.as_latex()


def test_formatters():
    assert format_number(np.float64(3.14159)) == "3.1416"
    assert format_number(2) == "2" and format_number(True) == "yes"
    assert format_number(np.nan) == "" and format_number(np.inf) == "inf"
    assert format_number(1.5e7) == "1.5000e+07"
    assert [format_power(v) for v in (-0.5, 1 / 3, 0.0, 0.123)] == ["-1/2", "1/3", "0", "0.12"]
    assert format_pvalue(0.000123456) == "0.0001235"


def test_result_summary_snapshot_of_reference_numbers():
    """The TopGear report prints R's numbers (car 3.1-1: -0.1078, SE 0.0770, LR 2.0528)."""
    cars = bcs.datasets.load("topgear")
    text = str(bcs.fit(cars["MPG"]).summary())
    row = next(line for line in text.splitlines() if line.startswith("MPG") and "0.0770" in line)
    assert row.split() == ["MPG", "-0.1078", "0.0770", "-0.2637", "0.0384", "0"]
    assert "2.0528" in text and "322.9155" in text and "3.356e-72" in text
    assert text.splitlines()[0] == "Box-Cox power transformation, maximum likelihood"
