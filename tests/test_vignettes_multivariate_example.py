"""Run vignettes/multivariate_example.py end to end and check what it prints."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

VIGNETTE = Path(__file__).parent.parent / "vignettes" / "multivariate_example.py"


def test_vignette_runs_and_prints_cars_numbers(tmp_path):
    env = dict(os.environ, MPLBACKEND="Agg")  # the vignette draws no figures yet
    out = subprocess.run([sys.executable, str(VIGNETTE)], capture_output=True, text=True,
                         env=env, cwd=tmp_path, timeout=120, check=True).stdout
    # car's documented example: powerTransform(cbind(len, adt, trks, sigs1) ~ htype, Highway1)
    for number in ("0.1451", "0.2396", "-0.7336", "-0.2959", "13.1339", "140.5853"):
        assert number in out
    assert "Yeo-Johnson transformations to multinormality" in out
