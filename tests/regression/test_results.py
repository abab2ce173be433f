"""LmResult: the regression at the chosen power with statsmodels' names; ``m.power``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf

import boxcoxstat as bcs
from boxcoxstat.families import transform


@pytest.fixture(scope="module")
def trees_model():
    return bcs.lm("Volume ~ np.log(Height) + np.log(Girth)", bcs.datasets.load("trees"))


def test_regression_numbers_are_statsmodels_at_the_power(trees_model):
    """params, bse, pvalues, conf_int, rsquared are smf.ols's on the transformed response."""
    m = trees_model
    trees = bcs.datasets.load("trees").assign(z=lambda d: transform(d["Volume"], m.lmbda))
    ref = smf.ols("z ~ np.log(Height) + np.log(Girth)", trees).fit()
    # two least-squares solutions of the same problem: agreement to rounding (1e-10)
    pd.testing.assert_series_equal(m.params, ref.params, check_names=False, rtol=1e-10)
    pd.testing.assert_series_equal(m.bse, ref.bse, check_names=False, rtol=1e-10)
    pd.testing.assert_series_equal(m.pvalues, ref.pvalues, check_names=False, rtol=1e-8)
    ci = m.conf_int(0.1)
    np.testing.assert_allclose(ci.to_numpy(), ref.conf_int(0.1).to_numpy(), rtol=1e-10)
    assert list(ci.columns) == ["lower", "upper"] and list(ci.index) == list(m.params.index)
    assert m.rsquared == pytest.approx(ref.rsquared, rel=1e-12)
    assert m.df_resid == 28 and m.nobs == 31


def test_llf_includes_the_jacobian_and_aic_counts_lambda_and_sigma(trees_model):
    """llf of Volume = statsmodels' llf of the transformed model + (lambda - 1) sum log y."""
    m = trees_model
    y = bcs.datasets.load("trees")["Volume"].to_numpy()
    want = m.ols.llf + (m.lmbda - 1.0) * np.sum(np.log(y))
    # two evaluations of the same Gaussian likelihood (profile vs OLS residuals): 1e-10
    assert m.llf == pytest.approx(want, rel=1e-10)
    assert m.aic == pytest.approx(-2 * want + 2 * 5, rel=1e-10)  # 3 coefficients, sigma, lambda
    assert m.bic == pytest.approx(-2 * want + np.log(31) * 5, rel=1e-10)


def test_power_has_the_fit_result_surface(trees_model):
    p = trees_model.power
    assert isinstance(p, bcs.PowerTransformResult)
    assert p.lmbda == trees_model.lmbda
    assert list(p.conf_int().index) == ["Volume"]
    assert isinstance(p.test(0), bcs.HypothesisTest) and p.rounded == 0.0
    assert "linear model Volume ~" in str(p.summary())
    grid = p.profile(lmbda=[-0.5, 0.0, 0.5])
    assert list(grid.columns) == ["lmbda", "llf"] and grid["llf"].max() < trees_model.llf


def test_json_round_trip_reports_and_refuses_what_needs_data(trees_model, tmp_path):
    m = trees_model
    path = tmp_path / "m.json"
    path.write_text(m.to_json())
    for source in (m.to_json(), path, __import__("json").loads(m.to_json())):
        back = bcs.LmResult.from_json(source)
        assert str(back.summary()) == str(m.summary())
        pd.testing.assert_series_equal(back.params, m.params)
        assert back.power.lmbda == m.power.lmbda and back.aic == m.aic
    with pytest.raises(bcs.BoxCoxError, match="LmResult.predict.* is not available"):
        back.predict()
    with pytest.raises(bcs.BoxCoxError, match="field 'coefficients'"):
        doc = __import__("json").loads(m.to_json())
        doc["coefficients"]["columns"] = ["a", "b", "c", "d"]
        bcs.LmResult.from_json(doc)


@pytest.mark.parametrize("formula", ["Volume ~ np.log(Height) + np.log(Girth)",
                                     "Volume ~ 0 + np.log(Height) + np.log(Girth)"])
@pytest.mark.parametrize("weighted", [False, True])
def test_statsmodels_regression_names_gh29(formula, weighted):
    """Issue 29 item 6: df_model, df_resid, ssr, fvalue, f_pvalue are statsmodels' OLS (WLS)
    of the transformed response at the power, with and without a constant (two least-squares
    solutions of the same problem: 1e-12 relative; the p-value, a tail of 1e-24, 1e-10)."""
    trees = bcs.datasets.load("trees")
    w = np.linspace(0.5, 2.0, len(trees)) if weighted else None
    m = bcs.lm(formula, trees, weights=w)
    z = transform(trees["Volume"].to_numpy(), m.lmbda)
    rhs = formula.split("~", 1)[1]
    data = trees.assign(z=z)
    ref = (smf.wls(f"z ~ {rhs}", data, weights=w) if weighted else smf.ols(f"z ~ {rhs}", data)
           ).fit()
    assert m.df_model == ref.df_model and m.df_resid == ref.df_resid
    assert m.ssr == pytest.approx(ref.ssr, rel=1e-12)
    assert m.fvalue == pytest.approx(ref.fvalue, rel=1e-12)
    assert m.f_pvalue == pytest.approx(ref.f_pvalue, rel=1e-10)
    # model: statsmodels' model of the transformed response (the refit's)
    assert m.model.exog_names == ref.model.exog_names
    np.testing.assert_allclose(m.model.endog, z, rtol=1e-14)
    assert m.model.formula.startswith("boxcox(Volume, lmbda=")
    assert m.model.formula.endswith(rhs.strip())
    np.testing.assert_allclose(m.model.fit().params, ref.params, rtol=1e-12)


def test_statsmodels_names_of_a_loaded_result_gh29(trees_model):
    """Loaded from JSON: ssr comes from the saved scale and df_resid; what statsmodels finds
    in the data (the constant, hence df_model and the F test) and the model itself are
    refused with the package's 'not available' error, never AttributeError."""
    back = bcs.LmResult.from_json(trees_model.to_json())
    assert back.ssr == pytest.approx(trees_model.ssr, rel=1e-15)
    assert back.df_resid == trees_model.df_resid
    for name in ("model", "df_model", "fvalue", "f_pvalue"):
        with pytest.raises(bcs.BoxCoxError, match=f"LmResult.{name} is not available"):
            getattr(back, name)


def test_ols_docstring_says_it_is_on_the_transformed_scale():
    doc = bcs.LmResult.ols.__doc__
    assert "predicts the transformed response" in doc and ":meth:`get_prediction`" in doc


@pytest.mark.parametrize("kw", [{"family": "bcnpower"}, {"gamma": 2.0}])
def test_aliased_column_with_a_shifted_response(kw):
    """A design with an aliased column and a shifted response (bcnPower, gamma=) raised
    "unknown family 'bcnpower'" / "Box-Cox requires strictly positive data": the regression
    on the kept columns transformed the response without its shift. Now it is statsmodels'
    OLS of the shifted transform (written out: Box-Cox of (u + sqrt(u^2 + g^2))/2 or of
    u + g) on the kept columns (1e-10: two least-squares fits)."""
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"x": rng.uniform(1, 5, 80)})
    df["x2"] = 2.0 * df["x"]
    df["u"] = np.exp(0.2 + 0.3 * df["x"] + 0.2 * rng.standard_normal(80)) - 1.5
    m = bcs.lm("u ~ x + x2", df, **kw)
    assert m.aliased == ("x2",)
    g = float(m.power._gamma_values[0])
    u = df["u"].to_numpy()
    base = (u + np.sqrt(u ** 2 + g ** 2)) / 2 if "family" in kw else u + g
    z = (base ** m.lmbda - 1) / m.lmbda
    ref = smf.ols("z ~ x", df.assign(z=z)).fit()
    np.testing.assert_allclose(m.params.to_numpy(), ref.params.to_numpy(), rtol=1e-10)
    assert m.ssr == pytest.approx(ref.ssr, rel=1e-10)
    assert m.fvalue == pytest.approx(ref.fvalue, rel=1e-10)


@pytest.mark.parametrize("rhs", ["x1 + x2 + C(g)", "0 + x1 + x2"])
def test_a_long_model_reports_statsmodels_numbers_from_its_own_qr(rhs):
    """Issue 31 item 4: without weights the coefficients and statistics come from the QR the
    power was solved with (no statsmodels refit; from 65,536 rows a blocked Gram-Schmidt
    basis). They are smf.ols's on the transformed response, with and without a constant
    (two least-squares solutions of a well-conditioned problem: 1e-10 relative; p-values of
    1e-200 and beyond to 1e-8; statistics to 1e-12)."""
    rng = np.random.default_rng(31)
    n = 70_000
    data = pd.DataFrame({"x1": rng.normal(size=n), "x2": rng.uniform(0, 2, n),
                         "g": rng.choice(["a", "b", "c"], n)})
    data["y"] = np.exp(0.3 + 0.2 * data.x1 - 0.1 * data.x2 + rng.normal(0, 0.3, n))
    m = bcs.lm(f"y ~ {rhs}", data)
    assert type(m._regression).__name__ == "_QRFit"  # not a statsmodels refit
    ref = smf.ols(f"z ~ {rhs}", data.assign(z=transform(data["y"].to_numpy(), m.lmbda))).fit()
    pd.testing.assert_series_equal(m.params, ref.params, check_names=False, rtol=1e-10)
    pd.testing.assert_series_equal(m.bse, ref.bse, check_names=False, rtol=1e-10)
    pd.testing.assert_series_equal(m.pvalues, ref.pvalues, check_names=False, rtol=1e-8)
    np.testing.assert_allclose(m.cov_params().to_numpy(), ref.cov_params().to_numpy(),
                               rtol=1e-10)
    assert m.df_model == ref.df_model and m.df_resid == ref.df_resid and m.nobs == n
    for name in ("rsquared", "rsquared_adj", "scale", "ssr", "fvalue"):
        assert getattr(m, name) == pytest.approx(getattr(ref, name), rel=1e-12), name
    np.testing.assert_allclose(m.resid.to_numpy(), ref.resid.to_numpy(), rtol=0,
                               atol=1e-12 * np.abs(ref.resid).max())
    assert "Coefficients" in str(m.summary())
