"""Every result class speaks the one vocabulary (issue: one result surface).

For each result the package returns -- fit (ML), federated and Dask fits, robust fits and
robust PCA, joint fits, linear models and their ``power``, bcnPower and fixed-shift fits,
Box-Tidwell, the inverse response, Guerrero, the spread-level result, classifier tuning,
sensitivity curves, simulations, and the test statistic itself -- this module checks the
shared surface:

* it is a ``ResultBase``; ``summary()`` is a ``Summary`` with text, HTML and LaTeX, and the
  result shows that HTML in a notebook; ``repr`` is one line;
* ``to_json()`` is strict JSON; ``from_json`` takes a string, a dict and a path and gives back
  the same report; a document without any one of its fields, of another format or not an
  object raises ``BoxCoxError`` naming what is wrong;
* ``params``, ``bse`` are Series with one index, ``conf_int()`` a DataFrame ``lower``,
  ``upper`` with that index, ``test()`` a ``HypothesisTest`` -- or, where a method does not
  apply, ``BoxCoxError`` saying "not available" and why;
* where a result has statsmodels' regression names (``model``, ``df_model``, ``df_resid``,
  ``ssr``, ``fvalue``, ``f_pvalue``, ``get_prediction``), they are the numbers of its
  statsmodels model, and ``get_prediction(...).summary_frame()`` has statsmodels' columns.

When a result class is added, add a builder to ``RESULTS``.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs
from boxcoxstat.base.results import HypothesisTest, ResultBase
from boxcoxstat.base.summary import Summary


def _fit():
    return bcs.fit(bcs.datasets.load("topgear")[["MPG", "Weight"]])


def _federated():
    x = np.random.default_rng(3).lognormal(size=300)
    return bcs.federated.fit(np.array_split(x, 5))


def _dask():
    import dask
    import dask.array as da

    with dask.config.set(scheduler="synchronous"):
        return bcs.fit(da.from_array(np.random.default_rng(4).lognormal(size=400), chunks=100))


def _robust():
    return bcs.fit(bcs.datasets.load("topgear")["MPG"], method="rewml")


def _robust_pca():
    rng = np.random.default_rng(5)
    t = rng.standard_normal((120, 2))
    x = np.column_stack([t[:, 0], t[:, 0] + t[:, 1], t[:, 1], 0.1 * rng.standard_normal(120)])
    x[:4, 3] += 4.0
    return bcs.robust_pca(x, n_components=2)


def _joint():
    return bcs.fit_joint(bcs.datasets.load("highway1"), ["len", "adt", "trks"],
                         design="~ htype")


def _lm():
    return bcs.lm("Volume ~ np.log(Height) + np.log(Girth)", bcs.datasets.load("trees"))


def _power():
    return _lm().power


def _fit_fixed():
    return bcs.fit(bcs.datasets.load("topgear")[["MPG", "Weight"]], lmbda=0)


def _lm_at_rounded():
    return _lm().at("rounded")


def _lm_fixed_with_terms():
    cars = bcs.datasets.load("topgear")[["Price", "MPG", "Weight", "Fuel"]].dropna()
    return bcs.lm("bc(Price, lmbda=0) ~ bc(MPG) + yj(Weight - 1500) + C(Fuel)", cars)


def _tuning():
    from boxcoxstat.classify import tune

    rng = np.random.default_rng(0)
    X = np.vstack([rng.lognormal(0, 0.5, (30, 2)), rng.lognormal(0.7, 0.5, (30, 2))])
    return tune(X, np.repeat([0, 1], 30), mode="spherical", criterion="fisher", search="grid")


def _sensitivity():
    return bcs.sensitivity_curve(["mle", "rewml"], "yeojohnson", z=[-8.0, 0.5, 8.0])


def _simulation():
    return bcs.simulate("yeojohnson", lmbda=1.0, epsilon=0.1, k=10, estimators=["mle"], m=3,
                        random_state=1, progress=False)


def _hypothesis_test():
    return _fit().test(0)


def _toolbox_data():
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"x": rng.uniform(1, 5, 80), "g": rng.choice(["a", "b"], 80)})
    df["y"] = np.exp(0.2 + 0.3 * df["x"] + 0.2 * rng.standard_normal(80))
    df["u"] = df["y"] - 1.5
    return df


RESULTS = {
    "PowerTransformResult": _fit,
    "PowerTransformResult (federated)": _federated,
    "PowerTransformResult (Dask)": _dask,
    "RobustTransformResult": _robust,
    "RobustPCAResult": _robust_pca,
    "JointTransformResult": _joint,
    "LmResult": _lm,
    "LmResult.power": _power,
    "PowerTransformResult (fixed power)": _fit_fixed,
    "LmResult.at('rounded')": _lm_at_rounded,
    "LmResult (fixed power, bc()/yj() terms)": _lm_fixed_with_terms,
    "TuningResult": _tuning,
    "SensitivityCurve": _sensitivity,
    "SimulationResult": _simulation,
    "HypothesisTest": _hypothesis_test,
    "PowerTransformResult (bcnpower)": lambda: bcs.fit(_toolbox_data()["u"],
                                                       family="bcnpower"),
    "PowerTransformResult (fixed shift)": lambda: bcs.fit(_toolbox_data()["u"], gamma=2.0),
    "LmResult (bcnpower)": lambda: bcs.lm("u ~ x", _toolbox_data(), family="bcnpower"),
    "BoxTidwellResult": lambda: bcs.box_tidwell("y ~ x", _toolbox_data(), other="~ g"),
    "InverseResponseResult": lambda: bcs.inverse_response(
        _toolbox_data()["y"] * 0.9 + 0.1, _toolbox_data()["y"]),
    "GuerreroResult": lambda: bcs.guerrero(_toolbox_data()["y"], 4),
    "SpreadLevelResult": lambda: bcs.spread_level(_toolbox_data()["y"],
                                                  np.repeat(np.arange(8), 10)),
}


@pytest.fixture(scope="module", params=list(RESULTS))
def result(request):
    return RESULTS[request.param]()


def _no_nan_tokens(text: str) -> None:
    def refuse(token: str) -> None:
        raise AssertionError(f"non-standard JSON token {token}")

    json.loads(text, parse_constant=refuse)


def test_every_result_has_the_shared_base_and_report(result):
    assert isinstance(result, ResultBase)
    s = result.summary()
    assert isinstance(s, Summary)
    for text in (s.as_text(), s.as_html(), s.as_latex()):
        assert isinstance(text, str) and len(text) > 40
    assert result._repr_html_() == s.as_html()
    assert "\n" not in repr(result)


def test_json_round_trip_from_text_dict_and_path(result, tmp_path):
    text = result.to_json()
    _no_nan_tokens(text)
    path = tmp_path / "result.json"
    path.write_text(text)
    cls = type(result)
    want = str(result.summary())
    for source in (text, json.loads(text), path, str(path)):
        back = cls.from_json(source)
        assert type(back) is cls
        assert str(back.summary()) == want


def test_malformed_documents_name_the_field(result):
    cls = type(result)
    doc = json.loads(result.to_json())
    for name in [k for k in doc if k not in ("format", "version")]:
        broken = {k: v for k, v in doc.items() if k != name}
        with pytest.raises(bcs.BoxCoxError, match=f"field '{name}' is missing"):
            cls.from_json(broken)
    with pytest.raises(bcs.BoxCoxError, match="format"):
        cls.from_json({**doc, "format": "boxcoxstat.Something"})
    with pytest.raises(bcs.BoxCoxError, match="version"):
        cls.from_json({**doc, "version": 99})
    for bad in ("[]", "[1, 2]", '{"format": ', "not json at all {", "3"):
        with pytest.raises(bcs.BoxCoxError):
            cls.from_json(bad)


def _available(call):
    """The method's value, or None when it raises the package's 'not available' error."""
    try:
        return call()
    except bcs.BoxCoxError as err:
        assert "not available" in str(err), str(err)
        return None


def test_estimates_intervals_and_tests_share_one_vocabulary(result):
    cls = type(result)
    if not hasattr(cls, "params"):
        return  # a sensitivity curve, a simulation, a test: no parameters
    params = result.params
    assert isinstance(params, pd.Series) and params.index.is_unique
    if hasattr(cls, "bse"):
        bse = _available(lambda: result.bse)
        if bse is not None:
            assert isinstance(bse, pd.Series) and list(bse.index) == list(params.index)
            assert np.all(np.isfinite(bse.to_numpy()))
    if hasattr(cls, "pvalues"):
        assert list(result.pvalues.index) == list(params.index)
    if hasattr(cls, "conf_int"):
        ci = _available(result.conf_int)
        if ci is not None:
            assert isinstance(ci, pd.DataFrame) and list(ci.columns) == ["lower", "upper"]
            assert list(ci.index) == list(params.index)
            assert np.all(ci["lower"].to_numpy() <= ci["upper"].to_numpy())
    if hasattr(cls, "test"):
        t = _available(lambda: result.test(0))
        if t is not None:
            assert isinstance(t, HypothesisTest)
            assert np.all(np.asarray(t.pvalue) >= 0) and t.df >= 1 and "lambda" in t.null


_SM_REGRESSION = ("df_model", "df_resid", "ssr", "fvalue", "f_pvalue")


def test_statsmodels_regression_names_are_its_statsmodels_models(result):
    """statsmodels' names mean statsmodels' numbers: those of ``result.model.fit()`` (the
    transformed response on the full design; an aliased column changes no fitted value, so
    the same numbers: 1e-10, two least-squares solutions)."""
    if not hasattr(type(result), "get_prediction"):
        return
    ref = result.model.fit()
    for name in _SM_REGRESSION:
        assert getattr(result, name) == pytest.approx(getattr(ref, name), rel=1e-10), name
    got = result.get_prediction(which="transformed").summary_frame()
    want = ref.get_prediction().summary_frame()
    assert list(got.columns) == list(want.columns) and list(got.index) == list(want.index)
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=1e-10)
    assert list(result.get_prediction().summary_frame().columns) == list(want.columns)


def test_a_loaded_result_refuses_what_needs_data_the_same_way(result):
    """A result rebuilt from JSON holds no data: what needs the data raises the package's
    error saying it is not available and why, never an internal exception."""
    back = type(result).from_json(result.to_json())
    for name in ("conf_int", "test", "profile"):
        if not hasattr(type(back), name):
            continue
        call = getattr(back, name)
        try:
            call(0.1) if name == "conf_int" else call(0.5) if name == "test" else call()
        except bcs.BoxCoxError as err:
            assert "not available" in str(err) or "pass column=" in str(err), str(err)
    if hasattr(type(back), "get_prediction"):  # statsmodels' names that need the data
        for call in (back.get_prediction, lambda: back.model, lambda: back.df_model,
                     lambda: back.fvalue, lambda: back.f_pvalue):
            with pytest.raises(bcs.BoxCoxError, match="not available"):
                call()
