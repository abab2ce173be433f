"""boxcoxstat.regression.formula: bc()/yj() stateful transforms and term_lambdas."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs
from boxcoxstat import BoxCoxError, bc, yj
from boxcoxstat.families import transform
from boxcoxstat.regression.formula import term_lambdas


def _sim(seed=4, n=200):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"x": rng.uniform(0.5, 2.5, n)})
    df["y"] = np.exp(1 + df["x"] + 0.3 * rng.standard_normal(n))
    return df


def test_statsmodels_formula_api_reuses_training_power():
    import statsmodels.formula.api as smf

    df = _sim()
    train, test = df.iloc[:150], df.iloc[150:]
    fit = smf.ols("y ~ bc(x)", data=train).fit()
    lam = bcs.fit(train["x"]).lmbda
    assert term_lambdas(fit)["bc(x)"] == pytest.approx(lam, abs=1e-12)
    expected = fit.params["Intercept"] + fit.params["bc(x)"] * transform(test["x"], lam)
    np.testing.assert_allclose(fit.predict(test), expected, rtol=1e-12)
    fixed = smf.ols("y ~ bc(x, lmbda=0.5)", data=train).fit()
    assert term_lambdas(fixed) == {"bc(x, lmbda=0.5)": 0.5}


def test_called_directly_the_transform_uses_the_ml_power():
    x = np.random.default_rng(2).lognormal(size=300)
    np.testing.assert_allclose(bc(x), transform(x, bcs.fit(x).lmbda), rtol=1e-12)
    z = x - 1.5
    lam = bcs.fit(z, family="yeojohnson").lmbda
    np.testing.assert_allclose(yj(z), transform(z, lam, "yeojohnson"), rtol=1e-12)
    np.testing.assert_allclose(bc(x, lmbda=0.5), transform(x, 0.5), rtol=1e-15)


def test_term_lambdas_of_lm_and_bad_objects():
    m = bcs.lm("y ~ bc(x) + yj(x - 1) + bc(x, lmbda=2)", _sim())
    assert set(m.term_lambdas) == {"bc(x)", "yj(x - 1)", "bc(x, lmbda=2)"}
    assert m.term_lambdas["bc(x, lmbda=2)"] == 2.0
    with pytest.raises(BoxCoxError, match="DesignInfo"):
        term_lambdas(object())


def test_new_data_outside_the_boxcox_domain_give_nan_in_place():
    """A bc() value <= 0 in new data: that row is NaN, named in one warning; the other rows
    are the same numbers as without it."""
    m = bcs.lm("y ~ bc(x)", _sim())
    new = pd.DataFrame({"x": [1.0, -1.0, 2.0, 0.0]}, index=["a", "b", "c", "d"])
    with pytest.warns(UserWarning, match=r"2 row\(s\) \('b', 'd'\).*<= 0") as rec:
        got = m.predict(new, interval="prediction")
    assert len(rec) == 1
    assert list(got.index) == ["a", "b", "c", "d"]
    assert got.loc[["b", "d"]].isna().all().all()
    pd.testing.assert_frame_equal(got.loc[["a", "c"]],
                                  m.predict(new.loc[["a", "c"]], interval="prediction"))
    with pytest.raises(BoxCoxError, match="infinite"):
        m.predict(pd.DataFrame({"x": [1.0, np.inf]}))
