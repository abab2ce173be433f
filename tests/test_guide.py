"""Every page of the user guide (``docs/guide/*.py``) runs as a script, on bundled data only,
in a few seconds (issue 29, item 3). The docs' gallery executes the same scripts."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests import mpref

GUIDE = mpref.REPO / "docs" / "guide"
PAGES = sorted(GUIDE.glob("[0-9][0-9]_*.py"))


def test_guide_pages_are_numbered_in_the_users_order_gh29():
    names = [p.stem for p in PAGES]
    assert names[0] == "01_first_transformation"
    assert [n[:2] for n in names] == [f"{k:02d}" for k in range(1, len(names) + 1)
                                      if k != 5]  # 05 is vignettes/toolbox.py, reused


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_guide_page_runs_gh29(page, tmp_path):
    """Measured: 2-3 s of CPU each (import included)."""
    env = {**os.environ, "MPLBACKEND": "Agg",
           "PYTHONPATH": os.pathsep.join([str(mpref.REPO), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, str(page)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "Traceback" not in out.stderr
