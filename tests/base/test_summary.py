"""Tests for boxcoxstat.base.summary: rendering only (the numbers come from the result)."""

from __future__ import annotations

import shutil
import subprocess
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

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


def test_text_tables_are_laid_out_as_pandas_prints_them():
    """as_text lays plain tables out itself (pandas' to_string cost 3 ms a table); on random
    tables of numbers, booleans, NaN, infinities and labels of every length, and on tables
    pandas must still print (a named index, a multi-index, duplicate or padded labels),
    the text is pandas' own."""
    rng = np.random.default_rng(3)
    pool = np.array([0.0, np.nan, 1e-9, -3.25, 123456789.0, 1e300, -np.inf, 7, True, 0.5],
                    dtype=object)
    frames = []
    for _ in range(200):
        nr, nc = int(rng.integers(1, 5)), int(rng.integers(1, 6))
        index = ["r" * int(rng.integers(1, 9)) + str(i) for i in range(nr)]
        columns = ["c" * int(rng.integers(1, 12)) + str(j) for j in range(nc)]
        frames.append(pd.DataFrame(rng.choice(pool, size=(nr, nc)), index=index,
                                   columns=columns))
    named = pd.DataFrame({"a": [1.5, 2.0]}, index=pd.Index(["x", "y"], name="col"))
    multi = pd.DataFrame({"a": [1.5, 2.0]}, index=pd.MultiIndex.from_tuples([("x", 1),
                                                                            ("y", 2)]))
    padded = pd.DataFrame({" a": [1.5], "b": [np.nan]}, index=["  x"])
    frames += [named, multi, padded]
    for df in frames:
        s = Summary("t", [("", df)])
        body = s.as_text().split("\n", 2)[2]
        assert body == s._formatted(df).to_string()


def test_html_and_latex():
    s = _summary()
    html = s._repr_html_()
    assert "<caption>caption</caption>" in html and "<li>a note</li>" in html
    HTMLParser().feed(html)
    latex = s.as_latex()
    assert latex.count("\\begin{tabular}{lrr}") == 1 and "\\toprule" in latex
    odd = Summary("t", [("", pd.DataFrame({"a_b": ["50%"]}, index=["x&y"]))])
    assert "x\\&y & 50\\% \\\\" in odd.as_latex() and "a\\_b" in odd.as_latex()


def test_repeated_column_names_keep_every_column_in_every_rendering():
    """Columns are formatted by position: two columns of one name are both shown (text,
    HTML, LaTeX), each with its own values (a DataFrame assigned by name kept one)."""
    df = pd.DataFrame([[1.25, 2.5, 3.75]], columns=["coef", "se", "coef"], index=["x"])
    s = Summary("t", [("", df)])
    assert s.as_text().splitlines()[-1].split() == ["x", "1.2500", "2.5000", "3.7500"]
    html = s.as_html()
    assert html.count("<th>coef</th>") == 2 and "3.7500" in html and "1.2500" in html
    assert "x & 1.2500 & 2.5000 & 3.7500 \\\\" in s.as_latex()
    two_level = pd.DataFrame([[0.1, 0.9]], index=["x"],
                             columns=pd.MultiIndex.from_tuples([("ci", "lo"), ("ci", "hi")]))
    text = Summary("t", [("", two_level)]).as_text()
    assert "0.1000" in text and "0.9000" in text and "lo" in text and "hi" in text


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


def test_latex_is_a_table_float_with_caption_label_escapes_and_notes():
    """as_latex: one table float, the title as caption, a label, each table in a booktabs
    tabular scaled to the text width only when wider, the notes as text (not comments), and
    every character LaTeX treats specially escaped."""
    special = "a & b % c $ d # e _ f { g } h ~ i ^ j \\ k < l > m | n [o]"
    df = pd.DataFrame({"P>|t|": [0.5], "[0.025": [-1.5]}, index=[special])
    s = Summary("Model: y ~ x", [("Coefficients", df)], ["100% of rows; p < 0.05"])
    tex = s.as_latex(label="tab:m")
    lines = tex.splitlines()
    assert lines[0].startswith("%") and "booktabs" in lines[0] and "graphicx" in lines[0]
    body = "\n".join(lines[1:])
    assert body.count("\\begin{table}") == 1 and body.rstrip().endswith("\\end{table}")
    assert "\\caption{Model: y $\\sim$ x}" in body and "\\label{tab:m}" in body
    assert "\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%" in body
    assert "P\\textgreater{}\\textbar{}t\\textbar{}" in body and "{[}0.025" in body
    assert ("a \\& b \\% c \\$ d \\# e \\_ f \\{ g \\} h $\\sim$ i \\^{} j \\textbackslash{} "
            "k \\textless{} l \\textgreater{} m \\textbar{} n {[}o{]}") in body
    assert "$-$1.5000" in body  # a number's minus sign is a minus, not a hyphen
    assert "100\\% of rows; p \\textless{} 0.05" in body
    assert not any(line.startswith("%") for line in lines[1:])  # notes are text
    assert "\\label{tab:model}" in s.as_latex()  # default label from the title


def _latex_reports():
    cars = bcs.datasets.load("topgear")
    trees = bcs.datasets.load("trees")
    m = bcs.lm("Volume ~ np.log(Height) + np.log(Girth)", trees)
    priced = cars[["Price", "MPG", "Weight", "Fuel"]].dropna()
    return [
        m.summary(), m.at(0).summary(),
        bcs.lm("Price ~ bc(MPG) + yj(Weight - 1500) + C(Fuel)", priced).summary(),
        bcs.fit(cars[["MPG", "Weight"]]).summary(), bcs.fit(cars["MPG"], lmbda=0).summary(),
        bcs.fit_joint(bcs.datasets.load("highway1"), ["len", "adt", "trks"],
                      design="~ htype").summary(),
        bcs.fit(cars["MPG"], method="rewml").summary(), bcs.fit(cars["MPG"]).test(0).summary(),
    ]


@pytest.mark.slow
def test_every_report_compiles_with_pdflatex_without_overfull_boxes(tmp_path):
    """Compiles the LaTeX of the package's reports in a minimal article (needs pdflatex, e.g.
    Debian's texlive-latex-base and texlive-latex-recommended; CI does not have it, so this
    is a slow test). No error and no overfull box: every table fits the text width."""
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed (apt-get install texlive-latex-base "
                    "texlive-latex-recommended)")
    body = "\n\n".join(s.as_latex(label=f"tab:{k}") for k, s in enumerate(_latex_reports()))
    (tmp_path / "doc.tex").write_text("\\documentclass{article}\n\\usepackage{booktabs,graphicx}"
                                      "\n\\begin{document}\n" + body + "\n\\end{document}\n")
    out = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    log = (tmp_path / "doc.log").read_text(errors="replace")
    assert out.returncode == 0, log[-2000:]
    assert "Overfull" not in log and (tmp_path / "doc.pdf").stat().st_size > 1000
