"""scikit-learn's own PowerTransformer tests, run against ``boxcoxstat.PowerTransformer``.

Ported from scikit-learn 1.9.1, ``sklearn/preprocessing/tests/test_data.py`` (BSD-3-Clause;
tests ``test_power_transformer_*``, ``test_optimization_power_transformer``,
``test_invserse_box_cox``, ``test_yeo_johnson_darwin_example``, ``test_one_to_one_features*``,
``test_yeojohnson_for_different_scipy_version``, ``test_transformer_inverse_transform_*``):
the same data (``X_2d`` generated from ``RandomState(0)`` exactly as there) and the same
assertions, re-written here. Where scikit-learn compares with SciPy's Brent lambda, our lambda
is the exact one (tolerances: SciPy's lambda is within about 2e-8 of it on these data), so the
test checks ours against mpmath (``tests/mpref.py``) and SciPy's transform at *our* lambda; it
says so where it does. ``power_transform`` (scikit-learn's function form) has no counterpart
here, so those lines are not ported.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_almost_equal, assert_array_equal
from scipy import stats
from sklearn.datasets import load_iris
from sklearn.exceptions import NotFittedError
from sklearn.preprocessing import scale
from sklearn.utils import shuffle

from boxcoxstat import PowerTransformer
from tests import mpref

# scikit-learn's module-level data, generated the same way
_rng = np.random.RandomState(0)
n_features = 30
n_samples = 1000
offsets = _rng.uniform(-1, 1, size=n_features)
scales = _rng.uniform(1, 10, size=n_features)
X_2d = _rng.randn(n_samples, n_features) * scales + offsets
X_1col = X_2d[:, 0].reshape(n_samples, 1)
METHODS = ["box-cox", "yeo-johnson"]


@pytest.mark.parametrize("method", METHODS)
def test_power_transformer_notfitted(method):
    pt = PowerTransformer(method=method)
    X = np.abs(X_1col)
    with pytest.raises(NotFittedError):
        pt.transform(X)
    with pytest.raises(NotFittedError):
        pt.inverse_transform(X)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("standardize", [True, False])
@pytest.mark.parametrize("X", [X_1col, X_2d])
def test_power_transformer_inverse(method, standardize, X):
    X = np.abs(X) if method == "box-cox" else X
    pt = PowerTransformer(method=method, standardize=standardize)
    X_trans = pt.fit_transform(X)
    assert_almost_equal(X, pt.inverse_transform(X_trans))


@pytest.mark.parametrize("standardize", [True, False])
def test_power_transformer_1d(standardize):
    """Lambda against SciPy (to 7 decimals, as scikit-learn) and against mpmath (1e-10
    relative: ours is the exact optimum); the transform against SciPy's at our lambda."""
    X = np.abs(X_1col)
    pt = PowerTransformer(method="box-cox", standardize=standardize)
    X_trans = pt.fit_transform(X)
    _, lambda_scipy = stats.boxcox(X.flatten())
    assert_almost_equal(lambda_scipy, pt.lambdas_[0])
    exact = float(mpref.exact_lambda(X.ravel(), "boxcox"))
    assert pt.lambdas_[0] == pytest.approx(exact, rel=1e-10)
    X_expected = stats.boxcox(X.flatten(), lmbda=pt.lambdas_[0])
    if standardize:
        X_expected = scale(X_expected)
    assert_almost_equal(X_expected.reshape(-1, 1), X_trans)
    assert_almost_equal(X, pt.inverse_transform(X_trans))
    assert len(pt.lambdas_) == X.shape[1]
    assert isinstance(pt.lambdas_, np.ndarray)


@pytest.mark.parametrize("standardize", [True, False])
def test_power_transformer_2d(standardize):
    """As scikit-learn's, with the transform checked at our lambda (see the module note) and
    two columns' lambdas against mpmath."""
    X = np.abs(X_2d)
    pt = PowerTransformer(method="box-cox", standardize=standardize)
    X_trans = pt.fit_transform(X)
    for j in range(X_trans.shape[1]):
        _, lmbda = stats.boxcox(X[:, j].flatten())
        assert_almost_equal(lmbda, pt.lambdas_[j])
        X_expected = stats.boxcox(X[:, j], lmbda=pt.lambdas_[j])
        if standardize:
            X_expected = scale(X_expected)
        assert_almost_equal(X_trans[:, j], X_expected)
    for j in (0, 17):
        exact = float(mpref.exact_lambda(X[:, j], "boxcox"))
        assert pt.lambdas_[j] == pytest.approx(exact, rel=1e-10)
    assert_almost_equal(pt.inverse_transform(X_trans), X)
    assert len(pt.lambdas_) == X.shape[1]
    assert isinstance(pt.lambdas_, np.ndarray)


def test_power_transformer_boxcox_strictly_positive_exception():
    pt = PowerTransformer(method="box-cox")
    pt.fit(np.abs(X_2d))
    for bad in (X_2d, np.zeros(X_2d.shape)):
        with pytest.raises(ValueError, match="strictly positive"):
            pt.transform(bad)
        with pytest.raises(ValueError, match="strictly positive"):
            PowerTransformer(method="box-cox").fit(bad)


@pytest.mark.parametrize("X", [X_2d, np.abs(X_2d), -np.abs(X_2d), np.zeros(X_2d.shape)])
def test_power_transformer_yeojohnson_any_input(X):
    out = PowerTransformer(method="yeo-johnson").fit_transform(X)
    assert np.all(np.isfinite(out))


@pytest.mark.parametrize("method", METHODS)
def test_power_transformer_shape_exception(method):
    pt = PowerTransformer(method=method).fit(np.abs(X_2d))
    msg = r"X has \d+ features, but PowerTransformer is expecting \d+ features"
    with pytest.raises(ValueError, match=msg):
        pt.transform(np.abs(X_2d)[:, 0:1])
    with pytest.raises(ValueError, match=msg):
        pt.inverse_transform(np.abs(X_2d)[:, 0:1])


def test_power_transformer_lambda_zero():
    X = np.abs(X_2d)[:, 0:1]
    pt = PowerTransformer(method="box-cox", standardize=False).fit(X)
    pt.lambdas_ = np.array([0])
    assert_almost_equal(pt.inverse_transform(pt.transform(X)), X)


def test_power_transformer_lambda_one():
    pt = PowerTransformer(method="yeo-johnson", standardize=False)
    X = np.abs(X_2d)[:, 0:1]
    pt.fit(X)
    pt.lambdas_ = np.array([1])
    assert_almost_equal(pt.transform(X), X)


@pytest.mark.parametrize("method, lmbda", [("box-cox", 0.1), ("box-cox", 0.5),
                                           ("yeo-johnson", 0.1), ("yeo-johnson", 0.5),
                                           ("yeo-johnson", 1.0)])
def test_optimization_power_transformer(method, lmbda):
    """Recover a known lambda: inverse-transform normal draws, refit, get normal draws back."""
    rng = np.random.RandomState(0)
    X = rng.normal(loc=0, scale=1, size=(20000, 1))
    if method == "box-cox":
        X = np.clip(X, -1 / lmbda + 1e-5, None)
    pt = PowerTransformer(method=method, standardize=False).fit(np.abs(X) + 1e-3)
    pt.lambdas_ = [lmbda]
    X_inv = pt.inverse_transform(X)
    X_inv_trans = PowerTransformer(method=method, standardize=False).fit_transform(X_inv)
    assert_almost_equal(0, np.linalg.norm(X - X_inv_trans) / 20000, decimal=2)
    assert_almost_equal(0, X_inv_trans.mean(), decimal=1)
    assert_almost_equal(1, X_inv_trans.std(), decimal=1)


def test_invserse_box_cox():
    """Outside the range the inverse is NaN, as scikit-learn's; ours also warns, naming the
    column."""
    pt = PowerTransformer(method="box-cox", standardize=False).fit([[1.0], [2.0]])
    pt.lambdas_ = [0.5]
    with pytest.warns(UserWarning, match="outside the range"):
        X_inv = pt.inverse_transform([[-2.1]])
    assert np.isnan(X_inv)


def test_yeo_johnson_darwin_example():
    """Yeo & Johnson (2000)'s Darwin data: lambda 1.305 (paper), and the exact optimum."""
    X = np.array([6.1, -8.4, 1.0, 2.0, 0.7, 2.9, 3.5, 5.1, 1.8, 3.6, 7.0, 3.0, 9.3, 7.5,
                  -6.0]).reshape(-1, 1)
    lmbda = PowerTransformer(method="yeo-johnson").fit(X).lambdas_
    assert np.allclose(lmbda, 1.305, atol=1e-3)
    assert lmbda[0] == pytest.approx(float(mpref.exact_lambda(X.ravel(), "yeojohnson")),
                                     rel=1e-10)


@pytest.mark.parametrize("method", METHODS)
def test_power_transformer_nans(method):
    X = np.abs(X_1col)
    pt = PowerTransformer(method=method).fit(X)
    lmbda_no_nans = pt.lambdas_[0]
    X = shuffle(np.concatenate([X, np.full_like(X, np.nan)]), random_state=0)
    pt.fit(X)
    # scikit-learn asserts 5 decimals; the estimate does not depend on the row order or the
    # missing rows, so it agrees to rounding
    assert pt.lambdas_[0] == pytest.approx(lmbda_no_nans, rel=1e-12)
    assert_array_equal(np.isnan(pt.transform(X)), np.isnan(X))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("standardize", [True, False])
def test_power_transformer_fit_transform(method, standardize):
    X = np.abs(X_1col) if method == "box-cox" else X_1col
    pt = PowerTransformer(method, standardize=standardize)
    assert_almost_equal(pt.fit(X).transform(X), pt.fit_transform(X))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("standardize", [True, False])
def test_power_transformer_copy_True(method, standardize):
    X = np.abs(X_1col) if method == "box-cox" else X_1col.copy()
    X_original = X.copy()
    pt = PowerTransformer(method, standardize=standardize, copy=True)
    pt.fit(X)
    assert_array_equal(X, X_original)
    X_trans = pt.transform(X)
    assert X_trans is not X
    X_trans = pt.fit_transform(X)
    assert_array_equal(X, X_original)
    assert X_trans is not X
    assert pt.inverse_transform(X_trans) is not X_trans


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("standardize", [True, False])
def test_power_transformer_copy_False(method, standardize):
    X = np.abs(X_1col) if method == "box-cox" else X_1col.copy()
    X_original = X.copy()
    pt = PowerTransformer(method, standardize=standardize, copy=False)
    pt.fit(X)
    assert_array_equal(X, X_original)  # fit never changes X
    assert pt.transform(X) is X
    X = np.abs(X_original) if method == "box-cox" else X_original.copy()
    X_trans = pt.fit_transform(X)
    assert X_trans is X
    assert pt.inverse_transform(X_trans) is X_trans


def test_power_transformer_box_cox_raise_all_nans_col():
    """Non-regression test for scikit-learn gh-26303."""
    X = np.random.RandomState(0).random_sample((4, 5))
    X[:, 0] = np.nan
    with pytest.raises(ValueError, match="Column must not be all nan."):
        PowerTransformer(method="box-cox").fit_transform(X)


def test_power_transformer_significantly_non_gaussian():
    """Non-regression test for scikit-learn gh-14959."""
    X = 1e6 * np.array([0.6, 2.0, 3.0, 4.0] * 4 + [11, 12, 12, 16, 17, 20, 85, 90],
                       dtype=np.float64).reshape(-1, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        X_trans = PowerTransformer().fit_transform(X)
    assert not np.any(np.isnan(X_trans))
    assert X_trans.mean() == pytest.approx(0.0)
    assert X_trans.std() == pytest.approx(1.0)
    assert X_trans.min() > -2
    assert X_trans.max() < 2


def test_one_to_one_features():
    iris = load_iris()
    tr = PowerTransformer().fit(iris.data)
    assert_array_equal(tr.get_feature_names_out(iris.feature_names), iris.feature_names)


def test_one_to_one_features_pandas():
    iris = load_iris()
    df = pd.DataFrame(iris.data, columns=iris.feature_names)
    tr = PowerTransformer().fit(df)
    assert_array_equal(tr.get_feature_names_out(), iris.feature_names)
    assert_array_equal(tr.get_feature_names_out(iris.feature_names), iris.feature_names)
    msg = re.escape("input_features is not equal to feature_names_in_")
    with pytest.raises(ValueError, match=msg):
        tr.get_feature_names_out(list("abcd"))


@pytest.mark.parametrize("standardize", [True, False])
def test_power_transformer_constant_feature(standardize):
    X = [[-2, 0, 2], [-2, 0, 2], [-2, 0, 2]]
    pt = PowerTransformer(method="yeo-johnson", standardize=standardize).fit(X)
    assert_allclose(pt.lambdas_, [1, 1, 1])
    for Xt in (pt.fit_transform(X), pt.transform(X)):
        if standardize:
            assert_allclose(Xt, np.zeros_like(X), atol=1e-14)
        else:
            assert_allclose(Xt, X)


def test_yeo_johnson_inverse_transform_warning():
    """A value with no inverse gives NaN and a warning (scikit-learn's text is "Some values
    in column 0 ... are NaN"; ours names the column and why)."""
    trans = PowerTransformer(method="yeo-johnson")
    trans.fit(np.array([1, 1, 1e10]).reshape(-1, 1))
    assert trans.lambdas_[0] < 0
    with pytest.warns(UserWarning, match="column 'x0'.*no inverse"):
        x_inv = trans.inverse_transform(np.array([10.0]).reshape(-1, 1)).item()
    assert np.isnan(x_inv)


def test_power_transformer_no_warnings():
    """Non-regression test for scikit-learn gh-23319 (overflow in the Yeo-Johnson fit)."""
    x = np.array([2003.0, 1950.0, 1997.0, 2000.0, 2009.0, 2009.0, 1980.0, 1999.0, 2007.0,
                  1991.0])
    for data in (x.reshape(-1, 1), x[:5].reshape(-1, 1)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            PowerTransformer(method="yeo-johnson", standardize=True).fit_transform(data)
        assert not caught, [str(w.message) for w in caught]


def test_yeojohnson_for_different_scipy_version():
    """scikit-learn's test has no ``assert`` on this line; here it asserts, and against the
    exact optimum as well."""
    pt = PowerTransformer(method="yeo-johnson").fit(X_1col)
    assert pt.lambdas_[0] == pytest.approx(0.99546157, rel=1e-7)
    assert pt.lambdas_[0] == pytest.approx(float(mpref.exact_lambda(X_1col.ravel(),
                                                                    "yeojohnson")), rel=1e-10)


def test_transformer_inverse_transform_feature_names_warning():
    """Non-regression test for scikit-learn gh-31947."""
    X_df = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [4.0, 5.0, 6.0]})
    transformer = PowerTransformer().fit(X_df)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        transformer.inverse_transform(X_df.to_numpy())


def test_transformer_inverse_transform_shape_error():
    transformer = PowerTransformer().fit(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    msg = "X has 1 features, but PowerTransformer is expecting 2 features"
    with pytest.raises(ValueError, match=msg):
        transformer.inverse_transform(np.array([[1.0], [2.0], [3.0]]))
