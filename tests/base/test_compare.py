"""``bcs.compare``: models on the untransformed response's likelihood, against R.

Reference: tests/reference/weights_bounds_compare_reference.R (logLik of lm plus the Jacobian,
e.g. ``logLik(lm(log(y) ~ x)) - sum(log(y))``, AIC, BIC, LR tests), JSON committed beside it.
"""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs

REF = json.loads((Path(__file__).resolve().parents[1] / "reference"
                  / "weights_bounds_compare_reference.json").read_text())["compare"]


def _models(case):
    ref = REF[case]
    n = len(ref["y"])  # R writes a matrix as its column-major values
    X = np.array(ref["X"]).reshape(-1, n).T
    Xs = np.array(ref["Xsmall"]).reshape(-1, n).T
    df = pd.DataFrame(X[:, 1:], columns=[f"x{j}" for j in range(1, X.shape[1])])
    df["y"] = ref["y"]
    big = "y ~ " + " + ".join(f"x{j}" for j in range(1, X.shape[1]))
    # the smaller design's column in the big one (trees: log(Girth) = x2, Prestige: x1)
    small_col = [j for j in range(1, X.shape[1]) if np.allclose(X[:, j], Xs[:, 1])][0]
    return ref, {
        "untransformed": bcs.lm(big, df, lmbda=1),
        "log": bcs.lm(big, df, lmbda=0),
        "estimated": bcs.lm(big, df),
        "smaller_estimated": bcs.lm(f"y ~ x{small_col}", df),
        "column": bcs.fit(df["y"]),
    }


@pytest.mark.parametrize("case", ["trees", "prestige"])
def test_compare_equals_r_loglik_aic_bic(case):
    ref, models = _models(case)
    table = bcs.compare(**models)
    assert list(table.index) == list(models)
    for name, row in ref["rows"].items():
        got = table.loc[name]
        # R's logLik of lm (+ Jacobian), at R's tight lambda where estimated: 1e-8 (the brief)
        assert got["llf"] == pytest.approx(row["llf"], abs=1e-8)
        assert got["k"] == int(row["k"])
        assert got["aic"] == pytest.approx(row["aic"], abs=2e-8)
        assert got["bic"] == pytest.approx(row["bic"], abs=2e-8)
        assert bool(got["estimated"]) is row["estimated"]
    # LR tests between consecutive nested rows: log < estimated (df 1), smaller design <
    # estimated (df 1), column (~ 1) < smaller design (df 1); raw vs log: not nested (same k)
    assert table.loc["log", "vs"] == "" and np.isnan(table.loc["log", "LR"])
    assert table.loc["estimated", "vs"] == "log"
    assert table.loc["estimated", "LR"] == pytest.approx(ref["lr"]["log_vs_estimated"],
                                                         abs=2e-8)
    assert table.loc["smaller_estimated", "LR"] == pytest.approx(
        ref["lr"]["smaller_vs_estimated"], abs=2e-8)
    assert table.loc["column", "LR"] == pytest.approx(ref["lr"]["column_vs_smaller"], abs=2e-8)
    assert table.loc["column", "df"] == 1


def test_untransformed_is_nested_in_the_estimated_power():
    ref, models = _models("trees")
    table = bcs.compare(raw=models["untransformed"], est=models["estimated"])
    assert table.loc["est", "LR"] == pytest.approx(ref["lr"]["untransformed_vs_estimated"],
                                                   abs=2e-8)
    assert table.loc["est", "p"] < 1e-10


def test_not_nested_pairs_get_no_test_and_different_responses_are_noted():
    _, trees = _models("trees")
    _, prestige = _models("prestige")
    table = bcs.compare(a=trees["estimated"], b=prestige["log"])
    assert np.isnan(table.loc["b", "LR"])
    assert "different numbers of observations" in str(table.summary())


def test_summary_renders_text_html_latex():
    _, models = _models("trees")
    s = bcs.compare(**models).summary()
    assert "Model comparison" in str(s) and "smaller_estimated" in str(s)
    assert "<table" in s._repr_html_()
    assert "smaller\\_estimated" in s.as_latex()


def test_multi_column_fit_gives_a_row_per_column_and_weights_nest():
    ref = REF["trees"]
    y = np.array(ref["y"])
    df = pd.DataFrame({"a": y, "b": y[::-1]})
    table = bcs.compare(two=bcs.fit(df))
    assert list(table.index) == ["two[a]", "two[b]"]
    w = np.linspace(1, 2, y.size)
    t2 = bcs.compare(fixed=bcs.fit(y, weights=w).at(0), est=bcs.fit(y, weights=w))
    assert t2.loc["est", "vs"] == "fixed"
    t3 = bcs.compare(fixed=bcs.fit(y).at(0), est=bcs.fit(y, weights=w))
    assert np.isnan(t3.loc["est", "LR"])  # different weights: not nested


def test_bad_input():
    with pytest.raises(bcs.BoxCoxError, match="at least one model"):
        bcs.compare()
    with pytest.raises(bcs.BoxCoxError, match="no 'llf'"):
        bcs.compare(object())
    _, models = _models("trees")
    with pytest.raises(bcs.BoxCoxError, match="same name"):
        bcs.compare(models["log"], **{"model 1": models["log"]})


def test_protocol_object_without_nesting():
    class Custom:
        llf, df_model_llf, nobs = -10.0, 3, 20

    table = bcs.compare(c=Custom())
    assert table.loc["c", "aic"] == pytest.approx(26.0, abs=1e-12)  # -2(-10) + 2*3
    assert table.loc["c", "bic"] == pytest.approx(20 + np.log(20) * 3, abs=1e-12)
