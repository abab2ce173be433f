"""Runs vignettes/target.py end to end: the conditional power wins where the predictor
carries the skewness, and the powers agree where the errors do."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests import mpref

VIGNETTE = Path(__file__).parent.parent.parent / "vignettes" / "target.py"
pytestmark = mpref.vignette_needs(VIGNETTE.name)  # Kaggle's House Prices file (not bundled)


def test_target_vignette_runs_and_shows_when_the_conditional_power_wins(tmp_path):
    env = dict(os.environ, BOXCOXSTAT_FIGDIR=str(tmp_path), MPLBACKEND="Agg")
    out = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", str(VIGNETTE)],
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    m = re.search(r"conditional median ([\d.]+), marginal ([\d.]+), untransformed ([\d.]+)",
                  out.stdout)
    conditional, marginal, untransformed = map(float, m.groups())
    assert conditional < untransformed / 2 and conditional < marginal / 10
    assert "power given the logs:     -0.0673" in out.stdout  # MASS::boxcox's lambda
    assert (tmp_path / "target_skewed.png").stat().st_size > 1000
