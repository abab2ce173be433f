"""Every result class speaks one vocabulary (issue 11): params / bse / pvalues are Series on
one index, conf_int(alpha) a DataFrame lower/upper on that index, test() a HypothesisTest,
summary() a Summary (text, HTML, LaTeX) also shown in notebooks, to_json / from_json(str |
dict | path) round trips, and a malformed document raises BoxCoxError naming the field.
A method that does not apply raises BoxCoxError saying why.

Classes covered here: the fit results of every family (bcnPower included), lm, fit_joint,
Box-Tidwell, the inverse response, Guerrero and the spread-level result. When a result class
is added to the package, add a factory here.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs
from boxcoxstat.base.summary import Summary


def _data():
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"x": rng.uniform(1, 5, 80), "g": rng.choice(["a", "b"], 80)})
    df["y"] = np.exp(0.2 + 0.3 * df["x"] + 0.2 * rng.standard_normal(80))
    df["u"] = df["y"] - 1.5
    return df


FACTORIES = {
    "fit boxcox": lambda d: bcs.fit(d[["y", "x"]]),
    "fit bcnpower": lambda d: bcs.fit(d["u"], family="bcnpower"),
    "fit shifted": lambda d: bcs.fit(d["u"], gamma=2.0),
    "lm": lambda d: bcs.lm("y ~ x + g", d),
    "lm bcnpower": lambda d: bcs.lm("u ~ x", d, family="bcnpower"),
    "fit_joint": lambda d: bcs.fit_joint(d, ["y", "x"]),
    "box_tidwell": lambda d: bcs.box_tidwell("y ~ x", d, other="~ g"),
    "inverse_response": lambda d: bcs.inverse_response(d["y"] * 0.9 + 0.1, d["y"]),
    "guerrero": lambda d: bcs.guerrero(d["y"], 4),
    "spread_level": lambda d: bcs.spread_level(d["y"], np.repeat(np.arange(8), 10)),
}


@pytest.fixture(scope="module")
def results():
    d = _data()
    return {k: f(d) for k, f in FACTORIES.items()}


def _maybe(fn):
    try:
        return fn()
    except bcs.BoxCoxError as err:
        assert "is not available" in str(err)
        return None


@pytest.mark.parametrize("name", list(FACTORIES))
def test_vocabulary(results, name):
    r = results[name]
    params = r.params
    assert isinstance(params, pd.Series)
    for attr in ("bse", "pvalues"):
        if hasattr(type(r), attr):
            val = _maybe(lambda attr=attr: getattr(r, attr))
            if val is not None:
                assert isinstance(val, pd.Series) and list(val.index) == list(params.index)
    ci = _maybe(lambda: r.conf_int(0.1))
    if ci is not None:
        assert isinstance(ci, pd.DataFrame) and list(ci.columns) == ["lower", "upper"]
        assert list(ci.index) == list(params.index)
        assert np.all(ci["lower"].to_numpy() <= ci["upper"].to_numpy())
    if hasattr(r, "test"):
        t = _maybe(lambda: r.test(1))
        if t is not None:
            assert isinstance(t, bcs.HypothesisTest)
    s = r.summary()
    assert isinstance(s, Summary)
    assert s.as_text() and s.as_html().startswith("<h4>") and s.as_latex()
    assert r._repr_html_() == s.as_html()


@pytest.mark.parametrize("name", list(FACTORIES))
def test_json(results, name, tmp_path):
    r = results[name]
    cls = type(r)
    text = r.to_json()
    path = tmp_path / "r.json"
    path.write_text(text)
    for source in (text, json.loads(text), path):
        back = cls.from_json(source)
        assert str(back.summary()) == str(r.summary())
        pd.testing.assert_series_equal(back.params, r.params)
    doc = json.loads(text)
    field = next(k for k in doc if k not in ("format", "version"))
    doc[field] = {"not": "valid"}
    with pytest.raises(bcs.BoxCoxError, match=field):
        cls.from_json(doc)
