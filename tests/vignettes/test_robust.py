"""The robust vignette runs end to end and writes its figures."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

VIGNETTE = Path(__file__).parent.parent.parent / "vignettes" / "robust.py"


def test_robust_vignette_runs(tmp_path):
    env = dict(os.environ, BOXCOXSTAT_FIGDIR=str(tmp_path), BOXCOXSTAT_VIGNETTE_M="4",
               MPLBACKEND="Agg")
    out = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", str(VIGNETTE)],
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "MPG: ML lambda = -0.11, RewML lambda = 0.84" in out.stdout
    assert "Weight: ML lambda = 0.83, RewML lambda = 0.09" in out.stdout
    assert "RewML SC is exactly 0 for |z| >= 4: True" in out.stdout
    # MacroPCA as cellWise (its MacroPCA(k = 0) share, tests/robust/test_macropca.py)
    assert "MacroPCA: 4 components explain 95.8% of the variance" in out.stdout
    # the MTL readings: the untrimmed Jacobian jumps in the centre (Figure 5, bottom)
    assert "MTL95, Jacobian over all: max |SC| for |log z| < 3 51.0" in out.stdout
    # all of cellWise's data_glass: the 13 wavelengths without a robust scale are reported
    assert "RewML on all 750 wavelengths: 737 fitted, 13 left out:" in out.stdout
    names = {p.name for p in tmp_path.glob("*.png")}
    assert {"robust_topgear_mpg.png", "robust_topgear_weight.png", "robust_glass_heatmap.png",
            "robust_dposs_area.png", "robust_sensitivity.png", "robust_sim_fig6.png",
            "robust_sim_fig7.png", "robust_sim_fig8.png", "robust_dposs_scores.png",
            "robust_dposs_outlier_map.png", "robust_dposs_residual_map.png"} <= names
