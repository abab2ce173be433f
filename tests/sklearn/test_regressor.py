"""``BoxCoxRegressor``: MASS's lambda given X, and predictions on the response's scale."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.base import clone
from sklearn.ensemble import RandomForestRegressor
from sklearn.model_selection import cross_val_score

import boxcoxstat as bcs
from boxcoxstat import BoxCoxRegressor

REFERENCE = Path(__file__).parent.parent / "reference" / "mass_lm_reference.json"


def test_lambda_given_x_is_mass_boxcox():
    """R's MASS::boxcox on lm(Volume ~ log(Height) + log(Girth)) (tests/reference): lambda
    and the 95% profile interval to 1e-6 (R's optimize/uniroot tolerance)."""
    ref = json.loads(REFERENCE.read_text())["models"]["trees"]
    d = ref["data"]
    X = np.log(np.column_stack([d["Height"], d["Girth"]]))
    reg = BoxCoxRegressor().fit(X, np.array(d["Volume"]))
    assert reg.lmbda_ == pytest.approx(ref["boxcox"]["mass"]["lambda"], abs=1e-6)
    ci = reg.power_.conf_int().iloc[0]
    assert ci["lower"] == pytest.approx(ref["boxcox"]["mass"]["ci_lower"], abs=1e-6)
    assert ci["upper"] == pytest.approx(ref["boxcox"]["mass"]["ci_upper"], abs=1e-6)


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_predictions_equal_lm_at_the_same_power(family):
    """A linear regressor is bcs.lm: the same power, the same median and smearing mean."""
    rng = np.random.default_rng(5)
    df = pd.DataFrame({"a": rng.uniform(0, 2, 150), "b": rng.normal(size=150)})
    df["y"] = np.exp(0.3 + 0.8 * df["a"] - 0.2 * df["b"] + 0.3 * rng.normal(size=150))
    m = bcs.lm("y ~ a + b", df, family=family)
    X = df[["a", "b"]]
    med = BoxCoxRegressor(family=family).fit(X, df["y"])
    mean = BoxCoxRegressor(family=family, kind="mean").fit(X, df["y"])
    assert med.lmbda_ == pytest.approx(m.lmbda, rel=1e-12)
    assert_allclose(med.power_.conf_int(), m.power.conf_int(), rtol=1e-10)
    assert_allclose(med.predict(X), m.predict(df).to_numpy().ravel(), rtol=1e-9)
    assert_allclose(mean.predict(X), m.predict(df, kind="mean").to_numpy().ravel(),
                    rtol=1e-9)


def test_conditional_lambda_differs_from_the_marginal_one():
    """y = (1 + x + e)^2 with a skewed x: given x the power is 1/2; the marginal y's power
    is pulled by x's skewness."""
    rng = np.random.default_rng(11)
    x = rng.lognormal(sigma=0.8, size=400)
    y = (1 + x + 0.2 * rng.normal(size=400)) ** 2
    reg = BoxCoxRegressor().fit(x[:, None], y)
    lo, hi = reg.power_.conf_int().iloc[0]
    assert lo < 0.5 < hi
    marginal = bcs.fit(y).lmbda
    assert not lo < marginal < hi


def test_auto_family_fixed_power_and_any_regressor():
    rng = np.random.default_rng(2)
    X = rng.uniform(0, 1, size=(80, 2))
    y = np.exp(X @ [1.0, -0.5] + 0.1 * rng.normal(size=80))
    reg = BoxCoxRegressor(family="auto").fit(X, y)
    assert reg.family_ in ("boxcox", "yeojohnson")
    assert BoxCoxRegressor(family="auto").fit(X, y - 2.0).family_ == "yeojohnson"
    fixed = BoxCoxRegressor(lmbda=0.0).fit(X, y)
    estimated = BoxCoxRegressor().fit(X, y)
    assert fixed.lmbda_ == 0.0 and fixed.power_.lmbda == estimated.lmbda_ != 0.0
    rf = BoxCoxRegressor(RandomForestRegressor(n_estimators=20, random_state=0))
    assert cross_val_score(rf, X, y, cv=3).mean() > 0.5
    assert clone(rf).get_params()["regressor"].n_estimators == 20


def test_bad_input_raises_the_package_error():
    X = np.arange(10.0)[:, None]
    with pytest.raises(bcs.BoxCoxError, match="strictly positive.*family='yeojohnson'"):
        BoxCoxRegressor().fit(X, np.arange(10.0) - 3)
    with pytest.raises(bcs.BoxCoxError, match="kind='average'"):
        BoxCoxRegressor(kind="average").fit(X, np.arange(1.0, 11.0))
    with pytest.raises(bcs.BoxCoxError, match="1 sample"):
        BoxCoxRegressor().fit([[1.0]], [2.0])


def test_predictions_without_a_back_transform_are_nan_with_a_warning():
    # issue 27's one rule for inverses: the row is NaN, named in one warning; the batch stays
    rng = np.random.default_rng(6)
    x = rng.uniform(0, 1, 40)
    eta = 0.2 + 0.7 * x + 0.05 * rng.standard_normal(40)
    y = 1.0 / (1.0 - eta)  # Box-Cox at -1: the inverse has a pole at eta = 1
    X_new = np.array([[0.1], [2.0]])  # eta about 0.27 and 1.6: beyond the pole
    for kind in ("median", "mean"):
        reg = BoxCoxRegressor(lmbda=-1.0, kind=kind).fit(x[:, None], y)
        with pytest.warns(UserWarning, match=r"1 value\(s\) \(rows 1\) at lambda = -1"):
            got = reg.predict(X_new)
        assert np.isfinite(got[0]) and np.isnan(got[1])
        assert got[0] == reg.predict(X_new[:1])[0]  # the same as without the bad row
