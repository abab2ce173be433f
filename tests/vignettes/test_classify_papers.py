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
    assert (tmp_path / "blum_figure2.png").stat().st_size > 1000
    for n in (3, 4, 5):  # Figures 3-5: the schematic and the two-feature subsets
        assert (tmp_path / f"blum_figure{n}.png").stat().st_size > 1000


def test_bicego_quick(tmp_path):
    text = _run("classify_bicego.py", tmp_path, BCS_VIGNETTE_QUICK="1")
    for title in ("Table 3", "Table 4", "Table 5", "Table 6", "Table 7", "Table 8(a)",
                  "Table 8(b)"):
        assert title in text
    assert "0.836" in text and "0.394" in text  # Table 5, wine (paper)
    # Figure 3(d): the Lipschitz constant at the corners, 5/31 and 80/31 by hand
    assert "from 0.161 at (1, 1) to 2.581 at (2, 2)" in text
    assert (tmp_path / "bicego_deformation.png").stat().st_size > 1000
    for name in ("figure1", "figure2", "figure3abc", "curves"):  # Figures 1, 2, 3(a-c), 4-6
        assert (tmp_path / f"bicego_{name}.png").stat().st_size > 1000


def test_bicego_breast_csv_is_the_documented_file():
    """vignettes/data/breast_biopsy.csv (written by breast_biopsy.R from MASS's biopsy) is
    the file its README describes: the md5 stated there, 683 rows of nine features scored
    1-10 and the class. UCI's description of the original Wisconsin data gives 699 rows, 458
    benign and 241 malignant, 16 of them without bare nuclei (in MASS's biopsy 14 benign
    and 2 malignant, which the R script checks)."""
    import hashlib

    import pandas as pd

    data = VIGNETTES / "data"
    stated = re.search(r"md5 `([0-9a-f]{32})`", (data / "README.md").read_text()).group(1)
    raw = (data / "breast_biopsy.csv").read_bytes()
    assert hashlib.md5(raw).hexdigest() == stated
    df = pd.read_csv(data / "breast_biopsy.csv")
    assert list(df.columns) == [f"V{j}" for j in range(1, 10)] + ["class"]
    assert df.shape == (683, 10) and not df.isna().any().any()
    assert df["class"].value_counts().to_dict() == {"benign": 458 - 14, "malignant": 241 - 2}
    features = df.drop(columns="class")
    assert (features.dtypes == "int64").all()
    assert features.min().min() == 1 and features.max().max() == 10


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


def _bicego(tmp_path, **env):
    """classify_bicego.py with ``env``; no cache, so every number is computed afresh."""
    return _run("classify_bicego.py", tmp_path, BCS_BICEGO_CACHE="", **env)


def _table_row(text, title, name):
    """The values printed on dataset ``name``'s row of the table titled ``title``."""
    block = text.split(title)[1].split("\n\n")[0]
    line = re.search(rf"^{re.escape(name)}\s+(.*)$", block, flags=re.MULTILINE)
    return line.group(1).split()


@pytest.fixture(scope="module")
def bicego_curves(tmp_path_factory):
    """Tables 3-5 on wine, liver, diabetes and breast, the paper's protocol in full: 30 half
    splits, lambda from -5 to 5 in steps of 0.1, seven classifiers (about 7 minutes of
    CPU, breast 63 s of it)."""
    return _bicego(tmp_path_factory.mktemp("bicego_curves"), BCS_BICEGO_PARTS="curves",
                   BCS_DATASETS="wine,liver,diabetes,breast")


@pytest.mark.slow
def test_bicego_table3_matches_the_paper(bicego_curves):
    """Table 3: the relative improvement of the best spherical lambda over lambda = 1,
    averaged over classifiers, is the paper's on wine, liver, diabetes and breast."""
    for name in ("wine", "liver", "diabetes", "breast"):
        row = _table_row(bicego_curves, "Table 3:", name)
        ours, se, paper8, paper7 = map(float, row[-4:])
        assert paper8 == {"wine": 1.89, "liver": 11.07, "diabetes": 2.11, "breast": 1.25}[name]
        # the paper's average is over eight PRTools classifiers, ours over seven stand-ins
        # (no Parzen), so ours is compared with the paper's mean of the same seven; three
        # standard errors of our average: the 30 random half splits are not theirs
        assert abs(ours - paper7) <= 3 * se, (name, ours, paper7, se)


@pytest.mark.slow
def test_bicego_table4_matches_the_paper(bicego_curves):
    """Table 4: the lambda best for accuracy lies far from the most Gaussian (spherical ML)
    lambda, by the paper's distance on wine, liver and diabetes."""
    for name in ("wine", "liver", "diabetes"):
        row = _table_row(bicego_curves, "Table 4:", name)
        ours, paper = float(row[0]), float(row[2])
        assert paper == {"wine": 3.21, "liver": 1.69, "diabetes": 2.32}[name]
        # 0.5: the printed standard deviation over the 210 split x classifier values is
        # 1.4-1.9, so over 30 splits the mean moves by about 0.3 from one set of random
        # splits to another. Where several lambdas tie for the best accuracy the vignette
        # takes the smallest (the paper does not say); wine has many ties, and its
        # agreement rests on that rule (2.04 with the largest tied lambda, see README)
        assert ours == pytest.approx(paper, abs=0.5)


@pytest.mark.slow
def test_bicego_table5_matches_the_paper(bicego_curves):
    """Table 5: with the re-scaling into [1, 2] after the transform (their section 2) the
    L-infinity distances of the criterion curves from the accuracy curve are the paper's:
    on wine ML and Fisher, on liver and diabetes all three; on wine, PCML is, as in the
    paper, far closer to accuracy than ML."""
    ml, ml_paper, pcml, pcml_paper, fisher, fisher_paper = map(
        float, _table_row(bicego_curves, "Table 5:", "wine"))
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
    # 0.04: the README's bound for agreement in Table 5, for the same reasons as on wine
    # (stand-in classifiers, other random splits); ours: liver 0.339, 0.320 and 0.078,
    # diabetes 0.943, 0.943 and 0.067
    for name, paper in (("liver", (0.377, 0.356, 0.054)), ("diabetes", (0.921, 0.921, 0.076))):
        row = tuple(map(float, _table_row(bicego_curves, "Table 5:", name)))
        assert row[1::2] == paper
        for got, want in zip(row[::2], paper, strict=True):
            assert got == pytest.approx(want, abs=0.04)
    # breast (the 683 x 9 original Wisconsin data, vignettes/data/breast_biopsy.csv): all
    # three distances within 0.01 of the paper's, ours 0.279, 0.312 and 0.267 against
    # 0.277, 0.316 and 0.263 on this machine (within 0.004). 0.01, not the 0.04 above: the
    # claim is this closer agreement; the splits are seeded, so only other library versions
    # of the stand-in classifiers (SVC, logistic regression) could move our numbers
    row = tuple(map(float, _table_row(bicego_curves, "Table 5:", "breast")))
    assert row[1::2] == (0.277, 0.316, 0.263)
    for got, want in zip(row[::2], row[1::2], strict=True):
        assert got == pytest.approx(want, abs=0.01)


@pytest.fixture(scope="module")
def bicego_auto(tmp_path_factory):
    """Tables 6-8 on wine, liver and breast: the eight (criterion, mode) pairs optimised by
    Nelder-Mead on each of the 30 training halves (about 4.5 minutes of CPU, breast 108 s
    of it)."""
    return _bicego(tmp_path_factory.mktemp("bicego_auto"), BCS_BICEGO_PARTS="auto",
                   BCS_DATASETS="wine,liver,breast")


@pytest.mark.slow
def test_bicego_table6_matches_the_paper(bicego_auto):
    """Table 6: liver's favourite criterion is the paper's (diagonal ML) and gains about
    as much; on wine the paper's favourite (spherical Fisher) gains what the paper says."""
    row = _table_row(bicego_auto, "Table 6:", "liver")
    assert row[:2] == ["ML", "Diag"] and row[4:6] == ["ML", "Diag"]
    ours, se, paper = float(row[2]), float(row[3]), float(row[6])
    assert paper == 10.873
    # four standard errors of our mean over 30 random half splits (ours 12.73, se 0.56,
    # 3.3 standard errors above the paper): the splits are not the paper's, our seven
    # classifiers stand in for its eight, and the paper gives no error for its number
    assert abs(ours - paper) <= 4 * se
    row = _table_row(bicego_auto, "Table 6:", "wine")
    assert row[4:6] == ["Fisher", "Spher"]
    se, paper, ours_at_paper = float(row[3]), float(row[6]), float(row[7])
    assert paper == 0.667
    # three standard errors of the favourite's mean (ours 0.546 against 0.667); the
    # favourite itself is not claimed: on wine five pairs lie within 0.16 of each other,
    # about 1.5 standard errors
    assert abs(ours_at_paper - paper) <= 3 * se
    row = _table_row(bicego_auto, "Table 6:", "breast")
    assert row[4:6] == ["ML", "Diag"]
    se, paper, ours_at_paper = float(row[3]), float(row[6]), float(row[7])
    assert paper == 0.78
    # three standard errors, as on wine (ours 0.634, se 0.096); our favourite is the
    # paper's here too, but not claimed: ML Spher gains 0.599, a third of a standard error
    # less
    assert abs(ours_at_paper - paper) <= 3 * se


@pytest.mark.slow
def test_bicego_table8_matches_the_paper(bicego_auto):
    """Table 8(a): the best spherical and the best diagonal criterion per split gain what
    the paper reports on wine, and the best spherical one on liver; Table 8(b): the
    diagonal transform gains more than the spherical one for most classifiers."""
    s, s_se, s_paper, d, d_se, d_paper = map(float, _table_row(bicego_auto, "Table 8(a)",
                                                                "wine"))
    assert (s_paper, d_paper) == (1.381, 1.686)
    # three standard errors of our mean over 30 random half splits (ours 1.391 and 1.805)
    assert abs(s - s_paper) <= 3 * s_se and abs(d - d_paper) <= 3 * d_se
    s, s_se, s_paper, d, d_se, d_paper = map(float, _table_row(bicego_auto, "Table 8(a)",
                                                                "liver"))
    assert (s_paper, d_paper) == (8.783, 12.095)
    assert abs(s - s_paper) <= 3 * s_se
    # diagonal: ours 14.87 against 12.10 (4 standard errors) is not claimed; as in the
    # paper, the diagonal transform gains more than the spherical one
    assert d > s and d_paper > s_paper
    # breast: both columns within three standard errors (ours 0.775 and 0.958, se 0.079
    # and 0.076, against 0.922 and 1.000)
    s, s_se, s_paper, d, d_se, d_paper = map(float, _table_row(bicego_auto, "Table 8(a)",
                                                                "breast"))
    assert (s_paper, d_paper) == (0.922, 1.0)
    assert abs(s - s_paper) <= 3 * s_se and abs(d - d_paper) <= 3 * d_se
    # Table 8(b): "now the diagonal criteria are in most of the cases better than the
    # spherical ones" (their section 4); over wine, liver and breast, ours for 7 of 7
    # classifiers (6 of 7 over wine and liver)
    block = bicego_auto.split("Table 8(b)")[1].split("\n\n")[0].splitlines()[2:]
    wins = [float(v[3]) > float(v[1]) for v in (line.split() for line in block)]
    assert len(wins) == 7 and sum(wins) >= 4


@pytest.mark.slow
def test_bicego_sonar_tables_6_and_8_match_the_paper(tmp_path):
    """Sonar on all 30 splits: in Table 6 the paper's favourite (diagonal ML) gains what the
    paper reports, and in Table 8(a) so does the best spherical criterion, with the
    diagonal one gaining more, as in the paper (joint Nelder-Mead searches over 60
    lambdas: about 27 minutes of CPU)."""
    text = _bicego(tmp_path, BCS_BICEGO_PARTS="auto", BCS_DATASETS="sonar")
    row = _table_row(text, "Table 6:", "sonar")
    assert row[4:6] == ["ML", "Diag"]
    se, paper, ours_at_paper = float(row[3]), float(row[6]), float(row[7])
    assert paper == 3.311
    # two standard errors of the favourite's mean over 30 random half splits that are not
    # the paper's (ours 2.939 against 3.311, se 0.552); the favourite itself is not
    # claimed: the diagonal 1-NN margin gains 3.821 here
    assert abs(ours_at_paper - paper) <= 2 * se
    s, s_se, s_paper, d, d_se, d_paper = map(float, _table_row(text, "Table 8(a)", "sonar"))
    assert (s_paper, d_paper) == (2.991, 6.457)
    # two standard errors (ours 3.171, se 0.350); the diagonal column (ours 8.169, se
    # 0.476, 3.6 standard errors above the paper) is not claimed to agree, only to beat
    # the spherical one as the paper's does
    assert abs(s - s_paper) <= 2 * s_se
    assert d > s and d_paper > s_paper


@pytest.mark.slow
def test_bicego_cache_gives_the_same_tables(tmp_path):
    """BCS_BICEGO_CACHE: a second run reads each dataset's saved results and prints the same
    tables as the run that computed them (quick configuration, about 20 s)."""
    cache = tmp_path / "cache"

    def tables(text):  # without the lines that report times
        return [line for line in text.splitlines() if not line.rstrip().endswith(" s")]

    first = _run("classify_bicego.py", tmp_path, BCS_VIGNETTE_QUICK="1",
                 BCS_BICEGO_CACHE=str(cache))
    saved = sorted(p.name for p in cache.iterdir())
    assert saved == ["auto_spirals.npz", "curves_spirals.npz", "curves_wine.npz"]
    second = _run("classify_bicego.py", tmp_path, BCS_VIGNETTE_QUICK="1",
                  BCS_BICEGO_CACHE=str(cache))
    assert "Table 8(b)" in second and tables(second) == tables(first)


def _zerovar_row(text, name, what):
    """The zero-variance table's row ``what`` of dataset ``name``: gain, se, paper, accuracy
    at lambda = 1, splits with a zero variance, gain there, gain elsewhere, se elsewhere."""
    block = text.split("Zero within-class variances")[1].split("\n\n")[0]
    rows = block.splitlines()[2:]
    start = next(i for i, line in enumerate(rows) if line.startswith(name + " "))
    line = next(line for line in rows[start:] if f" {what} " in line)
    return [float(v) for v in line.split()[-8:]]


@pytest.mark.slow
def test_bicego_ecoli_zero_variance_explains_the_gap(tmp_path):
    """Ecoli's udc and qdc gain more than in the paper only on the splits whose training
    half has a feature constant within a class (`lip`, when its one object of 1.0 is in
    it); on the other splits they gain what the paper reports. PRTools' own treatment of a
    zero variance (pseudo-inverse, log-determinant of eig + 1e-16) gains more still, and a
    variance floor leaves wine and liver unchanged (about 5 minutes of CPU)."""
    text = _bicego(tmp_path, BCS_BICEGO_PARTS="zerovar", BCS_DATASETS="ecoli,wine,liver")
    udc = _zerovar_row(text, "ecoli", "udc (stand-in)")
    qdc = _zerovar_row(text, "ecoli", "qdc (stand-in)")
    assert (udc[2], qdc[2]) == (1.13, 0.58)  # the paper's Table 3
    assert udc[4] == qdc[4] == 17  # splits with the lip = 1.0 object in the training half
    for gain, se, paper, _, _, there, elsewhere, se_elsewhere in (udc, qdc):
        # ours 2.76 and 1.95 over all splits, 4.32 and 2.94 on the 17
        assert gain - 2 * se > paper and there > gain
        # three standard errors of the mean over the other 13 random half splits (ours
        # 0.72, se 0.17, and 0.66, se 0.21): the splits are not the paper's
        assert abs(elsewhere - paper) <= 3 * se_elsewhere
    # written from PRTools' documentation: further from the paper, not nearer
    assert _zerovar_row(text, "ecoli", "udc as PRTools")[0] > udc[0] + 2 * udc[1]
    assert _zerovar_row(text, "ecoli", "qdc as PRTools, S = 0")[0] > qdc[0] + 2 * qdc[1]
    floored = _zerovar_row(text, "ecoli", "udc, floor 0.01")
    assert floored[0] < udc[0] - 2 * udc[1]
    for name in ("wine", "liver"):
        # no feature is constant within a class there, so a floor of 0.01 x the pooled
        # variance never binds: the same accuracies, to the printed digit
        base = _zerovar_row(text, name, "udc (stand-in)")
        assert base[4] == 0
        assert _zerovar_row(text, name, "udc, floor 0.01")[:4] == base[:4]
