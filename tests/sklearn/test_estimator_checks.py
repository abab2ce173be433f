"""scikit-learn's ``check_estimator`` on the transformer (four configurations) and the
target regressor (two): every check passes, except those named with their reason."""

from __future__ import annotations

import warnings

import pytest
from sklearn.utils.estimator_checks import check_estimator

from boxcoxstat import BoxCoxRegressor, PowerTransformer

_NO_WEIGHTS = "the robust estimators take no sample_weight (raises BoxCoxError saying so)"
ROBUST_EXPECTED = {name: _NO_WEIGHTS for name in (
    "check_sample_weights_pandas_series", "check_sample_weights_not_an_array",
    "check_sample_weights_list", "check_all_zero_sample_weights_error",
    "check_sample_weights_shape", "check_sample_weights_not_overwritten",
    "check_sample_weight_equivalence_on_dense_data")}

CASES = [
    (PowerTransformer(), None),
    (PowerTransformer(standardize=False, ymax=None), None),
    (PowerTransformer("auto"), None),
    (PowerTransformer(estimator="rewml"), ROBUST_EXPECTED),
    (BoxCoxRegressor(), None),
    (BoxCoxRegressor(family="yeojohnson", kind="mean"), None),
]


@pytest.mark.parametrize(("estimator", "expected"), CASES, ids=[repr(c[0]) for c in CASES])
def test_check_estimator(estimator, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checks provoke warnings on purpose
        results = check_estimator(estimator, expected_failed_checks=expected, on_fail=None)
    failed = [(r["check_name"], str(r["exception"])[:200]) for r in results
              if r["status"] == "failed"]
    assert not failed
    assert sum(r["status"] == "passed" for r in results) >= 40
    if expected:
        xfailed = {r["check_name"] for r in results if r["status"] == "xfail"}
        assert xfailed == set(expected)
