"""Runs vignettes/toolbox.py end to end (Agg backend, figures to a temporary folder) and checks
that it prints our numbers next to R's."""

from __future__ import annotations

import runpy
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

ROOT = Path(__file__).parent.parent.parent


def test_toolbox_vignette_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BOXCOXSTAT_FIGDIR", str(tmp_path))
    runpy.run_path(str(ROOT / "vignettes" / "toolbox.py"), run_name="__main__")
    out = capsys.readouterr().out
    for line in ("lambda (R optimised tightly)        0.6872338   0.6872338",
                 "income: lambda (car, tol 1e-13)    -0.3476082  -0.3476082",
                 "lambda (R optimize, tol 1e-12) 0.3658466   0.3658466",
                 "guerrero (optimised tightly)        -0.2947236  -0.2947236",
                 "LR(lambda = 0), gamma maximised out: 73.6660"):
        assert line in out, line
    assert "labelled: ['general.managers', 'physicians']" in out
    for name in ("bcnpower_profile", "inverse_response", "symbox", "spread_level", "qqplot"):
        assert (tmp_path / f"toolbox_{name}.png").stat().st_size > 1000
    import matplotlib.pyplot as plt

    plt.close("all")
