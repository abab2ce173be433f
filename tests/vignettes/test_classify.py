"""Run vignettes/classify.py: a quick configuration by default, the README's one as slow."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent.parent.parent / "vignettes" / "classify.py"


def _run(tmp_path, **env):
    full = {**os.environ, "MPLBACKEND": "Agg", "BCS_FIGURE_DIR": str(tmp_path), **env}
    out = subprocess.run([sys.executable, str(SCRIPT)], env=full, capture_output=True,
                         text=True, timeout=1800)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_vignette_quick(tmp_path):
    text = _run(tmp_path, BCS_VIGNETTE_QUICK="1")
    assert "improvement (ours)" in text and "Linf fisher (ours)" in text
    assert "Avg" in text
    assert (tmp_path / "classify_heatmap.png").stat().st_size > 1000
    assert (tmp_path / "classify_curves.png").stat().st_size > 1000


@pytest.mark.slow
def test_vignette_readme_configuration(tmp_path):
    """The configuration whose tables are in the README (about 10 minutes on one core)."""
    text = _run(tmp_path)
    assert "sonar" in text and "wdbc" in text and "liver_bupa" in text
