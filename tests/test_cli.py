"""Tests for boxcoxstat.cli: the commands, their files, and one-line errors."""

from __future__ import annotations

import io
import json
import os
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


# ------------------------------------------------------------------ inputs that slipped (gh27)
def _write(tmp_path, text, name="data.csv"):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


# line 1 header; 4 holds a NUL byte; 6 is blank; 7-8 one record with a quoted line break;
# 10 holds y = 0
_LINES = ('x,y,label\n1.5,2,a\n2.5,3,b\n3\x00.5,4,a\n4.5,5,b\n\n6,7,"multi\nline"\n'
          ',8,c\n9,0,d\n')


def test_a_corrupt_cell_is_named_by_line_gh27(tmp_path, capsys):
    """main fitted only y (x, read as text, silently left out) and exited 0."""
    path = _write(tmp_path, _LINES)
    assert main(["fit", str(path)]) == 2
    line = _one_error_line(capsys)
    assert "column 'x'" in line and "line 4 holds '3\\x00.5'" in line
    assert "--columns" in line


def test_a_corrupt_cell_with_decimal_commas_is_named_gh27(tmp_path, capsys):
    """The same with ';' and decimal commas (the other cells are '1,5' text then)."""
    path = _write(tmp_path, "x;y\n1,5;2\n2,5;3\n3,5?;4\n4,5;5\n")
    assert main(["fit", str(path), "--decimal", ","]) == 2
    assert "column 'x'" in (line := _one_error_line(capsys)) and "line 4 holds '3,5?'" in line


def test_a_blank_cell_is_missing_not_text_gh27(tmp_path, capsys):
    """A cell of spaces is missing, as an empty one is (main dropped the column)."""
    path = _write(tmp_path, "x,y\n1.5,2\n   ,3\n2.5,4\n3.5,5\n")
    assert main(["fit", str(path), "--json"]) == 0
    result = boxcoxstat.PowerTransformResult.from_json(capsys.readouterr().out)
    assert list(result.names) == ["x", "y"] and list(result.n_missing) == [1, 0]


def test_rows_are_named_by_file_line_and_advice_is_cli_gh27(tmp_path, capsys):
    """y = 0 is on line 10 (a blank line and a two-line record before it); main said
    "first at row 6 ... use family='yeojohnson'"."""
    path = _write(tmp_path, _LINES)
    assert main(["fit", str(path), "--columns", "y"]) == 2
    line = _one_error_line(capsys)
    assert "first at line 10 (0.0)" in line
    assert "use --family yeojohnson or shift the data" in line and "family='" not in line


@pytest.mark.parametrize(("given", "family"), [("yj", "yeojohnson"), ("bc", "boxcox"),
                                                ("Yeo-Johnson", "yeojohnson"),
                                                ("bcnpower", "bcnpower")])
def test_family_names_as_the_api_takes_them_gh27(small_csv, capsys, given, family):
    """main's --family took boxcox, yeojohnson and auto only."""
    assert main(["fit", str(small_csv), "--columns", "y", "--family", given, "--json"]) == 0
    result = boxcoxstat.PowerTransformResult.from_json(capsys.readouterr().out)
    expected = boxcoxstat.fit(pd.read_csv(small_csv)[["y"]], family=family)
    assert result._families == (family,)
    # the API on the same CSV read by pandas: equal up to the JSON round trip of floats
    assert result.lmbda["y"] == pytest.approx(expected.lmbda["y"], rel=1e-9)


def test_bcnpower_with_a_robust_method_is_refused_in_cli_terms(small_csv, capsys):
    assert main(["fit", str(small_csv), "--family", "bcnpower", "--method", "rewml"]) == 2
    assert "--family bcnpower needs --method mle" in _one_error_line(capsys)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_is_refused_not_waited_on_gh27(tmp_path):
    """main blocked for ever opening a FIFO with no writer (the timeout fails it)."""
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "boxcoxstat", "fit", str(fifo)],
        capture_output=True, text=True, timeout=60, env=_env_with_this_checkout(),
    )  # fmt: skip
    assert done.returncode == 2
    assert "is a named pipe (FIFO), not a regular file" in done.stderr
    assert "| boxcoxstat fit -" in done.stderr


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="needs /dev/null")
def test_a_device_is_refused_gh27(capsys):
    assert main(["fit", "/dev/null"]) == 2
    assert "is a character device, not a regular file" in _one_error_line(capsys)


def test_a_folder_is_refused(tmp_path, capsys):
    assert main(["fit", str(tmp_path)]) == 2
    assert "is a folder" in _one_error_line(capsys)


def _env_with_this_checkout() -> dict[str, str]:
    """The environment with this checkout first on the path (as the suite runs)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(boxcoxstat.__file__)))
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        [root, *filter(None, [os.environ.get("PYTHONPATH")])])}


def test_overflow_advice_names_the_cli_option_gh27(tmp_path, capsys):
    """Table 1-like data (Xu & Cormode 2025): the MLE's transform overflows. main advised
    "refit with ymax=" (no such option); the CLI now has --ymax and says so."""
    path = _write(tmp_path, "x\n" + "0.1\n0.1\n0.1\n0.101\n" * 3)
    out = tmp_path / "out.csv"
    assert main(["fit", str(path), "--output", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    # the MLE also loses the data's resolution: one warning, in CLI terms, then the error
    assert len(err) == 2 and err[0].startswith("boxcoxstat: warning: ")
    assert "--lmbda safe" in err[0] and "bcs.fit" not in err[0]
    line = err[1]
    assert line.startswith("boxcoxstat: error: ")
    assert "refit with --ymax (for example --ymax 1e300)" in line and "ymax=" not in line
    assert main(["fit", str(path), "--output", str(out), "--lmbda", "safe"]) == 0
    capsys.readouterr()
    assert main(["fit", str(path), "--output", str(out), "--ymax", "1e300"]) == 0
    written = pd.read_csv(out)["x"].abs()
    assert written.max() <= 1e300 * (1 + 1e-12)  # the bound, up to the CSV's 17 digits


@pytest.mark.parametrize(
    ("text", "lines"),
    [('x\n1\n""\n2\n0\n', [2, 3, 4, 5]),           # a quoted empty field is a row
     ("x,y\r\n1,2\r\n\r\n3,4\r\n", [2, 4]),         # Windows line ends, a blank line
     ('x\n1\n  \n"a\nb"\n3\n', [2, 4, 6]),          # spaces only: skipped, as pandas does
     ('x,y\n1,"2\n\n3"\n5,6\n', [2, 5]),            # a blank line inside a quoted field
     ("x\n1\r2\r3\n", [2, 3, 4])],                  # old Mac line ends
)
def test_records_are_numbered_by_their_first_line(text, lines):
    """Line numbers counted by hand in each text; pandas must find as many rows."""
    from boxcoxstat.cli import _record_lines

    assert len(pd.read_csv(io.StringIO(text), index_col=False)) == len(lines)
    assert _record_lines(text, ",", len(lines)) == lines


def test_rows_fall_back_to_data_row_numbers(tmp_path, monkeypatch, capsys):
    """When the records cannot be matched to pandas' rows, messages count data rows."""
    import boxcoxstat.cli as cli

    monkeypatch.setattr(cli, "_record_lines", lambda text, sep, n: None)
    path = _write(tmp_path, "x\n1\n2\n0\n3\n")
    assert main(["fit", str(path)]) == 2
    assert "first at data row 3 (0.0)" in _one_error_line(capsys)


def test_lmbda_option_fixes_the_power_or_takes_the_safe_one(tmp_path, capsys):
    """--lmbda 0 is the log (the report says the power is fixed); a value that is not a
    number or 'safe' is a usage error naming it."""
    path = _write(tmp_path, "x\n1\n2\n4\n8\n16\n3\n")
    assert main(["fit", str(path), "--lmbda", "0", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["lmbda_used"] == [0.0] and doc["fixed"] is True
    assert main(["fit", str(path), "--lmbda", "half"]) == 2
    assert "expected a number or 'safe', got 'half'" in capsys.readouterr().err
