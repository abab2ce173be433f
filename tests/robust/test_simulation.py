"""The simulation of Raymaekers & Rousseeuw (2021), section 3.2, at a modest m."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
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


def test_tables_by_setting_and_estimator(yj):
    assert yj.table.index.names == ["lmbda", "epsilon", "k", "estimator"]
    assert list(yj.bias().columns) == ["mle", "carroll", "rewml"]
    # bias and MSE are the mean and mean square of the replications' errors
    est = yj.estimates["estimate"]
    err = est - est.index.get_level_values("lmbda")
    by = err.groupby(level=["lmbda", "epsilon", "k", "estimator"], sort=False)
    # a mean of 20 values: rounding only
    np.testing.assert_allclose(by.mean().to_numpy(), yj.table["bias"].to_numpy(), rtol=1e-12)
    np.testing.assert_allclose((err**2).groupby(level=[0, 1, 2, 3], sort=False).mean(),
                               yj.table["mse"].to_numpy(), rtol=1e-12)


def test_estimators_come_from_the_registry():
    sim = bcs.simulate("yeojohnson", lmbda=1.0, epsilon=0.1, k=10,
                       estimators=[("mtl", {"h": 0.9}), ("rewml", {"rectified": False})],
                       m=3, random_state=1, progress=False)
    assert list(sim.bias().columns) == ["mtl(h=0.9)", "rewml(rectified=False)"]
    assert sim.estimators["rewml(rectified=False)"] == {"method": "rewml",
                                                        "options": {"rectified": False}}
    labels = set(sim.estimates.index.get_level_values("estimator"))
    assert labels == {"mtl(h=0.9)", "rewml(rectified=False)"}


def test_summary_and_json_round_trip(yj, tmp_path):
    text = str(yj.summary())
    assert "Bias" in text and "MSE" in text and "lmbda=0.5, epsilon=0.1, k=10" in text
    assert "<table" in yj.summary().as_html() and "tabular" in yj.summary().as_latex()
    doc = yj.to_json()
    path = tmp_path / "sim.json"
    path.write_text(doc)
    for source in (doc, json.loads(doc), path, str(path)):
        back = bcs.SimulationResult.from_json(source)
        pd.testing.assert_frame_equal(back.table, yj.table)
        pd.testing.assert_frame_equal(back.estimates, yj.estimates)
        pd.testing.assert_frame_equal(back.bias(), yj.bias())
        assert (back.family, back.n, back.m, back.random_state) == ("yeojohnson", 100, 20, 7)
        assert str(back.summary()) == text


def test_malformed_json_names_the_field(yj):
    doc = json.loads(yj.to_json())
    with pytest.raises(bcs.BoxCoxError, match="'m'"):
        bcs.SimulationResult.from_json(dict(doc, m=0))
    table = dict(doc["table"], columns=["bias", "variance"])
    with pytest.raises(bcs.BoxCoxError, match="'table'"):
        bcs.SimulationResult.from_json(dict(doc, table=table))
    with pytest.raises(bcs.BoxCoxError, match="estimators"):
        bcs.SimulationResult.from_json(dict(doc, estimators={"mle": {}}))
    with pytest.raises(bcs.BoxCoxError, match="not a SimulationResult JSON document"):
        bcs.SimulationResult.from_json(dict(doc, format="boxcoxstat.SensitivityCurve"))


def test_clean_data_ml_is_nearly_unbiased():
    sim = bcs.simulate("yeojohnson", lmbda=1.0, epsilon=0.0, k=10, estimators=["mle"],
                       m=40, random_state=3, progress=False)
    # sd of the ML lambda at n = 100 is about 0.1, so the mean of 40 is within 0.1
    assert abs(sim.table["bias"].iloc[0]) < 0.1


def test_bad_arguments():
    with pytest.raises(bcs.BoxCoxError, match="epsilon"):
        bcs.simulate(epsilon=0.7, progress=False)
    with pytest.raises(bcs.BoxCoxError, match=r"lambda = 0 .* lambda = 1 .*\[0.5\]"):
        bcs.simulate("boxcox", lmbda=0.5, progress=False)
    with pytest.raises(bcs.BoxCoxError, match=r"unknown method 'nope'.*'carroll', 'mtl'"):
        bcs.simulate(estimators=["nope"], progress=False)
    with pytest.raises(bcs.BoxCoxError, match=r"method='mle' takes no options"):
        bcs.simulate(estimators=[("mle", {"h": 0.9})], progress=False)


def test_boxcox_lambda_one_truncated_design():
    # section 3.4: N(1, (1/3)^2) truncated to [0.01, 1.99], n points kept (rejection), so the
    # clean data are positive and symmetric about 1; outliers at 1 + k
    from boxcoxstat.robust.simulation import _truncated_normal

    y = _truncated_normal(np.random.default_rng(0), 100, 400)
    assert y.shape == (100, 400) and np.abs(y).max() <= 0.99
    # the sd of N(0, 1/9) truncated at +-2.97 sd is 0.32849 (scipy.stats.truncnorm); 40000
    # draws: the sd of the sample sd is about 0.0012
    assert y.std() == pytest.approx(0.32849, abs=0.005)
    sim = bcs.simulate("boxcox", lmbda=1.0, epsilon=(0.0, 0.1), k=10,
                       estimators=["mle", "carroll", "rewml"], m=10, random_state=5,
                       progress=False)
    bias = sim.bias().abs()
    # clean: ML and RewML recover lambda = 1 (sd of a mean of 10 estimates ~ 0.07); 10% at
    # x = 11: ML and Carroll break down (bias about -1.5), RewML does not (the paper, Fig. 8)
    assert (bias.loc[(1.0, 0.0, 10.0), ["mle", "rewml"]] < 0.2).all()
    assert (bias.loc[(1.0, 0.1, 10.0), ["mle", "carroll"]] > 1.0).all()
    assert bias.loc[(1.0, 0.1, 10.0), "rewml"] < 0.3
    assert "truncated" in str(sim.summary())
