"""Tests for boxcoxstat.cli: the commands, their files, and one-line errors."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import boxcoxstat
from boxcoxstat.cli import main

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
DATASET_NAMES = ["topgear", "blood_transfusion", "wdbc", "ecoli", "house_prices_train",
                 "highway1", "trees", "glass_spectra", "dposs_j"]
DATASET_NAMES += ["sonar", "pima", "glass_identification", "wine", "liver_bupa"]  # classify
DATASET_NAMES += ["mroz", "prestige", "airpassengers"]  # the toolbox vignette


def _one_error_line(capsys) -> str:
    """Assert stderr holds exactly one line starting ``boxcoxstat: error:``; return it."""
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("boxcoxstat: error: ")
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture
def small_csv(tmp_path):
    rng = np.random.default_rng(7)
    frame = pd.DataFrame(
        {
            "x": np.exp(rng.normal(size=60)),  # log-normal: lambda near 0
            "y": rng.normal(10.0, 1.0, size=60),
            "z": np.r_[0.0, rng.uniform(1.0, 2.0, size=59)],  # one zero
            "label": ["a", "b"] * 30,
        }
    )
    path = tmp_path / "small.csv"
    frame.to_csv(path, index=False)
    return path


def test_datasets_lists_names(capsys):
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    lines = out.strip().splitlines()
    assert len(lines) == len(DATASET_NAMES)
    for name in DATASET_NAMES:
        assert any(line.startswith(name) for line in lines)
    assert "297 x 32" in out
    assert "1460 x 81" in out
    house = next(line for line in lines if line.startswith("house_prices_train"))
    assert "[not bundled: load('house_prices_train', path=...) reads a copy]" in house
    assert sum("not bundled" in line for line in lines) == 1


def test_demo_writes_plots_and_summary(tmp_path, capsys):
    out_dir = tmp_path / "demo"
    assert main(["demo", "--out", str(out_dir)]) == 0
    out = capsys.readouterr().out
    assert "MPG" in out and "Weight" in out
    assert str(out_dir.resolve()) in out
    for stem in ["profile_MPG", "profile_Weight", "qq_MPG", "qq_Weight"]:
        data = (out_dir / f"{stem}.png").read_bytes()
        assert data.startswith(PNG_MAGIC)
        assert len(data) > 1024
    summary = (out_dir / "summary.txt").read_text(encoding="utf-8")
    assert "MPG" in summary and "Weight" in summary
    assert summary.strip() in out  # the same report is printed and saved
    # ML estimates of Raymaekers & Rousseeuw (2021): MPG about -0.11, Weight about 0.83
    assert "-0.1078" in summary
    assert "0.8260" in summary
    # RewML (paper: MPG 0.84, Weight 0.09) names the outlying cars
    assert "0.8360" in summary and "0.0903" in summary
    assert "BMW i3, Chevrolet Volt, Vauxhall Ampera" in summary
    for stem in ["rewml_qq_MPG", "rewml_qq_Weight"]:
        assert (out_dir / f"{stem}.png").read_bytes().startswith(PNG_MAGIC)


def test_demo_default_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["demo"]) == 0
    assert (tmp_path / "boxcoxstat-demo" / "qq_Weight.png").is_file()


def test_fit_small_csv(small_csv, tmp_path, capsys):
    plot_dir = tmp_path / "plots"
    code = main(
        ["fit", str(small_csv), "--columns", "x", "y", "--family", "boxcox",
         "--plot", str(plot_dir)]
    )  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    assert "x" in out and "boxcox" in out
    lmbda = boxcoxstat.fit(pd.read_csv(small_csv)[["x", "y"]], family="boxcox").lmbda
    assert f"{lmbda['x']:.4f}" in out
    for name in ["profile_x.png", "qq_x.png", "profile_y.png", "qq_y.png"]:
        assert (plot_dir / name).read_bytes().startswith(PNG_MAGIC)


def test_fit_alpha_prints_matching_interval(small_csv, capsys):
    assert main(["fit", str(small_csv), "--columns", "x", "--alpha", "0.1"]) == 0
    out = capsys.readouterr().out
    assert "90% profile likelihood" in out and "[0.05" in out and "0.95]" in out
    ci = boxcoxstat.fit(pd.read_csv(small_csv)[["x"]]).conf_int(alpha=0.1)
    assert f"{ci.iloc[0, 0]:.4f}" in out and f"{ci.iloc[0, 1]:.4f}" in out


def test_fit_yeojohnson_accepts_zero(small_csv, capsys):
    assert main(["fit", str(small_csv), "--columns", "z", "--family", "yeojohnson"]) == 0
    assert "yeojohnson" in capsys.readouterr().out


def test_error_missing_file(tmp_path, capsys):
    assert main(["fit", str(tmp_path / "nope.csv"), "--columns", "x"]) == 2
    line = _one_error_line(capsys)
    assert "not found" in line and "nope.csv" in line


def test_error_unknown_column_lists_columns(small_csv, capsys):
    assert main(["fit", str(small_csv), "--columns", "x", "speed"]) == 2
    line = _one_error_line(capsys)
    assert "'speed'" in line
    assert "x, y, z, label" in line


def test_error_boxcox_on_zero(small_csv, capsys):
    assert main(["fit", str(small_csv), "--columns", "z", "--family", "boxcox"]) == 2
    line = _one_error_line(capsys)
    assert "'z'" in line
    assert "positive" in line


def test_error_non_numeric_column(small_csv, capsys):
    assert main(["fit", str(small_csv), "--columns", "label"]) == 2
    assert "'label'" in _one_error_line(capsys)


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["bogus"],
        ["fit"],
        ["fit", "f.csv", "--family", "cube"],
        ["fit", "f.csv", "--alpha", "2"],
    ],
)
def test_usage_errors_are_one_line(argv, capsys):
    assert main(argv) == 2
    _one_error_line(capsys)


def test_help_returns_zero(capsys):
    assert main(["--help"]) == 0
    assert "demo" in capsys.readouterr().out


def test_internal_error_is_one_line(small_csv, monkeypatch, capsys):
    def broken(*args, **kwargs):
        raise RuntimeError("solver exploded")

    monkeypatch.setattr(boxcoxstat, "fit", broken)
    monkeypatch.delenv("BOXCOXSTAT_DEBUG", raising=False)
    assert main(["fit", str(small_csv), "--columns", "x"]) == 1
    line = _one_error_line(capsys)
    assert "RuntimeError" in line and "solver exploded" in line
    monkeypatch.setenv("BOXCOXSTAT_DEBUG", "1")
    with pytest.raises(RuntimeError, match="solver exploded"):
        main(["fit", str(small_csv), "--columns", "x"])


def test_warnings_are_one_line(small_csv, monkeypatch, capsys):
    real_fit = boxcoxstat.fit

    def noisy(*args, **kwargs):
        warnings.warn("lambda hit\nthe boundary", UserWarning, stacklevel=2)
        return real_fit(*args, **kwargs)

    monkeypatch.setattr(boxcoxstat, "fit", noisy)
    assert main(["fit", str(small_csv), "--columns", "x"]) == 0
    assert capsys.readouterr().err.strip() == "boxcoxstat: warning: lambda hit the boundary"


def test_python_dash_m(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "boxcoxstat", "datasets"],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "topgear" in done.stdout and "house_prices_train" in done.stdout
    failed = subprocess.run(
        [sys.executable, "-m", "boxcoxstat", "fit", "missing.csv"],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert failed.returncode == 2
    assert failed.stderr.strip() == "boxcoxstat: error: file not found: missing.csv"
