"""Hostile input to the model entry points: each case of the hardening issue, pinned.

Every public entry point of the model families (robust fits, ``fit_joint``, ``lm`` and
``predict``, the toolbox functions, the classifier tuning entry and the command line) either
returns finite numbers or raises ``BoxCoxError`` naming the problem; nothing hangs and the
caller's data is never modified.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import boxcoxstat as bcs
from boxcoxstat.cli import main

ROOT = Path(__file__).resolve().parents[1]
X = np.random.default_rng(0).lognormal(size=50)
ROBUST = ("rewml", "carroll", "mtl")
FAMILIES = ("boxcox", "yeojohnson")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("BOXCOXSTAT_DEBUG", None)
    return env


def _cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "boxcoxstat", *args], input=stdin,
                          capture_output=True, env=_env(), timeout=120, check=False)


def _error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("boxcoxstat: error: "), err
    return err[0]


# --- robust estimators on degenerate data -------------------------------------------------


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("method", ROBUST)
@pytest.mark.parametrize("data", [
    [0.1, 0.1, 0.1, 0.101],                 # the case: lambda 5.5e12, weights all 0
    [1.0] * 20 + [1e6],                     # one huge outlier, the rest constant
    [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0],    # two values, the majority tied
], ids=["near-constant", "one-outlier", "two-values-tied"])
def test_robust_zero_mad_refused_fast_gh_hardening(data, method, family):
    """Half the values tied: a clear error naming the column, at once (was 1e12, or 27 s)."""
    before = list(data)
    start = time.perf_counter()
    with pytest.raises(bcs.BoxCoxError, match=r"column 'x'.*MAD = 0.*method='mle'"):
        bcs.fit(data, method=method, family=family)
    # the check runs before any search: milliseconds; 1 s leaves room for a loaded machine
    assert time.perf_counter() - start < 1.0
    assert data == before


@pytest.mark.parametrize("method", ["rewml", "carroll"])
def test_robust_two_balanced_values_give_log(method):
    """Two values, three each: every power gives the same two-point shape, and the Jacobian
    term's score vanishes at lambda = 0 exactly (d/dl [-n log|(2^l - 1)/l| + (n/2) l log 2]
    = 0 at l = 0), so the Box-Cox optimum is the log."""
    r = bcs.fit([1.0, 1.0, 1.0, 2.0, 2.0, 2.0], method=method)
    # Brent's tolerance in lambda is R's optimize default 2**-13 = 1.2e-4
    assert r.lmbda == pytest.approx(0.0, abs=2.0 ** -13)
    assert np.all(r.weights == 1.0)


@pytest.mark.parametrize("method", ROBUST)
def test_robust_too_few_values(method):
    with pytest.raises(bcs.BoxCoxError, match="at least 3"):
        bcs.fit([1.0, 2.0], method=method)


@pytest.mark.parametrize("method", ROBUST)
def test_robust_small_n_is_finite_and_fast(method):
    start = time.perf_counter()
    r = bcs.fit([1.0, 2.0, 3.0, 5.0, 8.0], method=method)
    assert np.isfinite(r.lmbda) and np.all(np.isin(r.weights, [0.0, 1.0]))
    assert time.perf_counter() - start < 5.0  # well under a second alone; shared machine


@pytest.mark.parametrize("method", ROBUST)
def test_robust_qqplot_near_float_max(method):
    """Values near 1e308: the plot is drawn in units of 1e308 (was `arange: cannot compute
    length` / an overflow in matplotlib's tick locator)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = np.array([1e308, 1e308, 1e308, 1e307, 5e307, 2e307])
    r = bcs.fit(x, method=method)
    axes = r.qqplot()
    try:
        axes[0].figure.canvas.draw()
        assert "1e+308" in axes[0].get_ylabel()
        assert np.all(np.isfinite(axes[0].get_ylim()))
        # the points drawn are the data in that unit: the largest is 1 (a division by a
        # power of ten: rounding only)
        drawn = np.concatenate([c.get_offsets()[:, 1] for c in axes[0].collections[1:]])
        assert np.max(drawn) == pytest.approx(1.0, rel=1e-12)
    finally:
        plt.close("all")


def test_sensitivity_and_simulation_refuse_non_finite_settings():
    with pytest.raises(bcs.BoxCoxError, match="lmbda must be a finite number"):
        bcs.sensitivity_curve("rewml", "boxcox", lmbda=np.inf)
    for k in (np.inf, -1.0):
        with pytest.raises(bcs.BoxCoxError, match="k .* finite and >= 0"):
            bcs.simulate(n=20, m=1, k=k, progress=False)


# --- fit_joint --------------------------------------------------------------------------------


@pytest.fixture
def joint_frame():
    rng = np.random.default_rng(10)
    return pd.DataFrame({"a": X, "b": rng.lognormal(size=50), "lin": 2.0 * X + 1.0,
                         "sq": 3.0 * X ** 2})


@pytest.mark.parametrize("alpha", [0, 2, -0.1, 1.0, np.nan])
def test_joint_conf_int_refuses_bad_alpha(joint_frame, alpha):
    r = bcs.fit_joint(joint_frame, ["a", "b"])
    with pytest.raises(bcs.BoxCoxError, match="alpha must lie strictly between 0 and 1"):
        r.conf_int(alpha)


@pytest.mark.parametrize("columns, match", [
    (["a", "lin"], r"column 'lin' is a linear function of column\(s\) \['a'\]"),
    (["lin", "b", "a"], r"column 'a' is a linear function of column\(s\) \['lin', 'b'\]"),
    (["a", "sq"], r"column 'sq' .* \(on the log scale: it is a power of them\)"),
])
def test_joint_function_of_another_column_refused(joint_frame, columns, match):
    """Was NaN standard errors with a RuntimeWarning, or numpy's 'Singular matrix'."""
    before = joint_frame.copy()
    with pytest.raises(bcs.BoxCoxError, match=match):
        bcs.fit_joint(joint_frame, columns)
    pd.testing.assert_frame_equal(joint_frame, before)


def test_joint_column_that_is_the_design_refused(joint_frame):
    frame = joint_frame.assign(g=np.repeat([1.0, 2.0], 25), h=np.repeat([3.0, 5.0], 25))
    with pytest.raises(bcs.BoxCoxError, match="column 'h' is a linear function of the design"):
        bcs.fit_joint(frame, ["h", "a"], design="~ g")


def test_joint_extreme_scale_still_fits(joint_frame):
    """The dependence check is scale free: columns near 1e-300 and 1e300 pass."""
    frame = joint_frame.assign(a=joint_frame["a"] * 1e-300, b=joint_frame["b"] * 1e300)
    r = bcs.fit_joint(frame, ["a", "b"])
    base = bcs.fit_joint(joint_frame, ["a", "b"])
    # Box-Cox is scale invariant; with the two columns at opposite ends of float64 the joint
    # solver agrees to 3.5e-8 (measured; 1e-8 with one column scaled, tests/joint)
    np.testing.assert_allclose(r.lmbda, base.lmbda, rtol=0, atol=1e-7)
    assert np.all(np.isfinite(r.bse))


# --- lm and predict --------------------------------------------------------------------------


def test_lm_all_missing_response():
    data = pd.DataFrame({"y": [np.nan] * 50, "x": X})
    with pytest.raises(bcs.BoxCoxError, match="no complete rows"):
        bcs.lm("y ~ x", data=data)


def test_lm_empty_frame():
    with pytest.raises(bcs.BoxCoxError, match="no rows"):
        bcs.lm("y ~ x", data=pd.DataFrame({"y": [], "x": []}))


@pytest.mark.parametrize("weights, match", [
    ("g", r"weights column 'g' is not numeric \(row 0 holds 'a'\)"),
    (["a"] * 50, r"weights is not numeric"),
    ("nope", r"weights column 'nope' is not in the data"),
])
def test_lm_bad_weights_named(weights, match):
    data = pd.DataFrame({"y": X, "x": np.arange(50.0), "g": ["a"] * 50})
    with pytest.raises(bcs.BoxCoxError, match=match):
        bcs.lm("y ~ x", data=data, weights=weights)


def test_lm_int64_response_with_na_is_missing():
    """pd.NA in a nullable Int64 column is a missing value (was 'boolean value of NA is
    ambiguous'): the fit equals the one on the complete rows as float64."""
    y = np.round(X * 100).astype(np.int64)
    data = pd.DataFrame({"y": pd.array(y, dtype="Int64"), "x": np.arange(50.0)})
    data.loc[3, "y"] = pd.NA
    before = data.copy()
    r = bcs.lm("y ~ x", data=data)
    plain = pd.DataFrame({"y": y.astype(float), "x": np.arange(50.0)}).drop(index=3)
    ref = bcs.lm("y ~ x", data=plain)
    assert r.nobs == 49
    # the same rows and values along the same path: equal to rounding
    assert r.power.lmbda == pytest.approx(ref.power.lmbda, abs=1e-12)
    pd.testing.assert_frame_equal(data, before)


def test_predict_string_predictor_named():
    data = pd.DataFrame({"y": X, "x": np.arange(50.0)})
    m = bcs.lm("y ~ x", data=data)
    with pytest.raises(bcs.BoxCoxError, match=r"column\(s\) \['x'\] are not numeric"):
        m.predict(pd.DataFrame({"x": ["a", "b"]}))


def test_predict_nullable_float_missing_gives_nan_row():
    data = pd.DataFrame({"y": X, "x": np.arange(50.0)})
    m = bcs.lm("y ~ x", data=data)
    new = pd.DataFrame({"x": pd.array([1.0, None], dtype="Float64")})
    pred = m.predict(new)
    assert np.isfinite(pred.iloc[0, 0]) and np.isnan(pred.iloc[1, 0])
    assert pred.iloc[0, 0] == pytest.approx(m.predict(pd.DataFrame({"x": [1.0]})).iloc[0, 0],
                                            rel=1e-12)  # the same row: equal to rounding


# --- toolbox: linearity, timeseries, graphics -----------------------------------------------


def test_toolbox_values_near_float_max_refused_or_scaled():
    big = np.r_[np.full(5, 1e308), np.linspace(1e306, 1e307, 15)]
    with pytest.raises(bcs.BoxCoxError, match="beyond 1e300"):
        bcs.symbox(big)
    with pytest.raises(bcs.BoxCoxError, match="beyond 1e300"):
        bcs.qqplot(big)
    with pytest.raises(bcs.BoxCoxError, match="beyond 1e300"):
        bcs.spread_level(big, np.repeat([1, 2, 3, 4], 5))
    # Guerrero's criterion is scale free: a series near 1e308 gives the lambda of the same
    # series scaled down (by a power of two, exact)
    rng = np.random.default_rng(5)
    series = np.exp(np.linspace(0, 1, 48) + 0.1 * rng.standard_normal(48))
    small = bcs.guerrero(series, 4).lmbda
    assert bcs.guerrero(series * 2.0 ** 1020, 4).lmbda == pytest.approx(small, abs=1e-9)


def test_inv_boxcox_refuses_bad_input():
    with pytest.raises(bcs.BoxCoxError, match="y must be numbers"):
        bcs.inv_boxcox(["a"], 0.5)
    with pytest.raises(bcs.BoxCoxError, match="lmbda must be a finite number"):
        bcs.inv_boxcox([1.0], float("nan"))


def test_box_tidwell_nullable_and_empty():
    rng = np.random.default_rng(1)
    x = rng.lognormal(size=40)
    data = pd.DataFrame({"y": 2 + np.log(x) + 0.1 * rng.standard_normal(40), "x": x})
    with pytest.raises(bcs.BoxCoxError, match="no rows"):
        bcs.box_tidwell("y ~ x", data.iloc[:0])
    with_na = data.assign(y=pd.array(data["y"], dtype="Float64"))
    with_na.loc[0, "y"] = pd.NA
    r = bcs.box_tidwell("y ~ x", with_na)
    ref = bcs.box_tidwell("y ~ x", data.drop(index=0))
    # the same rows along the same path; 1e-9 is the solver's accuracy
    assert r.lmbda.iloc[0] == pytest.approx(ref.lmbda.iloc[0], abs=1e-9)


# --- classify entry ---------------------------------------------------------------------------


def test_classify_entry_refuses_bad_input():
    from sklearn.neighbors import KNeighborsClassifier

    rng = np.random.default_rng(0)
    Xc = rng.normal(size=(12, 2))
    yc = np.r_[np.zeros(6), np.ones(6)]
    with pytest.raises(bcs.BoxCoxError, match="feature 'x0' has values beyond 1e300"):
        bcs.classify.tune(np.c_[Xc[:, 0] * 1e306 + 1e308, Xc[:, 1]], yc,
                          KNeighborsClassifier(1), cv=2, epochs=1)
    est = bcs.classify.BoxCoxTunedClassifier(KNeighborsClassifier(1), cv=2, epochs=1)
    bad = Xc.copy()
    bad[0, 0] = np.nan
    with pytest.raises(bcs.BoxCoxError, match="NaN"):
        est.fit(bad, yc)
    est.fit(Xc, yc)
    with pytest.raises(bcs.BoxCoxError, match="3 features"):
        est.predict(np.ones((1, 3)))


# --- the command line -------------------------------------------------------------------------


@pytest.fixture
def semicolon_csv(tmp_path):
    """The issue's file: ';' separates fields and ',' is the decimal mark."""
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"a": X, "b": rng.lognormal(size=50)})
    path = tmp_path / "semi.csv"
    frame.to_csv(path, sep=";", decimal=",", index=False)
    return path, frame


def test_cli_semicolon_decimal_comma_detected(semicolon_csv, capsys):
    """Was fitted as garbage with exit 0 (pandas made the first field the index)."""
    path, frame = semicolon_csv
    assert main(["fit", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    # scipy's own Box-Cox MLE (Brent on the log-likelihood, about 1e-5) is the reference
    for j, name in enumerate(["a", "b"]):
        assert doc["lmbda_used"][j] == pytest.approx(stats.boxcox(frame[name])[1], abs=1e-5)


def test_cli_explicit_wrong_separator_refused(semicolon_csv, capsys):
    path, _ = semicolon_csv
    assert main(["fit", str(path), "--sep", ","]) == 2
    assert "more fields than its header" in _error_line(capsys)


def test_cli_one_column_with_separator_in_name_hints_sep(tmp_path, capsys):
    path = tmp_path / "x.csv"
    path.write_text("a;b\n1;2\n3;4\n5;7\n", encoding="utf-8")
    assert main(["fit", str(path), "--sep", ","]) == 2
    line = _error_line(capsys)
    assert "one column named 'a;b'" in line and "--sep ';'" in line


def test_cli_decimal_comma_hint_when_dot_forced(semicolon_csv, capsys):
    path, _ = semicolon_csv
    assert main(["fit", str(path), "--decimal", "."]) == 2
    assert "--decimal ," in _error_line(capsys)


def test_cli_stdin_tab_separated():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"v": rng.lognormal(size=40)})
    text = frame.to_csv(sep="\t", index=False).encode()
    done = _cli("fit", "-", "--sep", "\\t", "--json", stdin=text)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["lmbda_used"][0] == pytest.approx(stats.boxcox(frame["v"])[1], abs=1e-5)


def test_cli_stdin_from_a_terminal_refused(monkeypatch, capsys):
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdin", Terminal(""))
    assert main(["fit", "-"]) == 2
    assert "nothing is piped in" in _error_line(capsys)


def test_cli_closed_pipe_is_quiet():
    """`| head` used to print 'error: Broken pipe' and exit 2."""
    proc = subprocess.Popen([sys.executable, "-m", "boxcoxstat", "datasets"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader goes away before the first write (the import takes ~1 s)
    err = proc.stderr.read()
    proc.stderr.close()
    assert proc.wait(timeout=120) in (0, 141)
    assert err == b""


def test_cli_broken_pipe_in_main(monkeypatch, capsys):
    class Closed(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", Closed())
    assert main(["datasets"]) == 141
    assert capsys.readouterr().err == ""


def test_cli_method_output_and_json(tmp_path, capsys):
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"id": np.arange(60), "v": rng.lognormal(size=60)})
    frame.loc[0, "v"] = 1e4  # an outlier for the robust fit
    src = tmp_path / "in.csv"
    frame.to_csv(src, index=False)
    out = tmp_path / "out.csv"
    assert main(["fit", str(src), "--columns", "v", "--method", "rewml", "--json",
                 "--output", str(out)]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)  # stdout holds the JSON document only
    assert doc["method"] == "rewml" and "out.csv" in captured.err
    written = pd.read_csv(out)
    assert list(written.columns) == ["id", "v"]
    np.testing.assert_array_equal(written["id"], frame["id"])
    lam = doc["lmbda_used"][0]
    # the transformed column is scipy's Box-Cox of the prestandardized values x / median
    # (RewML's Box-Cox scale, cellWise) at the fitted power; CSV text keeps 1e-12 relative
    expect = stats.boxcox(frame["v"] / np.median(frame["v"]), lam)
    np.testing.assert_allclose(written["v"], expect, rtol=1e-12, atol=1e-12)


def test_robust_far_outlier_in_four_points():
    """[1e-300, 1, 1, 1e150] (found by the hypothesis suite): RewML raised a raw IndexError
    (the overflowing transformed outlier made every Huber estimate NaN), Carroll ran lambda
    to -5.5e12, MTL reported a NaN objective and location."""
    x = np.array([1e-300, 1.0, 1.0, 1e150])
    with pytest.raises(bcs.BoxCoxError, match="criterion keeps decreasing"):
        bcs.fit(x, method="carroll", family="yeojohnson")
    mtl = bcs.fit(x, method="mtl", family="yeojohnson")
    rewml = bcs.fit(x, method="rewml", family="yeojohnson")
    for r in (mtl, rewml):
        assert np.all(np.isfinite([r.lmbda, r.objective, r.location, r.scale]))
        np.testing.assert_array_equal(r.weights, [1.0, 1.0, 1.0, 0.0])  # the far value out
    # both are then the ML power of the same three points, each found by Brent (2**-13)
    assert rewml.lmbda == pytest.approx(mtl.lmbda, abs=2.0 ** -12)


def test_robust_boxcox_range_beyond_float64_after_median_scaling():
    """Values from 1e-300 to 1e150 divided by their median underflow (was log(0))."""
    x = np.r_[np.full(9, 1e-300), np.full(9, 1e150)]
    with pytest.raises(bcs.BoxCoxError, match="prestandardize='paper'"):
        bcs.fit(x, method="rewml")
    r = bcs.fit(x, method="rewml", prestandardize="paper")
    # two equal halves on the log scale: the log (lambda 0) up to Brent's 2**-13
    assert r.lmbda == pytest.approx(0.0, abs=2.0 ** -13)


def test_lm_design_values_whose_squares_overflow():
    data = pd.DataFrame({"y": [1.0] * 7 + [2.0], "x1": [1e-300] * 7 + [1e200]})
    with pytest.raises(bcs.BoxCoxError, match="design column 'x1'.*rescale"):
        bcs.lm("y ~ x1", data=data)


def test_joint_without_a_maximum_refused():
    """Yeo-Johnson columns c1 = sqrt(c0) with four tied rows: lambda drifted to (-78, -174)
    with a RuntimeWarning; now a clear error."""
    frame = pd.DataFrame({"c0": [1.0, 1.0, 1.0, 1.0, 2.0, 3.0],
                          "c1": [1.0, 1.0, 1.0, 1.0, 2.0 ** 0.5, 3.0 ** 0.5]})
    with pytest.raises(bcs.BoxCoxError, match="no maximum"):
        bcs.fit_joint(frame, ["c0", "c1"], family="yeojohnson")


def test_predict_new_data_missing_a_predictor_named():
    """A predictor absent from the new data used to be looked up in the caller's namespace
    and reported as patsy's 'Number of rows mismatch'."""
    data = pd.DataFrame({"y": X, "x": np.arange(50.0)})
    m = bcs.lm("y ~ x", data=data)
    x = np.arange(50.0)  # noqa: F841 - the name patsy finds outside the data
    with pytest.raises(bcs.BoxCoxError, match="lack a variable of the model"):
        m.predict(pd.DataFrame({"z": [1.0]}))


# ----------------------------------------------------------------------------- tiny scales
def _tiny_frame(scale):
    rng = np.random.default_rng(51)
    x = rng.normal(size=80)
    y = (np.exp(0.3 * x + 0.4 * rng.normal(size=80)) - 0.6) * scale
    return pd.DataFrame({"y": y, "x": x, "g": rng.integers(0, 3, 80)})


@pytest.mark.parametrize("formula", ["y ~ 1", "y ~ x", "y ~ x + C(g)"])
def test_lm_yeojohnson_response_on_a_tiny_scale(formula):
    """A Yeo-Johnson response of order 1e-150 was refused ("differ only beyond the 12th
    significant digit of 1 + |x|"). The response's profile now works in a unit of the data's
    size: its lambda is that of the same response at 1e-32 times 1e118 (lambda grows like the
    inverse scale: exactly, since both fits take log1p of values whose 1 + y is 1 to 1e-32;
    the 1e-32 fit is itself the mpmath-checked computation's neighbour,
    tests/test_hostile_core.py), and "y ~ 1" equals bcs.fit."""
    small = bcs.lm(formula, _tiny_frame(1e-150), family="yeojohnson")
    ref = bcs.lm(formula, _tiny_frame(1e-32), family="yeojohnson")
    # 1e-12: the solver's 1e-12 relative tolerance; log1p(y) = y (1 - y/2) differs by 1e-32
    assert small.lmbda * 1e-118 == pytest.approx(ref.lmbda, rel=1e-12)
    # the model on the transformed response: R-squared is scale free (1e-9: least squares
    # on values of order 1e-150 and 1e-32, each exact to about 1e-13 relative)
    assert small.rsquared == pytest.approx(ref.rsquared, rel=1e-9)
    assert "e+149" in str(small.summary())
    if formula == "y ~ 1":
        assert small.lmbda == pytest.approx(
            bcs.fit(_tiny_frame(1e-150)["y"], family="yeojohnson").lmbda, rel=1e-14)


def test_lm_yeojohnson_response_below_1e_minus_150_is_refused_by_name():
    """Below a range of 1e-150 the power is still found, but the fitted model's residual sum
    of squares (about n times the squared range) would underflow float64."""
    with pytest.raises(bcs.BoxCoxError, match="response .y. spans only .*rescale it"):
        bcs.lm("y ~ x", _tiny_frame(1e-200), family="yeojohnson")


def test_lm_weights_of_1e300_and_weights_spanning_1e400():
    """Weights of 1e300 overflowed the weighted residuals' sums of squares (numpy's 'overflow
    encountered in multiply', found by the hypothesis suite); the response profile now
    measures sqrt(w) in a power of two near its largest. Equal weights leave lambda as
    unweighted (the weighted RSS is a multiple of the unweighted one: the reference), and
    weights spanning more than 1e100 are refused by name."""
    frame = _tiny_frame(1.0).assign(y=lambda d: d["y"] + 1.0, w=1e300)
    heavy = bcs.lm("y ~ x", frame, weights="w")
    plain = bcs.lm("y ~ x", frame)
    assert heavy.lmbda == pytest.approx(plain.lmbda, rel=1e-12)  # the solver's tolerance
    frame.loc[3, "w"] = 1e-100
    with pytest.raises(bcs.BoxCoxError, match=r"weights span 1e-100 \(row 3\) to 1e\+300"):
        bcs.lm("y ~ x", frame, weights="w")


def _tiny_joint(scale):
    rng = np.random.default_rng(52)
    n = 120
    g = rng.integers(0, 3, n)
    a = rng.normal(size=n) + 0.3 * g  # mixed signs: the two-sided (general) path
    b = rng.exponential(size=n)  # one-signed: the absorbed-side path
    c = 0.1 - 0.3 * rng.lognormal(size=n)  # mostly negative: both sides, exponent 2 - lambda
    d = -rng.gamma(3.0, size=n)  # negative: one side, absorbed, exponent 2 - lambda
    return pd.DataFrame({"a": a * scale, "b": b * scale, "c": c * scale, "d": d * scale,
                         "g": g})


@pytest.mark.parametrize("scale", [1e-32, 1e-100, 1e-140])
@pytest.mark.parametrize("design", [None, "~ C(g)"])
def test_fit_joint_yeojohnson_on_a_tiny_scale(scale, design):
    """Yeo-Johnson columns of order 1e-32 to 1e-140 were refused ("rescale the data"); the
    joint solver now works in lambda times a unit of each column's size. Reference: for
    s -> 0 the Yeo-Johnson transform of s x at lambda = mu / s is s (e^{mu x} - 1) / mu on
    both sides of 0 (log1p(s x) = s x to 1e-32 relative), the Box-Cox transform of e^x at mu,
    and the Jacobians differ by a constant; so lambda * s, the standard errors * s and the
    profile interval * s equal the Box-Cox joint fit of exp(x), an unscaled problem on the
    Box-Cox path (checked against R's car, tests/test_joint*.py). Tolerances: the Newton
    solver's 1e-11 relative step and the profile interval's 1e-12 root tolerance."""
    tiny = _tiny_joint(scale)
    base = _tiny_joint(1.0)
    expd = base.assign(**{c: np.exp(base[c]) for c in "abcd"})
    r = bcs.fit_joint(tiny, list("abcd"), design=design, family="yeojohnson")
    ref = bcs.fit_joint(expd, list("abcd"), design=design, family="boxcox")
    np.testing.assert_allclose(r.lmbda * scale, ref.lmbda, rtol=1e-10)
    np.testing.assert_allclose(r.bse * scale, ref.bse, rtol=1e-9)
    np.testing.assert_allclose(r.conf_int().to_numpy() * scale, ref.conf_int().to_numpy(),
                               rtol=1e-9)
    # LR statistics are scale free (the NLL differs by a constant): to 1e-9 of their size
    assert r.test(r.lmbda / 2).statistic == pytest.approx(
        ref.test(ref.lmbda / 2).statistic, rel=1e-8)
    assert f"e{int(np.log10(1 / scale)) - 2:+d}" in str(r.summary())  # exponent form


def test_fit_joint_yeojohnson_below_1e_minus_150_is_refused_by_name():
    """As for bcs.lm: below a range of 1e-150 the joint model's sums of squares underflow."""
    with pytest.raises(bcs.BoxCoxError, match="column 'b' spans only .*rescale it"):
        bcs.fit_joint(_tiny_joint(1.0).assign(b=lambda f: f["b"] * 1e-200), ["a", "b"],
                      family="yeojohnson")


def test_fit_joint_yeojohnson_one_tiny_column_among_ordinary_ones():
    """Each column has its own unit: a column of order 1e-100 next to ordinary ones gives the
    same joint fit as that column at 1e-32 (lambda times the scale, and the other powers,
    within 1e-10: both are the exp(x) limit to 1e-32), and a different one from the column
    at scale 1 (the check has power)."""
    base = _tiny_joint(1.0)
    fits = {s: bcs.fit_joint(base.assign(b=base["b"] * s), list("abcd"), family="yeojohnson")
            for s in (1e-32, 1e-100, 1.0)}
    a, b = fits[1e-100], fits[1e-32]
    assert a.lmbda["b"] * 1e-100 == pytest.approx(b.lmbda["b"] * 1e-32, rel=1e-10)
    np.testing.assert_allclose(a.lmbda[["a", "c", "d"]], b.lmbda[["a", "c", "d"]], rtol=1e-10)
    np.testing.assert_allclose(a.bse[["a", "c", "d"]], b.bse[["a", "c", "d"]], rtol=1e-9)
    assert abs(fits[1.0].lmbda["a"] - b.lmbda["a"]) > 1e-4
