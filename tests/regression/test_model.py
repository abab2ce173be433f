"""boxcoxstat.lm: formulas, missing values, errors, predictions and reports (plots:
test_plotting.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs
from boxcoxstat import BoxCoxError
from boxcoxstat.families import transform

from .simdata import sim as _sim


def test_recovers_a_known_response_power():
    df = _sim(n=3000, lam=0.5, sigma=0.2, seed=1)
    m = bcs.lm("y ~ x + C(g)", df)
    lo, hi = m.power.conf_int().iloc[0]
    assert lo < 0.5 < hi and m.power.rounded == 0.5
    assert m.power.test(0.5).pvalue > 0.01


def test_wrapped_response_chooses_the_family():
    df = _sim()
    plain = bcs.lm("y ~ x", df)
    wrapped = bcs.lm("bc(y) ~ x", df)
    assert wrapped.lmbda == plain.lmbda and wrapped.response == "y"
    assert bcs.lm("yj(y) ~ x", df).family == "yeojohnson"
    with pytest.raises(BoxCoxError, match="contradicts"):
        bcs.lm("yj(y) ~ x", df, family="boxcox")
    with pytest.raises(BoxCoxError, match="optionally a fixed power"):
        bcs.lm("bc(y, 1, 2) ~ x", df)
    with pytest.raises(BoxCoxError, match="optionally a fixed power"):
        bcs.lm("bc(y, lmbda='log') ~ x", df)


def test_missing_values_dropped_and_counted_or_refused():
    df = _sim()
    df.loc[[3, 10], "x"] = np.nan
    df.loc[[5], "y"] = np.nan
    m = bcs.lm("y ~ bc(x + 1)", df)
    assert m.n_dropped == 3 and m.nobs == len(df) - 3
    assert "3 row(s) with missing values" in str(m.summary())
    # the predictor's power was learned on exactly the rows the model uses
    rows = df[["x", "y"]].dropna()
    assert m.term_lambdas["bc(x + 1)"] == pytest.approx(bcs.fit(rows["x"] + 1).lmbda, abs=1e-12)
    with pytest.raises(BoxCoxError, match="missing"):
        bcs.lm("y ~ x", df, missing="raise")
    untouched = df.copy()
    bcs.lm("y ~ x", df)
    pd.testing.assert_frame_equal(df, untouched)


def test_bad_input_gives_clear_errors():
    df = _sim()
    df2 = df.assign(y=df["y"] - df["y"].median())
    with pytest.raises(BoxCoxError, match="strictly positive"):
        bcs.lm("y ~ x", df2)
    assert bcs.lm("y ~ x", df2, family="yeojohnson").family == "yeojohnson"
    with pytest.raises(BoxCoxError, match="cannot evaluate the formula"):
        bcs.lm("y ~ nosuchvariable", df)
    with pytest.raises(BoxCoxError, match="weights"):
        bcs.lm("y ~ x", df, weights=np.zeros(len(df)))
    with pytest.raises(BoxCoxError, match="not in the data"):
        bcs.lm("y ~ x", df, weights="w")
    with pytest.raises(BoxCoxError, match="strictly positive"):
        bcs.lm("y ~ bc(x - 1)", df)


def test_predict_round_trips_on_the_response_scale():
    df = _sim(lam=0.5, sigma=0.1)
    m = bcs.lm("y ~ x + C(g)", df)
    new = pd.DataFrame({"x": [0.1, 0.9, 1.7], "g": ["a", "b", "a"]}, index=[7, 8, 9])
    eta = m.predict(new, which="transformed")["fit"]
    med = m.predict(new, which="response")["fit"]
    assert list(med.index) == [7, 8, 9]
    np.testing.assert_allclose(transform(med.to_numpy(), m.lmbda, "boxcox"), eta.to_numpy(),
                               rtol=1e-12)
    np.testing.assert_allclose(m.predict(which="transformed")["fit"], m.ols.fittedvalues,
                               rtol=1e-12)


def test_mean_predictions_against_simulation_truth():
    """y = exp(1 + x + 0.8 e): the conditional mean is exp(1 + x + 0.32) (checked against
    mpmath quadrature in test_backtransform). Over 10 seeds at n = 3000 the estimates' error
    had sd about 2.2% per seed, so the average of 5 seeds has sd about 1%; 4% is allowed.
    The median is 27% below the mean, so the test tells the two apart."""
    new = pd.DataFrame({"x": [0.5, 1.0, 1.5]})
    truth = np.exp(1 + new["x"].to_numpy() + 0.32)
    errs = {"smearing": [], "normal": [], "median": []}
    for seed in range(5):
        rng = np.random.default_rng(seed)
        x = rng.uniform(0, 2, 3000)
        df = pd.DataFrame({"x": x, "y": np.exp(1 + x + 0.8 * rng.standard_normal(3000))})
        m = bcs.lm("y ~ x", df)
        errs["smearing"].append(m.predict(new, kind="mean")["fit"] / truth - 1)
        normal = m.predict(new, kind="mean", mean_estimator="normal")["fit"]
        errs["normal"].append(normal / truth - 1)
        errs["median"].append(m.predict(new)["fit"] / truth - 1)
    assert np.all(np.abs(np.mean(errs["smearing"], axis=0)) < 0.04)
    assert np.all(np.abs(np.mean(errs["normal"], axis=0)) < 0.04)
    assert np.all(np.mean(errs["median"], axis=0) < -0.2)


def test_predictor_powers_learned_on_train_applied_to_test():
    df = bcs.datasets.load("topgear")[["Price", "MPG", "Weight", "Displacement"]].dropna()
    train, test = df.iloc[::2], df.iloc[1::2]
    m = bcs.lm("Price ~ bc(MPG) + bc(Weight) + yj(Displacement)", train)
    lam = {k: bcs.fit(train[c], family=f).lmbda
           for k, c, f in [("bc(MPG)", "MPG", "boxcox"), ("bc(Weight)", "Weight", "boxcox"),
                           ("yj(Displacement)", "Displacement", "yeojohnson")]}
    assert m.term_lambdas == pytest.approx(lam, abs=1e-12)
    # the test split alone would give other powers, so reuse is visible
    assert abs(bcs.fit(test["MPG"]).lmbda - lam["bc(MPG)"]) > 1e-3
    b = m.ols.params
    eta = (b["Intercept"] + b["bc(MPG)"] * transform(test["MPG"], lam["bc(MPG)"])
           + b["bc(Weight)"] * transform(test["Weight"], lam["bc(Weight)"])
           + b["yj(Displacement)"] * transform(test["Displacement"], lam["yj(Displacement)"],
                                               "yeojohnson"))
    np.testing.assert_allclose(m.predict(test, which="transformed")["fit"], eta, rtol=1e-12)
    assert "bc(Weight)" in str(m.summary())


def test_summary_and_repr():
    m = bcs.lm("y ~ x + C(g)", _sim())
    text = str(m.summary())
    assert "Power transformations" in text and "Coefficients" in text
    assert "C(g)[T.b]" in text and "response" in text
    assert "<table" in m.summary()._repr_html_()
    assert repr(m).startswith("<LmResult 'y ~ x + C(g)': boxcox lmbda")


def test_weighted_fit_is_weighted_least_squares():
    df = _sim(seed=5)
    w = np.random.default_rng(5).uniform(0.5, 2, len(df))
    m = bcs.lm("y ~ x", df, weights=w)
    z = transform(df["y"].to_numpy(), m.lmbda)
    X = np.column_stack([np.ones(len(df)), df["x"]])
    beta = np.linalg.lstsq(X * np.sqrt(w)[:, None], z * np.sqrt(w), rcond=None)[0]
    np.testing.assert_allclose(m.ols.params.to_numpy(), beta, rtol=1e-10)
    assert "weighted least squares" in str(m.summary())


def test_profile_grid_covers_mass_grid_and_interval():
    m = bcs.lm("y ~ x", _sim())
    grid = m.profile()["lmbda"]
    lo, hi = m.power.conf_int().iloc[0]
    assert grid.min() <= min(-2, lo) and grid.max() >= max(2, hi)
    # lambda-hat is on the grid; evaluated there in a batch it may round differently from the
    # solver's own evaluation, by a few units in the last place (1e-13 relative seen)
    assert m.profile()["llf"].max() == pytest.approx(m.llf, rel=1e-12)


def test_degenerate_responses_are_refused():
    df = pd.DataFrame({"x": np.arange(1.0, 11.0)})
    with pytest.raises(BoxCoxError, match="constant"):
        bcs.lm("y ~ x", df.assign(y=3.0))
    with pytest.raises(BoxCoxError, match="fits the transformed response exactly"):
        bcs.lm("y ~ x", df.assign(y=np.exp(df["x"])))
    with pytest.raises(BoxCoxError, match="at least 3"):
        bcs.lm("y ~ x", df.assign(y=np.exp(df["x"])).head(2))
    with pytest.raises(BoxCoxError, match="no residual degrees of freedom"):
        bcs.lm("y ~ x + I(x**2)", df.assign(y=np.exp(df["x"])).head(3))


@pytest.mark.parametrize("weighted", [False, True])
def test_long_exact_fit_is_refused_and_a_near_one_is_not(weighted):
    """Beyond design.LONG_ROWS rows the exact-fit check reads the blocks' sums (no residual
    vectors, no intercept-only model of its own); it must still see y = exp(2x + 1) fitted
    exactly at lambda = 0, and not refuse the same with noise of 1e-6."""
    from boxcoxstat.core.design import LONG_ROWS

    n = LONG_ROWS + 100
    x = np.linspace(0.0, 1.0, n)
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"x": x, "w": rng.uniform(0.5, 2.0, n)})
    w = "w" if weighted else None
    with pytest.raises(BoxCoxError, match="fits the transformed response exactly"):
        bcs.lm("y ~ x", df.assign(y=np.exp(2 * x + 1)), weights=w)
    m = bcs.lm("y ~ x", df.assign(y=np.exp(2 * x + 1 + 1e-6 * rng.normal(size=n))),
               weights=w)
    assert abs(m.lmbda) < 0.05


def test_long_model_inference_starts_from_the_solvers_slope(monkeypatch):
    """Above SUBSAMPLE_FROM rows lm starts from a subsample and keeps the polish's slope, so
    the power's interval, standard error and tests take three evaluations of the response
    profile (the interval's first Newton points with the curvature, the tests, one Newton
    step; five before, two of them for the curvature's own differences). The results match
    the inference recomputed without the slope (the curvature by central differences, the
    interval by Newton from the quadratic guess) to 1e-9 relative (the curvature from the
    pair errs by about 1e-9 at this size, ``curvature.curvature_from_pair``)."""
    from boxcoxstat.core import inference as inf
    from boxcoxstat.core.profile import SUBSAMPLE_FROM
    from boxcoxstat.core.response import ResponseProfile

    n = SUBSAMPLE_FROM + 5_000
    rng = np.random.default_rng(8)
    x = rng.normal(size=n)
    df = pd.DataFrame({"x": x, "y": np.exp(1 + 0.3 * x + rng.normal(0, 0.4, n))})
    m = bcs.lm("y ~ x", df)
    calls = []
    evaluate = ResponseProfile.evaluate

    def counted(self, *args, **kwargs):
        calls.append(args[0])
        return evaluate(self, *args, **kwargs)

    monkeypatch.setattr(ResponseProfile, "evaluate", counted)
    lo, hi = m.power.conf_int().iloc[0]
    se = float(m.power.bse.iloc[0])
    lr0 = float(m.power.test(0).statistic)
    assert len(calls) == 3
    ref = inf.standard_inference(m.power._source.profile, np.array([m.lmbda]),
                                 m.power._nll_mle)
    assert se == pytest.approx(ref["bse"][0], rel=1e-9)
    assert lo == pytest.approx(ref["lower"][0], rel=1e-9)
    assert hi == pytest.approx(ref["upper"][0], rel=1e-9)
    assert lr0 == pytest.approx(ref["lr0"][0], rel=1e-9)


def test_polars_data_give_the_pandas_model():
    import polars as pl
    trees = bcs.datasets.load("trees")
    f = "Volume ~ np.log(Height) + np.log(Girth)"
    assert bcs.lm(f, pl.from_pandas(trees)).lmbda == pytest.approx(bcs.lm(f, trees).lmbda,
                                                                   rel=1e-13)


def test_predict_takes_polars_new_data_and_returns_polars():
    # issue 27: lm fitted polars frames but predict refused them ("must be a pandas DataFrame")
    import polars as pl
    trees = bcs.datasets.load("trees")
    m = bcs.lm("Volume ~ np.log(Height) + np.log(Girth)", pl.from_pandas(trees))
    new = pd.DataFrame({"Height": [70.0, 80.0, np.nan], "Girth": [10.0, 15.0, 12.0]})
    want = m.predict(new, interval="prediction")  # the row with a missing predictor: NaN
    got = m.predict(pl.from_pandas(new, nan_to_null=True), interval="prediction")
    assert isinstance(got, pl.DataFrame) and got.columns == ["fit", "lower", "upper"]
    # the same rows through the same arithmetic (pandas predictions are checked against R's
    # predict.lm in test_prediction.py)
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=1e-15)
def test_fixed_response_power_is_a_setting_of_the_result():
    """lm(..., lmbda=0), bc(y, lmbda=0) on the left and m.at(0) are one model: statsmodels'
    OLS of log y, its llf plus the Jacobian -sum(log y), AIC counting the coefficients and
    the variance only; the power's own inference is refused."""
    import statsmodels.formula.api as smf

    df = _sim(seed=9)
    a = bcs.lm("y ~ x + C(g)", df, lmbda=0)
    b = bcs.lm("bc(y, lmbda=0) ~ x + C(g)", df)
    c = bcs.lm("y ~ x + C(g)", df).at(0.0)
    ref = smf.ols("np.log(y) ~ x + C(g)", df).fit()
    want = ref.llf - np.log(df["y"]).sum()
    for m in (a, b, c):
        assert m.power.fixed and m.lmbda == 0.0
        assert m.llf == pytest.approx(want, rel=1e-10)
        np.testing.assert_allclose(m.params.to_numpy(), ref.params.to_numpy(), rtol=1e-10)
        assert m.aic == pytest.approx(-2 * want + 2 * 4, rel=1e-10)
        assert "fixed at 0 (given, not estimated" in str(m.summary())
        with pytest.raises(BoxCoxError, match="power was fixed at 0"):
            m.power.conf_int()
    assert repr(a).startswith("<LmResult 'y ~ x + C(g)': boxcox fixed 0.0000")
    with pytest.raises(BoxCoxError, match="contradicts the formula's response power"):
        bcs.lm("bc(y, lmbda=0) ~ x", df, lmbda=0.5)
    with pytest.raises(BoxCoxError, match="lmbda must be a finite number"):
        bcs.lm("y ~ x", df, lmbda=np.inf)
    with pytest.raises(BoxCoxError, match="lmbda='log' is not valid; use one of 'rounded'"):
        bcs.lm("y ~ x", df).at("log")
    with pytest.raises(BoxCoxError, match="lmbda must be a number or 'rounded'"):
        bcs.lm("y ~ x", df).at([0.0])
    with pytest.raises(BoxCoxError, match=r"at\('rounded'\) is not available"):
        a.at("rounded")


def test_predictor_powers_show_their_inference_in_the_summary():
    """bc()/yj() terms: SE, 95% profile interval and LR tests from the core's inference on
    the variable's own sample, the numbers bcs.fit gives for that variable."""
    df = bcs.datasets.load("topgear")[["Price", "MPG", "Weight"]].dropna()
    m = bcs.lm("Price ~ bc(MPG) + yj(Weight)", df)
    table = m.summary().tables[0][1]
    for term, col, fam in (("bc(MPG)", "MPG", "boxcox"), ("yj(Weight)", "Weight",
                                                         "yeojohnson")):
        r = bcs.fit(df[col], family=fam)
        lo, hi = r.conf_int().iloc[0]
        row = table.loc[term]
        # the same profile, interval and tests: to the solver's tolerance
        assert row["std err"] == pytest.approx(float(r.bse.iloc[0]), rel=1e-8)
        assert row["[0.025"] == pytest.approx(lo, abs=1e-9)
        assert row["0.975]"] == pytest.approx(hi, abs=1e-9)
        assert row["rounded"] == r.rounded
    tests = m.summary().tables[1][1]
    assert tests.loc["bc(MPG)", "LR(l=0)"] == pytest.approx(
        bcs.fit(df["MPG"]).test(0).statistic, rel=1e-9)


def test_profile_plot_zooms_on_a_given_grid_and_marks_a_fixed_power():
    import matplotlib.pyplot as plt

    m = bcs.lm("y ~ x", _sim())
    grid = np.linspace(-0.3, 0.3, 31)
    ax = m.plot_profile(lmbda=grid)
    x = ax.get_lines()[0].get_xdata()
    assert x.min() == pytest.approx(-0.3) and x.max() == pytest.approx(0.3)
    fixed = m.at(0).plot_profile()
    assert len(fixed.get_lines()) == 2 and "fixed" in fixed.get_title()
    res = m.plot_residuals()
    assert len(res.get_lines()) == 3  # points, zero line, lowess
    plt.close("all")
