"""``lm(bounds=)``, weighted ``lm`` and ``BoxCoxRegressor.fit(sample_weight=)`` against R
(tests/reference/weights_bounds_compare_reference.R: car's objective maximised tightly), and
the nested agreement of weighted ``lm(y ~ 1)`` with ``fit(weights=)``."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs

REF = json.loads((Path(__file__).resolve().parents[1] / "reference"
                  / "weights_bounds_compare_reference.json").read_text())


def _frame(ref):
    n = len(ref["y"])
    X = np.array(ref["X"]).reshape(-1, n).T  # R writes a matrix column by column
    df = pd.DataFrame(X[:, 1:], columns=[f"x{j}" for j in range(1, X.shape[1])])
    df["y"] = ref["y"]
    return df, "y ~ " + " + ".join(df.columns[:-1])


def test_lm_bounds_equals_r():
    ref = REF["bounded"]["trees_regression"]
    df, formula = _frame(ref)
    m = bcs.lm(formula, df, bounds=(ref["lo"], ref["hi"]))
    assert m.lmbda == ref["lambda"]  # the bound itself
    assert m.power._lmbda_free[0] == pytest.approx(ref["free"], abs=1e-10)  # uniroot 1e-15
    assert m.llf == pytest.approx(ref["llf"], abs=1e-9)  # logLik(lm) + Jacobian
    lo, hi = m.power.conf_int().iloc[0]
    assert (lo, hi) == pytest.approx((ref["lower"], ref["upper"]), abs=1e-10)
    assert m.power.test(1).statistic == pytest.approx(ref["tests"]["lr1"], abs=1e-9)
    assert "bound active" in str(m.power.summary())
    # the regression is refitted at the bounded power
    assert m.params.to_numpy() == pytest.approx(
        bcs.lm(formula, df, lmbda=ref["lambda"]).params.to_numpy(), rel=1e-12)


def test_lm_bounds_refused_with_a_fixed_power():
    df, formula = _frame(REF["bounded"]["trees_regression"])
    with pytest.raises(bcs.BoxCoxError, match="nothing to bound"):
        bcs.lm(formula, df, lmbda=0, bounds=(0, 1))
    with pytest.raises(bcs.BoxCoxError, match="lower end must be below"):
        bcs.lm(formula, df, bounds=(1, 0))


def test_weighted_lm_and_regressor_equal_r():
    ref = REF["weighted"]["trees_regression"]
    df, formula = _frame(ref)
    w = np.array(ref["w"])
    t = ref["tight"]
    m = bcs.lm(formula, df, weights=w)
    assert m.lmbda == pytest.approx(t["lambda"], abs=1e-10)  # uniroot of the score, 1e-15
    assert m.llf == pytest.approx(t["llf"], abs=1e-9)
    assert m.power.conf_int().iloc[0].tolist() == pytest.approx([t["lower"], t["upper"]],
                                                                abs=1e-10)
    assert m.lmbda == pytest.approx(ref["car"]["lambda"], abs=1e-3)  # car: optim's tolerance
    pytest.importorskip("sklearn")
    reg = bcs.BoxCoxRegressor().fit(df[["x1"]], df["y"], sample_weight=w)
    assert reg.lmbda_ == pytest.approx(t["lambda"], abs=1e-10)
    assert float(reg.power_._llf_values[0]) == pytest.approx(t["llf"], abs=1e-9)
    # the regressor is the weighted least-squares fit of the transformed response
    z = bcs.families.transform(df["y"].to_numpy(), reg.lmbda_, "boxcox")
    X1 = np.column_stack([np.ones(len(z)), df["x1"]])
    sw = np.sqrt(w)
    beta = np.linalg.lstsq(X1 * sw[:, None], z * sw, rcond=None)[0]
    assert [reg.regressor_.intercept_, reg.regressor_.coef_[0]] == pytest.approx(beta,
                                                                                 rel=1e-9)


def test_regressor_bad_and_zero_weights():
    pytest.importorskip("sklearn")
    ref = REF["weighted"]["trees_regression"]
    df, _ = _frame(ref)
    w = np.array(ref["w"])
    with pytest.raises(bcs.BoxCoxError, match="row 2 has -1"):
        bcs.BoxCoxRegressor().fit(df[["x1"]], df["y"], sample_weight=np.r_[1, 1, -1, w[3:]])
    # a row of weight 0 is left out of the power's likelihood
    big = pd.concat([df, pd.DataFrame({"x1": [3.0], "y": [500.0]})], ignore_index=True)
    a = bcs.BoxCoxRegressor().fit(big[["x1"]], big["y"], sample_weight=np.r_[w, 0.0])
    b = bcs.BoxCoxRegressor().fit(df[["x1"]], df["y"], sample_weight=w)
    assert a.lmbda_ == pytest.approx(b.lmbda_, abs=1e-12)


def test_weighted_lm_intercept_only_is_weighted_fit():
    ref = REF["weighted"]["lognormal_60"]
    y, w = np.array(ref["y"]), np.array(ref["w"])
    m = bcs.lm("y ~ 1", pd.DataFrame({"y": y}), weights=w)
    r = bcs.fit(y, weights=w)
    assert r.lmbda == pytest.approx(m.lmbda, abs=1e-12)
    assert float(r.llf) == pytest.approx(m.llf, abs=1e-10)
    assert r.conf_int().to_numpy() == pytest.approx(m.power.conf_int().to_numpy(), abs=1e-10)
    assert float(r.bse.iloc[0]) == pytest.approx(float(m.power.bse.iloc[0]), rel=1e-8)


def test_bounded_bcnpower_is_the_maximum_on_the_interval():
    """bcnPower's profile (gamma maximised out) is not known to be convex: the solver compares
    the clipped estimate with both ends; a fine grid of the profile on [lo, hi] agrees."""
    ref = REF["bounded"]["trees_regression"]
    df, formula = _frame(ref)
    free = bcs.lm(formula, df, family="bcnpower")
    lo, hi = free.lmbda + 0.3, free.lmbda + 1.0
    m = bcs.lm(formula, df, family="bcnpower", bounds=(lo, hi))
    grid = np.linspace(lo, hi, 401)
    prof = m.power.profile(lmbda=grid)
    best = float(grid[int(np.argmax(prof["llf"].to_numpy()))])
    assert m.lmbda == lo == best  # the grid's maximum is at the end the solver chose
    with pytest.warns(RuntimeWarning, match="gamma"):  # gamma sits at gamma_min here
        ci = m.power.conf_int()
    assert ci.iloc[0, 0] == lo
