"""Run vignettes/federated.py end to end (quick sweep) and check what it prints."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).parent.parent.parent / "vignettes" / "federated.py"


def test_vignette_federated(tmp_path):
    env = {**os.environ, "MPLBACKEND": "Agg", "BCS_FIGURE_DIR": str(tmp_path),
           "BCS_VIGNETTE_QUICK": "1"}
    out = subprocess.run([sys.executable, str(SCRIPT)], env=env, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    text = out.stdout
    # every feature/family row: federated equals in memory to <= 1e-10 relative
    rows = re.findall(r"^(\w+)\s+(boxcox|yeojohnson)\s+\S+\s+\S+\s+(\S+)\s+(\d+)", text, re.M)
    assert len(rows) == 17
    assert all(float(rel) <= 1e-10 and int(r) <= 30 for _, _, rel, r in rows)
    assert "Fitted without pooling the data: 100 clients" in text
    assert "Warning" not in out.stderr
    for name in ("fig5", "fig3", "fig8_14", "fig15"):
        assert (tmp_path / f"federated_{name}.png").stat().st_size > 5000
