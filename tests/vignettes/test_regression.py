"""Runs vignettes/regression.py end to end (Agg backend, figures to a temporary folder)."""

from __future__ import annotations

import runpy
from pathlib import Path

import matplotlib

from tests import mpref

matplotlib.use("Agg")

ROOT = Path(__file__).parent.parent.parent


@mpref.vignette_needs("regression.py")  # Kaggle's House Prices file (not bundled)
def test_regression_vignette_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BOXCOXSTAT_FIGDIR", str(tmp_path))
    runpy.run_path(str(ROOT / "vignettes" / "regression.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "boxcoxstat: lambda = -0.0673168, 95% interval [-0.2424358, 0.1095294]" in out
    assert "bc(GrLivArea)" in out and "mean (smearing)" in out
    # the whole path: round, refit, predict with intervals (R's numbers printed next to
    # ours), carry lambda's uncertainty, save, load, predict the same
    assert "response (fixed)" in out and "fixed at 0 (given, not estimated" in out
    ours = [line.split() for line in out.splitlines() if line.startswith(("2 ", "7 ", "12 "))]
    r_line = next(line for line in out.splitlines() if line.startswith("R (exp of predict"))
    for row in ours[:3]:
        assert f"{row[1]} [{row[2]}, {row[3]}]" in r_line
    assert "estimated power, its uncertainty carried" in out
    diff = next(line for line in out.splitlines() if "largest relative difference" in line)
    assert float(diff.rsplit(" ", 1)[1]) <= 1e-13
    assert "held-out prices inside their 95% prediction interval" in out
    assert (tmp_path / "regression_trees_profile.png").stat().st_size > 1000
    # car's documented example: powerTransform(cbind(len, adt, trks, sigs1) ~ htype, Highway1)
    for number in ("0.1451", "0.2396", "-0.7336", "-0.2959", "13.1339", "140.5853"):
        assert number in out
    assert "Yeo-Johnson transformations to multinormality" in out
    import matplotlib.pyplot as plt

    plt.close("all")


def test_the_regression_page_shows_the_vignette_output():
    """The regression topic page (the README's section before it became a map) prints what
    the vignette prints."""
    page = (ROOT / "docs" / "topics" / "regression.rst").read_text()
    assert page.startswith("Regression with a transformed response")
    assert "boxcoxstat: lambda = -0.0673168, 95% interval [-0.2424358, 0.1095294]" in page
