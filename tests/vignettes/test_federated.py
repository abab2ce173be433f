"""Run vignettes/federated.py end to end (quick sweep) and check what it prints."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests import mpref

SCRIPT = Path(__file__).parent.parent.parent / "vignettes" / "federated.py"
pytestmark = mpref.vignette_needs(SCRIPT.name)  # Kaggle's House Prices file (not bundled)


def test_vignette_federated(tmp_path):
    env = {**os.environ, "MPLBACKEND": "Agg", "BCS_FIGURE_DIR": str(tmp_path),
           "BCS_VIGNETTE_QUICK": "1"}
    out = subprocess.run([sys.executable, str(SCRIPT)], env=env, capture_output=True,
                         text=True, timeout=1800)  # a guard against a hang; ~1 min idle
    assert out.returncode == 0, out.stderr[-3000:]
    text = out.stdout
    # every feature/family row: federated equals in memory to <= 1e-10 relative
    rows = re.findall(r"^(\w+)\s+(boxcox|yeojohnson)\s+\S+\s+\S+\s+(\S+)\s+(\d+)", text, re.M)
    assert len(rows) == 17
    assert all(float(rel) <= 1e-10 and int(r) <= 30 for _, _, rel, r in rows)
    assert "Fitted without pooling the data: 100 clients" in text
    assert "Warning" not in out.stderr
    for name in ("fig1", "fig3", "fig4", "fig5", "fig8_14", "fig11", "fig12", "fig13",
                 "fig14", "fig15"):
        assert (tmp_path / f"federated_{name}.png").stat().st_size > 5000
    # Figures 8 + 12: all seven ExpSearch failures of Table 3, each far from lambda*
    fig12 = re.findall(r"^Figure 12 (\w+)\s+(\w+)\s+lambda\* = (\S+)\s+ExpSearch = (\S+)",
                       text, re.M)
    assert len(fig12) == 7
    assert all(abs(float(e) - float(s)) > 1e-3 * abs(float(s)) for _, _, s, e in fig12)
    # Figure 13: all eight linear-domain failures, each overflowing somewhere in its window
    fig13 = re.findall(r"^Figure 13 (\w+)\s+(\w+)\s+linear-domain NLL inf/NaN at (\d+)%",
                       text, re.M)
    assert len(fig13) == 8 and all(int(p) > 0 for *_, p in fig13)
    # Figure 14 on the paper code's 12 panels and windows: the naive NLL spikes on the house
    # years under Box-Cox near lambda = 0
    fig14 = dict(re.findall(r"^Figure 14 (\w+ +(?:BC|YJ))  naive NLL off at (\d+)%",
                            out.stdout, flags=re.MULTILINE))
    assert len(fig14) == 12
    assert int(fig14[next(k for k in fig14 if k.startswith("YrSold") and k.endswith("BC"))]) > 20
    # and the wider window around each lambda* on Table 3's nine features
    assert len(re.findall(r"^Table 3 features \w+\s+naive NLL off at \d+%", text, re.M)) == 9
    # Figure 4: keeping the constant loses the NLL below lambda = -14.5
    m = re.search(r"keeping the constant, the NLL is finite at (\d+)%", text)
    assert m is not None and int(m.group(1)) < 100
