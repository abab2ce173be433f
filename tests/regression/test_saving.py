"""Saving a fitted model: JSON and pickle, loaded in a fresh Python process.

``predict`` after loading must equal ``predict`` before, for every option, so each test
writes the model and the expected predictions to files and runs a new interpreter that
loads and predicts. The comparison allows 1e-13 relative: the loaded model repeats the same
arithmetic on the same numbers (JSON keeps float64 exactly), so only a different BLAS
reduction order could move the last bits.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf

import boxcoxstat as bcs
from boxcoxstat import bc  # noqa: F401  (used by the smf formula below)

ROOT = Path(__file__).resolve().parent.parent.parent
OPTIONS = [
    {},
    {"interval": "prediction"},
    {"interval": "confidence", "alpha": 0.1},
    {"interval": "prediction", "include_lambda_uncertainty": True},
    {"interval": "confidence", "include_lambda_uncertainty": True},
    {"kind": "mean"},
    {"kind": "mean", "mean_estimator": "normal", "interval": "prediction"},
    {"which": "transformed", "interval": "prediction"},
]
FORMULA = "Price ~ bc(MPG) + yj(Displacement - 2000) + C(Fuel) + center(Weight)"


def _run(script: str, tmp_path: Path) -> str:
    """Run ``script`` in a new interpreter that finds this checkout's package."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(script))
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                         env=env, cwd=tmp_path, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


@pytest.fixture(scope="module")
def model_and_data():
    cars = bcs.datasets.load("topgear")[["Price", "MPG", "Weight", "Displacement", "Fuel"]]
    cars = cars.dropna()
    train, test = cars.iloc[::2], cars.iloc[1::2].copy()
    test = test[["Weight", "Fuel", "MPG", "Displacement"]]  # another column order
    test.iloc[3, 0] = np.nan  # a missing predictor: NaN in place
    test.iloc[5, 2] = -1.0  # an MPG outside bc()'s domain: NaN in place
    return bcs.lm(FORMULA, train), test


def _expected(m, test):
    with pytest.warns(UserWarning):
        return [m.predict(test, **o) for o in OPTIONS]


@pytest.fixture(scope="module")
def fresh(model_and_data, tmp_path_factory):
    """Everything saved here, then loaded by one new interpreter (one start-up for all)."""
    m, test = model_and_data
    tmp = tmp_path_factory.mktemp("saved")
    (tmp / "model.json").write_text(m.to_json())
    with open(tmp / "m.pkl", "wb") as fh:
        pickle.dump(m, fh)
    m.ols.save(str(tmp / "ols.pkl"))
    test.to_pickle(tmp / "new.pkl")
    # a user's own smf.ols result with a bc() term
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.lognormal(size=60)})
    df["y"] = np.log(df["x"]) + 0.1 * rng.standard_normal(60)
    fit = smf.ols("y ~ bc(x)", df).fit()
    fit.save(str(tmp / "smf.pkl"))
    small = pd.DataFrame({"x": [0.5, 2.0]})
    small.to_pickle(tmp / "small.pkl")
    with pytest.warns(UserWarning, match="bc\\(\\) term"):
        ols_pred = m.ols.predict(test)
    with open(tmp / "expected.pkl", "wb") as fh:
        pickle.dump({"options": OPTIONS, "predictions": _expected(m, test),
                     "report": str(m.summary()), "ols": ols_pred,
                     "log_params": m.at(0).params, "smf": fit.predict(small)}, fh)
    # the JSON and the pickles are loaded before anything imports bc; the last part is a
    # user's smf model, which needs bc in scope (statsmodels evaluates its formula again)
    out = _run("""
        import pickle, warnings
        import pandas as pd
        warnings.simplefilter("ignore", UserWarning)
        want = pickle.load(open("expected.pkl", "rb"))
        new = pd.read_pickle("new.pkl")

        import boxcoxstat as bcs
        m = bcs.LmResult.from_json("model.json")
        assert str(m.summary()) == want["report"]
        for o, expected in zip(want["options"], want["predictions"]):
            pd.testing.assert_frame_equal(m.predict(new, **o), expected, rtol=1e-13, atol=0)
        print("json: predictions equal", len(want["options"]))

        m = pickle.load(open("m.pkl", "rb"))
        ols = pickle.load(open("ols.pkl", "rb"))
        pd.testing.assert_frame_equal(m.predict(new), want["predictions"][0], rtol=1e-13,
                                      atol=0)
        pd.testing.assert_frame_equal(
            m.predict(new, interval="prediction", include_lambda_uncertainty=True),
            want["predictions"][3], rtol=1e-13, atol=0)
        pd.testing.assert_series_equal(ols.predict(new), want["ols"], rtol=1e-13, atol=0)
        pd.testing.assert_series_equal(m.at(0).params, want["log_params"], rtol=1e-13,
                                       atol=0)
        print("pickle: loads and predicts")

        import statsmodels.api as sm
        from boxcoxstat import bc
        fit = sm.load("smf.pkl")
        pd.testing.assert_series_equal(fit.predict(pd.read_pickle("small.pkl")), want["smf"],
                                       rtol=1e-13, atol=0)
        print("smf: loads and predicts")
    """, tmp)
    return out


def test_json_round_trip_predicts_the_same_in_a_fresh_process(fresh):
    assert f"json: predictions equal {len(OPTIONS)}" in fresh


def test_pickled_result_and_refit_load_without_importing_bc(fresh):
    """A pickled LmResult keeps its data (it can still refit and plot); its statsmodels
    refit pickles its formula design, so the loading script needs no ``bc`` in scope."""
    assert "pickle: loads and predicts" in fresh


def test_statsmodels_model_with_bc_terms_loads_where_bc_is_in_scope(fresh):
    """A user's own smf.ols('y ~ bc(x)') result: statsmodels rebuilds its design by evaluating
    the formula again when it is loaded, so the loading script imports bc (as for any
    function in a statsmodels formula); the power is learned again on the same saved rows,
    so predictions are unchanged."""
    assert "smf: loads and predicts" in fresh


def test_loaded_result_refuses_what_needs_the_data(model_and_data):
    m, test = model_and_data
    back = bcs.LmResult.from_json(m.to_json())
    for call, what in ((lambda: back.at(0), "at"), (lambda: back.ols, "ols"),
                       (back.predict, "predict\\(\\) without new data"),
                       (back.qqplot, "qqplot")):
        with pytest.raises(bcs.BoxCoxError, match=f"LmResult.{what} is not available"):
            call()
    fixed = bcs.LmResult.from_json(m.at(0).to_json())
    assert fixed.power.fixed and fixed.mixture is None
    with pytest.raises(bcs.BoxCoxError, match="power was fixed at 0"):
        fixed.predict(test.head(2), interval="prediction", include_lambda_uncertainty=True)


def test_a_formula_with_a_session_function_cannot_be_saved_and_says_why():
    def halve(v):
        return v / 2

    df = bcs.datasets.load("trees")
    m = bcs.lm("Volume ~ halve(Girth)", df)
    assert np.isfinite(m.lmbda)
    with pytest.raises(bcs.BoxCoxError, match=r"calls 'halve'.*cannot be saved"):
        m.to_json()
