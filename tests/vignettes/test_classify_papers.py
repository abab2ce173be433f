"""Run vignettes/classify_blum.py and vignettes/classify_bicego.py: a quick configuration
by default; the configurations whose numbers are in the README are slow."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

VIGNETTES = Path(__file__).parent.parent.parent / "vignettes"


def _run(script, tmp_path, **env):
    full = {**os.environ, "MPLBACKEND": "Agg", "BCS_FIGURE_DIR": str(tmp_path), **env}
    out = subprocess.run([sys.executable, str(VIGNETTES / script)], env=full,
                         capture_output=True, text=True, timeout=36000)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_blum_quick(tmp_path):
    """Tables 5 and 2 in miniature, the paper's numbers printed beside ours."""
    text = _run("classify_blum.py", tmp_path, BCS_VIGNETTE_QUICK="1")
    assert "Table 5 (sonar, features 8 and 41" in text
    assert "3.481" in text and "57.390" in text  # Table 5: Bayesian Basic, base (paper)
    assert "Table 2" in text and "85.9" in text  # random dataset, Bayesian before (paper)
    assert (tmp_path / "blum_heatmaps_random.png").stat().st_size > 1000


def test_bicego_quick(tmp_path):
    text = _run("classify_bicego.py", tmp_path, BCS_VIGNETTE_QUICK="1")
    for title in ("Table 3", "Table 4", "Table 5", "Table 6", "Table 7", "Table 8(a)",
                  "Table 8(b)"):
        assert title in text
    assert "0.836" in text and "0.394" in text  # Table 5, wine (paper)
    # Figure 3(d): the Lipschitz constant at the corners, 5/31 and 80/31 by hand
    assert "from 0.161 at (1, 1) to 2.581 at (2, 2)" in text
    assert (tmp_path / "bicego_deformation.png").stat().st_size > 1000


def _ours_and_paper(text, title):
    """Rows 'Base accuracy' and 'Basic' of a printed Blum table: (ours, paper) pairs."""
    block = text.split(title)[1].split("\n\n")[0]
    rows = {}
    for line in block.splitlines():
        for name in ("Base accuracy", "Basic"):
            if line.startswith(name):
                vals = [float(v) for v in line[len(name):].split()]
                rows[name] = list(zip(vals[::2], vals[1::2], strict=True))
    return rows


@pytest.mark.slow
def test_blum_table6_matches_the_paper(tmp_path):
    """Table 6 (wdbc), Basic, KNN, naive Bayes and SVC on the paper's 50 folds with its
    printed rule: base accuracy and improvement as printed (about 7 minutes of CPU)."""
    text = _run("classify_blum.py", tmp_path, BCS_BLUM_PARTS="table6",
                BCS_SETTINGS="Basic", BCS_CLASSIFIERS="KNN,Bayesian,SVC")
    rows = _ours_and_paper(text, "Table 6 (wdbc, 30 features, 10-fold x 5")
    assert len(rows["Base accuracy"]) == len(rows["Basic"]) == 3
    for ours, paper in rows["Base accuracy"] + rows["Basic"]:
        # the paper prints three decimals and so does the vignette; one test prediction
        # changed in any fold would move a mean by 0.035 points
        assert ours == pytest.approx(paper, abs=1e-3)


@pytest.mark.slow
def test_bicego_committed_configuration(tmp_path):
    """Tables 3-5 on the eight datasets (about 30 minutes on one core)."""
    text = _run("classify_bicego.py", tmp_path, BCS_BICEGO_PARTS="curves")
    assert "spirals" in text and "Table 5" in text


@pytest.mark.slow
def test_bicego_table5_wine_matches_the_paper(tmp_path):
    """Table 5, wine: with the re-scaling into [1, 2] after the transform (their section 2)
    the L-infinity distances of the ML and Fisher curves from the accuracy curve are the
    paper's 0.836 and 0.349, and PCML is, as in the paper, far closer to accuracy than ML
    (about 100 s of CPU)."""
    text = _run("classify_bicego.py", tmp_path, BCS_BICEGO_PARTS="curves",
                BCS_DATASETS="wine")
    table = text.split("Table 5:")[1]
    row = re.search(r"^wine\s+(.*)$", table, flags=re.MULTILINE).group(1).split()
    ml, ml_paper, pcml, pcml_paper, fisher, fisher_paper = map(float, row)
    assert (ml_paper, pcml_paper, fisher_paper) == (0.836, 0.394, 0.349)
    # 0.02: the accuracy curve averages seven scikit-learn classifiers standing in for
    # PRTools' eight (no Parzen) over 30 random half splits that are not theirs (ours:
    # 0.821 and 0.365 on this machine)
    assert ml == pytest.approx(0.836, abs=0.02)
    assert fisher == pytest.approx(0.349, abs=0.02)
    # PCML (ours 0.360) is not claimed to agree within 0.02: it moves with qdc's unstated
    # regularisation (0.382 with an absolute ridge of 1e-4, 0.360 with PRTools' relative
    # S = 1e-4); the paper's finding is that it follows accuracy far better than ML
    assert ml - pcml > 0.3 and ml_paper - pcml_paper > 0.3
