"""``boxcoxstat.PowerTransformer`` beyond scikit-learn's behaviour (that is
``test_sklearn_port.py``): exact lambdas, the ``ymax`` bound, ``method="auto"``, robust
estimators, sample weights, the full result, JSON, DataFrame output, pipelines."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import polars as pl
import pytest
import sklearn
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.compose import TransformedTargetRegressor
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import PowerTransformer as SkPowerTransformer

import boxcoxstat as bcs
from boxcoxstat import PowerTransformer
from tests import mpref

RNG = np.random.default_rng(7)
X_POS = np.exp(RNG.normal(size=(200, 3)) * [0.3, 0.8, 1.2])


@pytest.mark.parametrize("row", mpref.table1(), ids=lambda r: f"{r['family']}-{r['data'][-1]}")
def test_table1_lambdas_are_exact_without_a_bound(row):
    """Xu & Cormode (2025), Table 1: with ymax=None lambdas_ is the exact optimum (mpmath,
    1e-10 relative); scikit-learn's is 15-100% off on these rows."""
    x = np.array(row["data"])[:, None]
    method = "box-cox" if row["family"] == "boxcox" else "yeo-johnson"
    pt = PowerTransformer(method, standardize=False, ymax=None).fit(x)
    exact = float(mpref.exact_lambda(x.ravel(), row["family"]))
    assert pt.lambdas_[0] == pytest.approx(exact, rel=1e-10)


def test_default_bound_keeps_table1_transform_finite_and_says_so():
    x = np.array([[0.1], [0.1], [0.1], [0.101]])
    pt = PowerTransformer("box-cox").fit(x)
    assert bool(pt.result_.bound_active)
    assert np.all(np.isfinite(pt.transform(x)))
    assert "bound active" in str(pt.result_.summary())
    unbounded = PowerTransformer("box-cox", standardize=False, ymax=None).fit(x)
    assert pt.result_.lmbda_mle[0] == pytest.approx(unbounded.lambdas_[0], rel=1e-12)


def test_lambdas_and_transform_agree_with_bcs_fit_and_scikit_learn():
    """Same numbers as ``bcs.fit`` (one core); scikit-learn's lambdas to its optimiser's
    tolerance (SciPy's Brent, about 1e-7 here)."""
    pt = PowerTransformer("box-cox", standardize=False).fit(X_POS)
    r = bcs.fit(X_POS, family="boxcox")
    assert_allclose(pt.lambdas_, r.lmbda, rtol=1e-13)
    assert_allclose(pt.transform(X_POS), r.transform(X_POS), rtol=1e-13)
    sk = SkPowerTransformer("box-cox").fit(X_POS)
    assert_allclose(pt.lambdas_, sk.lambdas_, atol=1e-6)
    ours = PowerTransformer("box-cox").fit(X_POS)
    assert_allclose(ours.transform(X_POS), sk.transform(X_POS), atol=1e-5)


def test_auto_chooses_the_family_per_feature_as_bcs_fit():
    X = np.column_stack([X_POS[:, 0], X_POS[:, 1] - 1.5, X_POS[:, 2]])
    pt = PowerTransformer("auto", standardize=False).fit(X)
    r = bcs.fit(X, family="auto")
    assert pt.families_ == tuple(r.family)
    assert pt.families_[1] == "yeojohnson"
    assert_allclose(pt.lambdas_, r.lmbda, rtol=1e-13)
    assert_allclose(pt.inverse_transform(pt.transform(X)), X, rtol=1e-10)


def test_rewml_is_bcs_fit_rewml_then_standardised():
    cars = bcs.datasets.load("topgear")[["MPG", "Weight"]].dropna()
    pt = PowerTransformer("box-cox", estimator="rewml").fit(cars)
    r = bcs.fit(cars, family="boxcox", method="rewml")
    assert_allclose(pt.lambdas_, r.lmbda.to_numpy(), rtol=1e-13)
    assert_array_equal(pt.result_.weights, r.weights.to_numpy())
    z = r.transform(cars).to_numpy()
    assert_allclose(pt.transform(cars), (z - z.mean(axis=0)) / z.std(axis=0), atol=1e-10)
    with pytest.raises(bcs.BoxCoxError, match="sample_weight needs estimator='mle'"):
        pt.fit(cars, sample_weight=np.ones(len(cars)))


def test_integer_sample_weights_are_repetitions():
    w = RNG.integers(0, 4, size=X_POS.shape[0])
    weighted = PowerTransformer().fit(X_POS, sample_weight=w)
    repeated = PowerTransformer().fit(np.repeat(X_POS, w, axis=0))
    assert_allclose(weighted.lambdas_, repeated.lambdas_, rtol=1e-10)
    assert_allclose(weighted.transform(X_POS), repeated.transform(X_POS), rtol=1e-9,
                    atol=1e-12)
    assert_allclose(weighted.result_.conf_int(), repeated.result_.conf_int(), rtol=1e-9)


def test_result_carries_inference_named_by_feature():
    df = pd.DataFrame(X_POS, columns=["a", "b", "c"])
    pt = PowerTransformer("box-cox").fit(df)
    ci = pt.result_.conf_int()
    assert list(ci.index) == ["a", "b", "c"] and list(ci.columns) == ["lower", "upper"]
    assert np.all((ci["lower"] < pt.lambdas_) & (pt.lambdas_ < ci["upper"]))
    t = pt.result_.test(1)
    assert isinstance(t, bcs.HypothesisTest) and list(t.statistic.index) == ["a", "b", "c"]
    assert "Box-Cox power transformation" in str(pt.result_.summary())


def test_json_round_trip_and_malformed_documents(tmp_path):
    df = pd.DataFrame(np.column_stack([X_POS, np.full(200, 3.0)]), columns=list("abcd"))
    pt = PowerTransformer().fit(df)  # d is constant: lambda 1, not in result_
    text = pt.to_json()
    path = tmp_path / "pt.json"
    path.write_text(text)
    for source in (text, json.loads(text), path):
        back = PowerTransformer.from_json(source)
        assert_allclose(back.transform(df), pt.transform(df), rtol=1e-14)
        assert_allclose(back.inverse_transform(pt.transform(df)), df, rtol=1e-10)
        assert list(back.get_feature_names_out()) == list("abcd")
        assert str(back.result_.summary()) == str(pt.result_.summary())
    doc = json.loads(text)
    with pytest.raises(bcs.BoxCoxError, match="field 'lambdas' is missing"):
        PowerTransformer.from_json({k: v for k, v in doc.items() if k != "lambdas"})
    with pytest.raises(bcs.BoxCoxError, match="field 'families'"):
        PowerTransformer.from_json({**doc, "families": ["boxcox"]})
    with pytest.raises(bcs.BoxCoxError, match="field 'fitted'"):
        PowerTransformer.from_json({**doc, "fitted": [0, 9]})


def test_set_output_keeps_names_for_pandas_and_polars():
    df = pl.DataFrame({"a": X_POS[:, 0], "b": X_POS[:, 1]})
    out = PowerTransformer().set_output(transform="polars").fit_transform(df)
    assert isinstance(out, pl.DataFrame) and out.columns == ["a", "b"]
    pt = PowerTransformer().set_output(transform="pandas").fit(df.to_pandas())
    out = pt.transform(df.to_pandas())
    assert isinstance(out, pd.DataFrame) and list(out.columns) == ["a", "b"]
    with sklearn.config_context(transform_output="polars"):
        assert isinstance(PowerTransformer().fit(df).transform(df), pl.DataFrame)
    # the default is scikit-learn's: NumPy out, whatever goes in
    assert isinstance(PowerTransformer().fit_transform(df), np.ndarray)


def test_pipelines_cross_validation_and_one_row_predict():
    rng = np.random.default_rng(3)
    X = np.exp(rng.normal(size=(120, 2)))
    y = np.log(X[:, 0]) + 0.1 * rng.normal(size=120)
    pipe = make_pipeline(PowerTransformer("box-cox"), LinearRegression())
    assert cross_val_score(pipe, X, y, cv=4).mean() > 0.9
    pipe.fit(X, y)
    assert pipe.predict(X[:1]).shape == (1,)
    ttr = TransformedTargetRegressor(LinearRegression(), transformer=PowerTransformer())
    ttr.fit(np.log(X), np.exp(y))
    assert ttr.predict(np.log(X[:1])).shape == (1,)
    assert clone(PowerTransformer("auto", ymax=None)).get_params()["ymax"] is None


def test_bad_settings_and_input_raise_the_package_error():
    with pytest.raises(bcs.BoxCoxError, match="method='yeo'"):
        PowerTransformer("yeo").fit(X_POS)
    with pytest.raises(bcs.BoxCoxError, match="ymax"):
        PowerTransformer(ymax=0.5).fit(X_POS)
    with pytest.raises(bcs.BoxCoxError, match="feature 'x0' has one sample"):
        PowerTransformer("box-cox").fit([[2.0, 1.0], [np.nan, 3.0]])
    with pytest.raises(bcs.BoxCoxError, match="differ only beyond the 12th"):
        PowerTransformer("box-cox").fit(np.c_[[1.0, 1.0 + 1e-14, 1.0]])
    X = X_POS.copy()
    PowerTransformer(copy=False).fit(X)
    assert_array_equal(X, X_POS)


def test_missing_extra_names_the_extra(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "sklearn", None)
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'boxcoxstat\[sklearn\]'"):
        bcs.PowerTransformer  # noqa: B018
    with pytest.raises(ModuleNotFoundError, match=r"boxcoxstat\[classify\]"):
        bcs.__getattr__("classify")


def test_robust_transformer_json_round_trip():
    cars = bcs.datasets.load("topgear")[["MPG", "Weight"]].dropna()
    pt = PowerTransformer("box-cox", estimator="rewml").fit(cars)
    back = PowerTransformer.from_json(pt.to_json())
    assert isinstance(back.result_, bcs.RobustTransformResult)
    assert_allclose(back.transform(cars), pt.transform(cars), rtol=1e-13)


def test_yeojohnson_features_on_tiny_scales_are_fitted_and_standardized():
    """Features of order 1e-200 were refused ("differ only beyond the 12th significant digit
    of 1 + |x|"), and standardizing them would have underflowed scikit-learn's variance
    (a scale of 1, the output left at 1e-200). The lambdas are bcs.fit's (checked against
    mpmath in tests/test_hostile_core.py); the output has mean 0 and variance 1 as for any
    feature, and inverse_transform returns the data."""
    rng = np.random.default_rng(41)
    a, b = rng.lognormal(size=300) - 0.5, rng.lognormal(size=300)
    X = np.column_stack([a * 1e-200, b, -b * 1e-100])
    pt = PowerTransformer().fit(X)
    for j in range(3):
        want = bcs.fit(X[:, j], family="yeojohnson").lmbda
        assert pt.lambdas_[j] == pytest.approx(want, rel=1e-12)  # the same solver, rounding
    Z = pt.transform(X)
    # 1e-12: two passes of rounding over 300 values of order one
    assert_allclose(Z.mean(axis=0), 0.0, atol=1e-12)
    assert_allclose(Z.std(axis=0), 1.0, rtol=1e-12)
    # the ordinary feature is transformed as it is alone (1e-13: the same arithmetic)
    assert_allclose(Z[:, 1], PowerTransformer().fit_transform(X[:, 1:2])[:, 0], atol=1e-13)
    # 1e-8: at the largest value lambda * log1p(x) is about -20, where the transform is
    # within e^-20 of its asymptote -1/lambda and inverting it magnifies rounding by ~e^20
    # (as at any scale: the same data times 1e-32 lose the same digits)
    assert_allclose(pt.inverse_transform(Z), X, rtol=1e-8)
