"""The simulation of Raymaekers & Rousseeuw (2021), section 3.2, at a modest m."""

from __future__ import annotations

import numpy as np
import pytest

import boxcoxstat as bcs


@pytest.fixture(scope="module")
def yj():
    return bcs.simulate("yeojohnson", lmbda=(0.5, 1.0, 1.5), epsilon=0.1, k=10,
                        estimators=["mle", "carroll", "rewml"], m=20, random_state=7,
                        progress=False)


def test_rewml_beats_ml_and_carroll_yeojohnson(yj):
    bias, mse = yj.bias().abs(), yj.mse()
    for est in ("mle", "carroll"):
        assert (bias["rewml"] < bias[est]).all()
        assert (mse["rewml"] < mse[est]).all()
    assert (bias["rewml"] < 0.1).all()


def test_rewml_beats_ml_and_carroll_boxcox():
    sim = bcs.simulate("boxcox", lmbda=0.0, epsilon=0.1, k=10,
                       estimators=["mle", "carroll", "rewml"], m=20, random_state=7,
                       progress=False)
    bias, mse = sim.bias().abs().iloc[0], sim.mse().iloc[0]
    assert bias["rewml"] < min(bias["mle"], bias["carroll"])
    assert mse["rewml"] < min(mse["mle"], mse["carroll"])


def test_reproducible_and_independent_of_n_jobs(yj):
    again = bcs.simulate("yeojohnson", lmbda=(0.5, 1.0, 1.5), epsilon=0.1, k=10,
                         estimators=["mle", "carroll", "rewml"], m=20, random_state=7,
                         progress=False, n_jobs=2)
    np.testing.assert_array_equal(again.estimates["estimate"], yj.estimates["estimate"])
    assert yj.estimates.shape[0] == 3 * 3 * 20


def test_clean_data_ml_is_nearly_unbiased():
    sim = bcs.simulate("yeojohnson", lmbda=1.0, epsilon=0.0, k=10, estimators=["mle"],
                       m=40, random_state=3, progress=False)
    # sd of the ML lambda at n = 100 is about 0.1, so the mean of 40 is within 0.1
    assert abs(sim.table["bias"].iloc[0]) < 0.1


def test_bad_arguments():
    with pytest.raises(bcs.BoxCoxError, match="epsilon"):
        bcs.simulate(epsilon=0.7, progress=False)
    with pytest.raises(bcs.BoxCoxError, match="lambda = 0"):
        bcs.simulate("boxcox", lmbda=1.0, progress=False)
    with pytest.raises(bcs.BoxCoxError, match="unknown estimator"):
        bcs.simulate(estimators=["nope"], progress=False)
