"""boxcoxstat.univariate.results (``PowerTransformResult``): the report, immutability, JSON,
and refusals of its methods (profile, transform, conf_int)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs
from boxcoxstat import BoxCoxError


def test_summary_reports_everything(frame):
    r = bcs.fit(frame)
    text = str(r.summary())
    for token in ("lambda", "std err", "[0.025", "0.975]", "rounded", "LR(l=0)", "LR(l=1)",
                  "llf", "boxcox", "a", "b"):
        assert token in text
    assert f"{r.lmbda['a']:.4f}" in text
    html = r.summary()._repr_html_()
    assert html.count("<table") == 3
    from html.parser import HTMLParser

    HTMLParser().feed(html)


def test_result_is_immutable(frame):
    r = bcs.fit(frame["a"])
    with pytest.raises(AttributeError):
        r.lmbda_used = np.array([1.0])


def test_json_round_trip(frame):
    r = bcs.fit(frame, family="yeojohnson")
    r2 = bcs.PowerTransformResult.from_json(r.to_json())
    pd.testing.assert_series_equal(r2.lmbda, r.lmbda)
    pd.testing.assert_frame_equal(r2.transform(frame), r.transform(frame))
    pd.testing.assert_frame_equal(r2.conf_int(), r.conf_int())
    assert str(r2.summary()) == str(r.summary())
    with pytest.raises(BoxCoxError, match="not available: the result holds no data"):
        r2.conf_int(alpha=0.1)
    json.loads(r.to_json())


def test_unknown_column_and_wrong_shapes(frame):
    r = bcs.fit(frame)
    with pytest.raises(BoxCoxError, match="pass column="):
        r.profile()
    with pytest.raises(BoxCoxError, match="unknown column"):
        r.profile("zzz")
    with pytest.raises(BoxCoxError, match="lack column"):
        r.transform(frame[["a"]])
    with pytest.raises(BoxCoxError, match="interval"):
        r.conf_int(interval="bootstrap")
    with pytest.raises(BoxCoxError, match="alpha"):
        r.conf_int(alpha=1.5)


def test_rounded_power_by_rule_car_is_cars_rounded_pwr():
    # issue 27: car's rule on offer; powerTransform(trees$Girth) prints Rounded Pwr 1, while
    # the profile rule (rounded) gives -1/3 (car_rounding_reference.R)
    import json
    from pathlib import Path

    ref = json.loads((Path(__file__).parents[1] / "reference" / "car_rounding_reference.json")
                     .read_text())["cases"]["girth"]
    r = bcs.fit(bcs.datasets.load("trees")["Girth"])
    assert r.bse.iloc[0] == pytest.approx(ref["se"], rel=1e-3)  # car's numerical Hessian
    assert r.rounded_power(rule="car") == ref["rounded_pwr"]
    assert r.rounded_power() == r.rounded == pytest.approx(-1 / 3)
    assert "rounded_power(rule='car')" in str(r.summary())
    with pytest.raises(bcs.BoxCoxError, match="rule='nearest' is not valid"):
        r.rounded_power(rule="nearest")
