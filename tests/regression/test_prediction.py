"""Predictions on the response scale: intervals against R, statsmodels and an independent
integration; missing and out-of-range rows; options.

Reference values: tests/reference/lm_predict_reference.R -> lm_predict_reference.json (R 4.2.2):
``lm()`` of the transformed response on the 24 training rows of R's trees data and
``predict(..., interval = "confidence" / "prediction")`` back-transformed, at the powers 0,
1/3 and 1, for the 7 held-out trees and 3 made-up ones.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from scipy import integrate, stats

import boxcoxstat as bcs
from boxcoxstat import BoxCoxError, bc, yj  # noqa: F401  (bc, yj: found by smf formulas)
from boxcoxstat.families import boxcox, inverse_transform, transform

REF = json.loads((Path(__file__).parent.parent / "reference" / "lm_predict_reference.json")
                 .read_text())
FORMULA = REF["meta"]["py_formula"]


@pytest.fixture(scope="module")
def split():
    trees = bcs.datasets.load("trees")
    held = REF["held_out_rows_0based"]
    train = trees.drop(index=trees.index[held])
    # the new data: columns in the other order than the training data's, an extra column
    new = pd.DataFrame({"Girth": REF["new"]["Girth"], "other": "z",
                        "Height": REF["new"]["Height"]}, index=[f"t{k}" for k in range(10)])
    return train, new


@pytest.mark.parametrize("power", list(REF["fits"]))
@pytest.mark.parametrize("interval", ["confidence", "prediction"])
@pytest.mark.parametrize("level", [0.95, 0.8])
def test_fixed_power_intervals_are_rs(split, power, interval, level):
    """At a fixed power the median and its intervals are the back-transforms of R's
    predict.lm intervals (at 0: exp(predict(lm(log(Volume) ~ ...), interval=))). Both sides
    compute the same t intervals from a least-squares fit; 1e-8 relative (the issue's
    tolerance) covers rounding in the QR and the back-transform."""
    train, new = split
    ref = REF["fits"][power]
    m = bcs.lm(FORMULA, train, lmbda=ref["lmbda"])
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        got = m.predict(new, interval=interval, alpha=round(1 - level, 2))
    named = [str(w.message) for w in rec]
    assert len(named) == int(np.any(np.asarray(ref[f"{interval}_{level:g}"]["fit"]) <= 0))
    want = ref[f"{interval}_{level:g}"]
    assert list(got.columns) == ["fit", "lower", "upper"] and list(got.index) == list(new.index)
    # R maps any value back with (1 + lambda z)^(1/lambda); where 1 + lambda z <= 0 that is
    # no Box-Cox value (y > 0): there the package gives NaN for a fit (the row has no
    # back-transform, and a warning names it) and the support's limit 0 for a lower end
    outside = np.asarray(want["fit"]) <= 0
    for col in ("fit", "lower", "upper"):
        r = np.asarray(want[col])
        ok = ~outside & (r > 0)
        np.testing.assert_allclose(got[col].to_numpy()[ok], r[ok], rtol=1e-8)
    assert got[outside].isna().all().all()
    low = ~outside & (np.asarray(want["lower"]) <= 0)
    assert np.all(got["lower"].to_numpy()[low] == 0.0)
    # the regression itself: R's coefficients, standard errors and residual scale
    np.testing.assert_allclose(m.params.to_numpy(), ref["coef"], rtol=1e-10)
    np.testing.assert_allclose(m.bse.to_numpy(), ref["bse"], rtol=1e-10)
    assert np.sqrt(m.scale) == pytest.approx(ref["sigma"], rel=1e-10)
    assert m.df_resid == ref["df_resid"]


def test_log_model_intervals_are_exp_of_rs_log_scale_intervals(split):
    """The Done-when check spelled out: at lambda = 0 the prediction intervals equal R's
    exp(predict(lm(log(Volume) ~ log(Girth) + log(Height)), new, interval = "prediction"))."""
    train, new = split
    got = bcs.lm("bc(Volume, lmbda=0) ~ np.log(Girth) + np.log(Height)", train).predict(
        new, interval="prediction")
    want = REF["fits"]["0"]["prediction_0.95"]
    np.testing.assert_allclose(got[["lower", "upper"]].to_numpy().T,
                               [want["lower"], want["upper"]], rtol=1e-8)


@pytest.mark.parametrize("lmbda", [None, 0.0, "rounded"])
def test_statsmodels_refits_equal_smf_ols_on_new_data_in_any_column_order(split, lmbda):
    """m.ols / m.at(...).ols are built from the formula: predict and get_prediction on a
    DataFrame whose columns are in another order equal smf.ols on the transformed response
    (two least-squares fits of the same problem: 1e-10)."""
    train, new = split
    m = bcs.lm(FORMULA, train)
    fit = m if lmbda is None else m.at(lmbda)
    z = transform(train["Volume"].to_numpy(), fit.lmbda)
    ref = smf.ols("z ~ np.log(Girth) + np.log(Height)", train.assign(z=z)).fit()
    np.testing.assert_allclose(fit.ols.predict(new), ref.predict(new), rtol=1e-10)
    got = fit.ols.get_prediction(new).summary_frame(alpha=0.1)
    want = ref.get_prediction(new).summary_frame(alpha=0.1)
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=1e-10)
    # the response-scale predictions are the back-transformed linear predictor
    np.testing.assert_allclose(fit.predict(new)["fit"],
                               inverse_transform(ref.predict(new).to_numpy(), fit.lmbda),
                               rtol=1e-10)


def test_regression_to_the_issue_trees_held_out_split_gh12(split):
    """Issue 12: np.exp(m.at(0).predict(test_df)) gave 7.4e36 (columns matched by position);
    the refit must give smf.ols's 49.8-scale numbers."""
    train, new = split
    m = bcs.lm(FORMULA, train)
    got = np.exp(m.at(0).ols.predict(new[["Height", "Girth"]]))
    assert got.max() < 200 and got.min() > 1


def test_refit_with_predictor_transforms_matches_smf_with_the_same_terms():
    """bc() / yj() / C() / center() terms: the refit equals smf.ols with the same formula (the
    same powers learned on the same rows), on new data whose columns are reordered."""
    cars = bcs.datasets.load("topgear")[["Price", "MPG", "Weight", "Displacement", "Fuel"]]
    cars = cars.dropna()
    train, test = cars.iloc[::2], cars.iloc[1::2]
    rhs = "bc(MPG) + yj(Displacement - 2000) + C(Fuel) + center(Weight)"
    m = bcs.lm(f"Price ~ {rhs}", train, lmbda=0)
    ref = smf.ols(f"np.log(Price) ~ {rhs}", train).fit()
    shuffled = test[["Fuel", "Weight", "Displacement", "MPG"]]
    np.testing.assert_allclose(m.ols.predict(shuffled), ref.predict(shuffled), rtol=1e-10)
    np.testing.assert_allclose(m.predict(shuffled)["fit"], np.exp(ref.predict(shuffled)),
                               rtol=1e-10)


def test_missing_and_out_of_range_rows_give_nan_in_place():
    """A missing predictor: NaN in place, silently (R's na.pass). A linear predictor outside
    the transform's range (lambda = 1: eta <= -1): NaN for that row only, one warning naming
    it. The other rows are the same numbers as in a batch without them."""
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 1, 60)
    df = pd.DataFrame({"x": x, "y": 3.0 - 2.0 * x + 0.1 * rng.standard_normal(60)})
    m = bcs.lm("y ~ x", df, lmbda=1.0)
    new = pd.DataFrame({"x": [0.2, np.nan, 5.0, 0.8]}, index=[10, 11, 12, 13])
    untouched = new.copy()
    with pytest.warns(UserWarning, match=r"1 row\(s\) \(12\): the linear predictor lies "
                                         r"outside the range") as rec:
        got = m.predict(new, interval="prediction")
    assert len(rec) == 1
    assert list(got.index) == [10, 11, 12, 13]
    assert got.loc[[11, 12]].isna().all().all()
    pd.testing.assert_frame_equal(new, untouched)  # the caller's data are not changed
    clean = m.predict(new.loc[[10, 13]], interval="prediction")
    pd.testing.assert_frame_equal(got.loc[[10, 13]], clean)
    assert np.all(np.isfinite(clean.to_numpy()))


def test_an_interval_beyond_the_range_is_unbounded_with_a_warning():
    """lambda = -1: the inverse Box-Cox transform is bounded by eta < 1. A prediction
    interval that reaches past 1 has an infinite upper end (the model's own answer), and a
    warning names the row; its lower end and the fit are finite."""
    rng = np.random.default_rng(5)
    x = rng.uniform(0, 1, 40)
    eta = 0.2 + 0.5 * x + 0.05 * rng.standard_normal(40)
    df = pd.DataFrame({"x": x, "y": inverse_transform(eta, -1.0)})
    m = bcs.lm("y ~ x", df, lmbda=-1.0)
    new = pd.DataFrame({"x": [0.5, 1.5]})
    with pytest.warns(UserWarning, match=r"\(1\): the 95% prediction interval .* unbounded"):
        got = m.predict(new, interval="prediction")
    assert np.isinf(got.loc[1, "upper"]) and np.isfinite(got.loc[1, ["fit", "lower"]]).all()
    assert np.isfinite(got.loc[0]).all()


def test_mean_that_does_not_exist_is_nan_for_that_row_only():
    rng = np.random.default_rng(6)
    x = rng.uniform(0, 1, 40)
    eta = 0.2 + 0.7 * x + 0.05 * rng.standard_normal(40)
    m = bcs.lm("y ~ x", pd.DataFrame({"x": x, "y": inverse_transform(eta, -1.0)}),
               lmbda=-1.0)
    new = pd.DataFrame({"x": [0.1, 1.1]})  # eta = 0.97: the median exists, the mean not
    with pytest.warns(UserWarning, match=r"\(1\): the mean on the response scale does not"):
        got = m.predict(new, kind="mean", mean_estimator="normal")
    assert np.isfinite(got.loc[0, "fit"]) and np.isnan(got.loc[1, "fit"])
    one = m.predict(new.iloc[:1], kind="mean", mean_estimator="normal")
    assert got.loc[0, "fit"] == one["fit"][0]


def test_whether_the_mean_exists_is_one_answer_for_both_estimators():
    """issue 27: kind="mean" (smearing) returned a number where mean_estimator="normal" said
    the mean does not exist. Under the fitted normal model (lambda = -1: the inverse has a pole at
    eta = 1) the mean is infinite where the errors, within 12 sigma, reach the pole; both
    estimators now say so for the same rows: those with eta + 12 sigma >= 1 by statsmodels'
    OLS of the transformed response."""
    rng = np.random.default_rng(6)
    x = rng.uniform(0, 1, 40)
    eta = 0.2 + 0.7 * x + 0.05 * rng.standard_normal(40)
    df = pd.DataFrame({"x": x, "y": inverse_transform(eta, -1.0)})
    m = bcs.lm("y ~ x", df, lmbda=-1.0)
    ols = smf.ols("I(1 - 1 / y) ~ x", df).fit()  # Box-Cox at -1: (y^-1 - 1) / -1
    new = pd.DataFrame({"x": [0.0, 0.3, 0.6, 0.9]})
    reaches = ols.predict(new).to_numpy() + 12 * np.sqrt(ols.scale) >= 1.0
    assert reaches.any() and not reaches.all()
    fits = {}
    for mean in ("smearing", "normal"):
        with pytest.warns(UserWarning, match="does not exist"):
            fits[mean] = m.predict(new, kind="mean", mean_estimator=mean)["fit"].to_numpy()
        assert np.isnan(fits[mean]).tolist() == reaches.tolist()
    # where it exists, the two estimators of it agree closely (normal errors: 1e-2 relative)
    np.testing.assert_allclose(fits["smearing"][~reaches], fits["normal"][~reaches], rtol=1e-2)


def test_missing_raise_model_refuses_missing_new_rows():
    df = bcs.datasets.load("trees")
    m = bcs.lm(FORMULA, df, missing="raise")
    with pytest.raises(BoxCoxError, match="first at row 'b'.*missing='raise'"):
        m.predict(pd.DataFrame({"Girth": [10, np.nan], "Height": [70, 80]}, index=["a", "b"]))


def _posterior_predictive_cdf(train, new, se_kind):
    """Box & Cox's (1964) predictive CDF written out independently of the package: for each
    lambda on a fine grid, the least-squares fit of the transformed response (NumPy's
    lstsq), its Gaussian log-likelihood plus the Jacobian, the posterior
    exp((nu/n) l(lambda)), and the t CDF of the new point, integrated over lambda by the
    trapezoid rule."""
    y = train["Volume"].to_numpy()
    X = np.column_stack([np.ones(y.size), np.log(train["Girth"]), np.log(train["Height"])])
    X0 = np.column_stack([np.ones(len(new)), np.log(new["Girth"]), np.log(new["Height"])])
    n, k = X.shape
    nu = n - k
    lam = np.linspace(-1.3, 1.1, 2401)
    # expm1 keeps (y^lambda - 1)/lambda accurate at the grid point next to 0 (2e-16 there)
    Z = np.expm1(np.log(y)[:, None] * lam) / lam
    beta = np.linalg.lstsq(X, Z, rcond=None)[0]
    rss = ((Z - X @ beta) ** 2).sum(axis=0)
    llf = -n / 2 * (np.log(2 * np.pi) + 1 + np.log(rss / n)) + (lam - 1) * np.log(y).sum()
    s2 = rss / nu
    h = np.einsum("ij,jk,ik->i", X0, np.linalg.inv(X.T @ X), X0)
    extra = 1.0 if se_kind == "prediction" else 0.0
    eta = (X0 @ beta).T  # (L, m)
    sd = np.sqrt(np.outer(s2, h + extra))
    w = np.exp((nu / n) * (llf - llf.max()))
    w /= integrate.trapezoid(w, lam)

    def cdf(value, j):
        return integrate.trapezoid(w * stats.t.cdf((boxcox(value, lam) - eta[:, j]) / sd[:, j],
                                                   nu), lam)
    return cdf


@pytest.mark.parametrize("interval", ["prediction", "confidence"])
def test_lambda_uncertainty_intervals_are_quantiles_of_box_and_cox_predictive(interval):
    """The ends of include_lambda_uncertainty=True intervals are the 2.5% and 97.5% points of
    the predictive distribution integrated independently (NumPy least squares on a
    2401-point lambda grid); the two agree to 2e-9 in probability (the trapezoid rule's
    error on that grid), and 1e-7 is allowed."""
    trees = bcs.datasets.load("trees")
    new = pd.DataFrame({"Height": [70, 95], "Girth": [10, 25]})
    m = bcs.lm(FORMULA, trees)
    got = m.predict(new, interval=interval, include_lambda_uncertainty=True)
    cdf = _posterior_predictive_cdf(trees, new, interval)
    for j in range(2):
        assert cdf(got["lower"].iloc[j], j) == pytest.approx(0.025, abs=1e-7)
        assert cdf(got["upper"].iloc[j], j) == pytest.approx(0.975, abs=1e-7)
    # carrying lambda's uncertainty widens the interval at the extrapolated point
    plug = m.predict(new, interval=interval)
    assert got["upper"].iloc[1] - got["lower"].iloc[1] > plug["upper"].iloc[1] - \
        plug["lower"].iloc[1]
    pd.testing.assert_series_equal(got["fit"], plug["fit"])


def test_lambda_uncertainty_vanishes_when_lambda_is_determined():
    """With 20000 observations lambda's posterior is narrow (sd about 0.005), so the mixture
    interval is within 1e-3 relative of the plug-in one."""
    rng = np.random.default_rng(11)
    x = rng.uniform(0, 1, 20000)
    df = pd.DataFrame({"x": x, "y": np.exp(1 + x + 0.3 * rng.standard_normal(20000))})
    m = bcs.lm("y ~ x", df)
    new = pd.DataFrame({"x": [0.5]})
    a = m.predict(new, interval="prediction")
    b = m.predict(new, interval="prediction", include_lambda_uncertainty=True)
    np.testing.assert_allclose(b.to_numpy(), a.to_numpy(), rtol=1e-3)


def test_options_and_refusals():
    trees = bcs.datasets.load("trees")
    m = bcs.lm(FORMULA, trees)
    assert list(m.predict().columns) == ["fit"]  # a DataFrame whatever the options
    assert list(m.predict(interval="confidence").columns) == ["fit", "lower", "upper"]
    with pytest.raises(BoxCoxError, match="interval='confidence' is an interval for the "
                                          "conditional median"):
        m.predict(interval="confidence", kind="mean")
    with pytest.raises(BoxCoxError, match="response scale"):
        m.predict(interval="prediction", which="transformed", include_lambda_uncertainty=True)
    with pytest.raises(BoxCoxError, match="interval='wald' is not valid"):
        m.predict(interval="wald")
    with pytest.raises(BoxCoxError, match="alpha"):
        m.predict(interval="prediction", alpha=1.5)
    fixed = m.at(0)
    with pytest.raises(BoxCoxError, match=r"LmResult.predict\(include_lambda_uncertainty=True"
                                          r"\) is not available: the power was fixed at 0"):
        fixed.predict(interval="prediction", include_lambda_uncertainty=True)
    # transformed scale: the linear predictor and its t interval, as statsmodels
    t = m.predict(trees.head(3), interval="prediction", which="transformed", alpha=0.1)
    ref = m.ols.get_prediction(trees.head(3)).summary_frame(alpha=0.1)
    np.testing.assert_allclose(t.to_numpy(), ref[["mean", "obs_ci_lower", "obs_ci_upper"]],
                               rtol=1e-10)


def test_lambda_uncertainty_with_yeo_johnson_and_weights():
    """The same check for a weighted Yeo-Johnson model, with the reference written out once
    more: scipy's yeojohnson transform, weighted least squares by NumPy, the weighted Gaussian
    log-likelihood with the unweighted Jacobian sum(sign(y) log(1 + |y|)), a 2401-point
    trapezoid rule over lambda (its error about 1e-9; 1e-7 allowed)."""
    from boxcoxstat.families import inverse_transform as inv

    rng = np.random.default_rng(2)
    n = 40
    x = rng.uniform(-1, 1, n)
    w = rng.uniform(0.5, 2.0, n)
    y = inv(0.3 + 1.2 * x + 0.4 * rng.standard_normal(n) / np.sqrt(w), 0.7, "yeojohnson")
    m = bcs.lm("y ~ x", pd.DataFrame({"x": x, "y": y}), family="yeojohnson", weights=w)
    new = pd.DataFrame({"x": [-1.5, 0.0, 1.5]})
    X = np.column_stack([np.ones(n), x])
    X0 = np.column_stack([np.ones(3), new["x"]])
    lam = np.linspace(m.lmbda - 1.5, m.lmbda + 1.5, 2401)
    Z = np.column_stack([stats.yeojohnson(y, v) for v in lam])
    sw = np.sqrt(w)
    beta = np.linalg.lstsq(X * sw[:, None], Z * sw[:, None], rcond=None)[0]
    rss = (((Z - X @ beta) * sw[:, None]) ** 2).sum(axis=0)
    jac = np.sum(np.sign(y) * np.log1p(np.abs(y)))
    llf = -n / 2 * np.log(rss / n) + (lam - 1) * jac
    nu = n - 2
    post = np.exp((nu / n) * (llf - llf.max()))
    post /= integrate.trapezoid(post, lam)
    h = np.einsum("ij,jk,ik->i", X0, np.linalg.inv(X.T @ (X * w[:, None])), X0)
    for interval, extra in (("prediction", 1.0), ("confidence", 0.0)):
        got = m.predict(new, interval=interval, include_lambda_uncertainty=True)
        sd = np.sqrt(np.outer(rss / nu, h + extra))
        for j in range(3):
            for end, p in (("lower", 0.025), ("upper", 0.975)):
                g = np.array([stats.yeojohnson(np.array([got[end].iloc[j]]), v)[0]
                              for v in lam])
                cdf = integrate.trapezoid(post * stats.t.cdf((g - (X0 @ beta)[j]) / sd[:, j],
                                                             nu), lam)
                assert cdf == pytest.approx(p, abs=1e-7), (interval, j, end)


# --------------------------------------------------------------------------- get_prediction
SF_COLUMNS = ["mean", "mean_se", "mean_ci_lower", "mean_ci_upper", "obs_ci_lower",
              "obs_ci_upper"]


def _smf_reference(m, data, weights=None):
    """statsmodels' own fit of the model's transformed response on the same formula."""
    z = transform(data["Volume"].to_numpy(), m.lmbda)
    rhs = m.formula.split("~", 1)[1]
    if weights is None:
        return smf.ols(f"z ~ {rhs}", data.assign(z=z)).fit()
    return smf.wls(f"z ~ {rhs}", data.assign(z=z), weights=weights).fit()


@pytest.mark.parametrize("alpha", [0.05, 0.1])
def test_get_prediction_on_the_transformed_scale_is_statsmodels_gh29(split, alpha):
    """Issue 29 item 6: m.get_prediction(new, scale='transformed').summary_frame(alpha) is
    statsmodels' OLS(...).get_prediction(new).summary_frame(alpha) of the same design and
    transformed response (the same least-squares solution and t quantile: 1e-12)."""
    train, new = split
    m = bcs.lm(FORMULA, train)
    ref = _smf_reference(m, train)
    got = m.get_prediction(new, which="transformed").summary_frame(alpha=alpha)
    want = ref.get_prediction(new).summary_frame(alpha=alpha)
    assert list(got.columns) == SF_COLUMNS and list(got.index) == list(new.index)
    pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=1e-12, atol=0)
    # without new data: the fitted rows, indexed as the data
    got = m.get_prediction(which="transformed").summary_frame(alpha=alpha)
    want = ref.get_prediction().summary_frame(alpha=alpha)
    pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=1e-12, atol=0)
    p = m.get_prediction(new, which="transformed")
    np.testing.assert_allclose(p.predicted_mean, ref.predict(new), rtol=1e-12)
    np.testing.assert_allclose(p.se_mean, ref.get_prediction(new).se_mean, rtol=1e-12)


def test_get_prediction_on_the_response_scale_maps_statsmodels_intervals_back_gh29(split):
    """By default the frame is on the response scale: every interval end is the inverse
    Box-Cox transform (written out here) of statsmodels' transformed-scale end, ``mean`` the
    back-transformed linear predictor (the median), ``mean_se`` the delta-method standard
    error |d g^-1 / d eta| se, the derivative by mpmath. 1e-12 for the mapped ends (one
    power of a float), 1e-10 for the derivative (mpmath's numerical differentiation)."""
    import mpmath

    train, new = split
    m = bcs.lm(FORMULA, train)
    lam = m.lmbda
    ref = _smf_reference(m, train).get_prediction(new).summary_frame(alpha=0.1)
    got = m.get_prediction(new).summary_frame(alpha=0.1)
    assert list(got.columns) == SF_COLUMNS and list(got.index) == list(new.index)

    def inv(z):
        return (1.0 + lam * np.asarray(z)) ** (1.0 / lam)

    for col in ("mean", "mean_ci_lower", "mean_ci_upper", "obs_ci_lower", "obs_ci_upper"):
        np.testing.assert_allclose(got[col], inv(ref[col]), rtol=1e-12, err_msg=col)
    with mpmath.workdps(30):
        slope = [float(mpmath.diff(lambda e: (1 + mpmath.mpf(lam) * e) ** (1 / mpmath.mpf(lam)),
                                   mpmath.mpf(float(e)))) for e in ref["mean"]]
    np.testing.assert_allclose(got["mean_se"], np.array(slope) * ref["mean_se"], rtol=1e-10)
    # one engine: the same numbers as predict's median and fixed-power intervals
    for interval, prefix in (("confidence", "mean_ci"), ("prediction", "obs_ci")):
        want = m.predict(new, interval=interval, alpha=0.1)
        np.testing.assert_allclose(got["mean"], want["fit"], rtol=1e-14)
        np.testing.assert_allclose(got[f"{prefix}_lower"], want["lower"], rtol=1e-14)
        np.testing.assert_allclose(got[f"{prefix}_upper"], want["upper"], rtol=1e-14)


def test_get_prediction_of_the_log_model_is_exp_of_statsmodels(split):
    """At lambda = 0 the response-scale frame is exp() of statsmodels' log-scale frame and
    mean_se is exp(eta) se (the derivative of exp is exp): 1e-12."""
    train, new = split
    m = bcs.lm(FORMULA, train, lmbda=0)
    ref = smf.ols("np.log(Volume) ~ np.log(Girth) + np.log(Height)", train).fit()
    want = ref.get_prediction(new).summary_frame()
    got = m.get_prediction(new).summary_frame()
    for col in ("mean", "mean_ci_lower", "mean_ci_upper", "obs_ci_lower", "obs_ci_upper"):
        np.testing.assert_allclose(got[col], np.exp(want[col]), rtol=1e-12, err_msg=col)
    np.testing.assert_allclose(got["mean_se"], np.exp(want["mean"]) * want["mean_se"],
                               rtol=1e-12)
    ci = m.get_prediction(new).conf_int(obs=True, alpha=0.2)
    assert list(ci.columns) == ["lower", "upper"] and list(ci.index) == list(new.index)
    np.testing.assert_allclose(ci.to_numpy(), np.exp(ref.get_prediction(new).conf_int(
        obs=True, alpha=0.2)), rtol=1e-12)


def test_get_prediction_of_a_weighted_model_weights_observations_as_statsmodels():
    """WLS: for the fitted rows the prediction interval uses the model's weights (scale / w,
    statsmodels' default), for new data weight 1, and given weights are used as given; the
    transformed-scale frame equals statsmodels' WLS get_prediction in each case (1e-12)."""
    trees = bcs.datasets.load("trees")
    w = np.linspace(0.5, 2.0, len(trees))
    m = bcs.lm("Volume ~ np.log(Girth) + np.log(Height)", trees, weights=w)
    ref = _smf_reference(m, trees, weights=w)
    new = trees.iloc[[3, 7, 11, 15]]  # 4 rows: statsmodels refuses as many weights as columns
    for x, wt in ((None, None), (new, None), (new, 2.5), (new, [1.0, 2.0, 3.0, 4.0])):
        got = m.get_prediction(x, which="transformed", weights=wt).summary_frame()
        want = ref.get_prediction(x, weights=wt).summary_frame()
        pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=1e-12, atol=0)


def test_get_prediction_of_a_shifted_response_maps_to_the_response():
    """bcnPower (Hawkins & Weisberg 2017): the response is b - gamma^2 / (4 b) with
    b = (1 + lambda z)^(1/lambda) (car's bcnPowerInverse, written out here) of the
    transformed-scale frame's ends; mean_se by the chain rule, mpmath's derivative (1e-9)."""
    import mpmath

    rng = np.random.default_rng(8)
    df = pd.DataFrame({"x": rng.uniform(1, 5, 60)})
    df["u"] = np.exp(0.3 + 0.3 * df["x"] + 0.2 * rng.standard_normal(60)) - 2.0
    m = bcs.lm("u ~ x", df, family="bcnpower")
    lam, gam = m.lmbda, float(m.power._gamma_values[0])
    new = pd.DataFrame({"x": [1.5, 3.0, 4.5]})
    t = m.get_prediction(new, which="transformed").summary_frame()
    got = m.get_prediction(new).summary_frame()

    def inv(z):
        b = (1.0 + lam * np.asarray(z, dtype=float)) ** (1.0 / lam)
        return b - gam ** 2 / (4.0 * b)

    for col in ("mean", "mean_ci_lower", "mean_ci_upper", "obs_ci_lower", "obs_ci_upper"):
        np.testing.assert_allclose(got[col], inv(t[col]), rtol=1e-12, err_msg=col)
    lam_m, gam_m = mpmath.mpf(lam), mpmath.mpf(gam)

    def inv_mp(e):
        b = (1 + lam_m * e) ** (1 / lam_m)
        return b - gam_m ** 2 / (4 * b)

    slope = [float(mpmath.diff(inv_mp, mpmath.mpf(float(e)))) for e in t["mean"]]
    np.testing.assert_allclose(got["mean_se"], np.array(slope) * t["mean_se"], rtol=1e-9)
    np.testing.assert_allclose(got["mean"], m.predict(new)["fit"], rtol=1e-14)


def test_get_prediction_rows_missing_outside_and_unbounded():
    """A missing predictor: NaN in place (statsmodels drops the row). A linear predictor
    outside the range (lambda = 1, eta <= -1): NaN on the response scale with one warning
    naming the row, finite on the transformed scale. An end beyond the range: its limit,
    with a warning when it is infinite (lambda = -1: the upper ends reach the pole)."""
    df = pd.DataFrame({"x": np.arange(1.0, 21.0)})
    df["y"] = 1.0 + 0.5 * df["x"] + np.sin(df["x"])
    m = bcs.lm("y ~ x", df, lmbda=1.0)
    new = pd.DataFrame({"x": [np.nan, 5.0, -40.0]}, index=["miss", "ok", "far"])
    with pytest.warns(UserWarning, match=r"1 row\(s\) \('far'\).*no back-transform") as rec:
        p = m.get_prediction(new)
    assert all(r.filename == __file__ for r in rec)  # stacklevel: the user's call
    sf = p.summary_frame()
    assert sf.loc["miss"].isna().all() and sf.loc["far"].isna().all()
    assert sf.loc["ok"].notna().all()
    tr = m.get_prediction(new, which="transformed").summary_frame()
    assert tr.loc["miss"].isna().all() and tr.loc["far"].notna().all()
    inv = bcs.lm("y ~ x", df, lmbda=-1.0)
    edge = pd.DataFrame({"x": [20.0]}, index=["edge"])  # eta 0.97, the pole at 1
    p = inv.get_prediction(edge)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a bounded interval: no warning
        assert np.isfinite(p.conf_int(alpha=0.5).to_numpy()).all()
    with pytest.warns(UserWarning, match=r"\('edge'\): the 95% prediction interval reaches "
                                         "beyond the range") as rec:
        sf = p.summary_frame()
    assert rec[0].filename == __file__
    assert np.isfinite(sf.loc["edge", "mean"]) and sf.loc["edge", "obs_ci_upper"] == np.inf


def test_get_prediction_options_refusals_and_loaded_results(split):
    train, new = split
    m = bcs.lm(FORMULA, train)
    with pytest.raises(BoxCoxError, match="which='log' is not valid"):
        m.get_prediction(new, which="log")
    for bad in ([1.0, 2.0], -1.0, 0.0, "a", [np.nan] * 10, np.ones((10, 1))):
        with pytest.raises(BoxCoxError, match="weights"):
            m.get_prediction(new, weights=bad)
    p = m.get_prediction(new)
    with pytest.raises(BoxCoxError, match="alpha"):
        p.summary_frame(alpha=1.5)
    with pytest.raises(BoxCoxError, match="obs"):
        p.conf_int(obs="yes")
    assert repr(p) == "<LmPrediction: 10 row(s), response scale>"
    # the scale is named after the option (``scale`` is the residual variance, LmResult.scale)
    assert p.which == "response" and m.get_prediction(new, which="transformed").which == \
        "transformed" and not hasattr(p, "scale")
    with pytest.raises(Exception):  # noqa: B017 - immutable: any attempt to set fails
        p.which = "transformed"
    with pytest.raises(ValueError, match="read-only"):
        p.linpred[0] = 0.0
    # a loaded result predicts new data; its fitted rows are not in the document
    back = bcs.LmResult.from_json(m.to_json())
    pd.testing.assert_frame_equal(back.get_prediction(new).summary_frame(), p.summary_frame(),
                                  check_exact=False, rtol=1e-13, atol=0)
    with pytest.raises(BoxCoxError, match=r"LmResult.predict\(\) without new data is not "
                                          "available"):
        back.get_prediction()


def test_get_prediction_takes_polars_and_returns_polars(split):
    """polars in, polars out (the rows in their order), the pandas path's numbers."""
    pl = pytest.importorskip("polars")
    train, new = split
    m = bcs.lm(FORMULA, train)
    got = m.get_prediction(pl.from_pandas(new.reset_index(drop=True))).summary_frame()
    assert isinstance(got, pl.DataFrame) and got.columns == SF_COLUMNS
    np.testing.assert_allclose(got.to_numpy(), m.get_prediction(new).summary_frame(),
                               rtol=1e-15)
