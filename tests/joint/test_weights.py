"""``fit_joint(..., weights=)``: the multivariate lm(weights=) likelihood, against R
(tests/reference/weights_bounds_compare_reference.R: that likelihood maximised by optim) and
the one-column agreement with ``fit(weights=)``."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs

REF = json.loads((Path(__file__).resolve().parents[1] / "reference"
                  / "weights_bounds_compare_reference.json").read_text())


def test_joint_weighted_equals_r():
    ref = REF["joint"]["trees_volume_girth"]
    n = len(ref["w"])
    Y = np.array(ref["Y"]).reshape(-1, n).T  # R writes a matrix column by column
    df = pd.DataFrame(Y, columns=["a", "b"])
    df["w"] = ref["w"]
    r = bcs.fit_joint(df, ["a", "b"], weights="w")
    # optim (BFGS, numerical gradient) finds lambda to ~1e-7; the maximum's value is flat
    # there, so llf agrees to 1e-9
    assert r.lmbda.to_numpy() == pytest.approx(ref["lambda"], abs=1e-6)
    assert r.llf == pytest.approx(ref["llf"], abs=1e-9)
    # car centres the weighted residuals: a different objective, 2e-4 away here
    assert r.lmbda.to_numpy() == pytest.approx(ref["car_lambda"], abs=1e-3)
    same = bcs.fit_joint(df[["a", "b"]], weights=df["w"].to_numpy())
    assert same.lmbda.to_numpy() == pytest.approx(r.lmbda.to_numpy(), abs=1e-12)


def test_one_column_joint_is_the_weighted_fit_and_lm():
    ref = REF["weighted"]["lognormal_60"]
    y, w = np.array(ref["y"]), np.array(ref["w"])
    df = pd.DataFrame({"y": y, "g": np.repeat(["a", "b", "c"], 20)})
    j = bcs.fit_joint(df, ["y"], weights=w)
    f = bcs.fit(y, weights=w)
    assert j.lmbda.iloc[0] == pytest.approx(f.lmbda, abs=1e-12)
    assert j.llf == pytest.approx(float(f.llf), abs=1e-10)
    assert j.conf_int().to_numpy() == pytest.approx(f.conf_int().to_numpy(), abs=1e-10)
    jg = bcs.fit_joint(df, ["y"], design="~ g", weights=w)
    m = bcs.lm("y ~ g", df, weights=w)
    assert jg.lmbda.iloc[0] == pytest.approx(m.lmbda, abs=1e-12)
    assert jg.llf == pytest.approx(m.llf, abs=1e-10)


def test_zero_weights_leave_rows_out_and_bad_weights_are_named():
    ref = REF["joint"]["trees_volume_girth"]
    n = len(ref["w"])
    Y = np.array(ref["Y"]).reshape(-1, n).T
    w = np.array(ref["w"])
    df = pd.DataFrame(Y, columns=["a", "b"])
    base = bcs.fit_joint(df, weights=w)
    more = pd.concat([df, pd.DataFrame({"a": [1e4], "b": [1e-3]})], ignore_index=True)
    r = bcs.fit_joint(more, weights=np.r_[w, 0.0])
    assert r.lmbda.to_numpy() == pytest.approx(base.lmbda.to_numpy(), abs=1e-10)
    assert r.nobs == n and r.n_missing == 0
    with pytest.raises(bcs.BoxCoxError, match="row 1 has -1"):
        bcs.fit_joint(df, weights=np.r_[1.0, -1.0, w[2:]])
    with pytest.raises(bcs.BoxCoxError, match="length 3"):
        bcs.fit_joint(df, weights=[1, 2, 3])
    with pytest.raises(bcs.BoxCoxError, match="not in the data"):
        bcs.fit_joint(df, weights="nope")
    with pytest.raises(bcs.BoxCoxError, match="bcnpower"):
        bcs.fit_joint(df, family="bcnpower", weights=w)
    back = bcs.JointTransformResult.from_json(base.to_json())
    assert back.llf == pytest.approx(base.llf, abs=0)
