"""TuningResult: transform, JSON, summary rendering and HTML display (plots:
test_plotting.py)."""

from __future__ import annotations

import json
import math
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from boxcoxstat import BoxCoxError
from boxcoxstat.classify import TuningResult, tune
from boxcoxstat.classify.search import SearchOutcome


def test_summary_text_and_html(data):
    res = tune(*data, mode="full", criterion="fisher", epochs=2)
    text = str(res.summary())
    assert "criterion" in text and "fisher" in text and "ML lambda" in text
    assert "Trace" in text and "improvement" in text
    assert res.summary().as_html().count("<table") == 3
    assert repr(res).startswith("<TuningResult full, criterion fisher, 2 features: score ")
    assert "\n" not in repr(res)


def test_summary_snapshot():
    """Fixed 1-D data: the text report, line by line."""
    X = np.array([[1.0], [1.1], [1.2], [1.9], [2.0], [2.2]])
    y = np.array([0, 0, 0, 1, 1, 1])
    res = tune(X, y, mode="spherical", criterion="fisher", search="grid",
               grid=[-1.0, 1.0, 3.0])
    lines = str(res.summary()).splitlines()
    assert lines[0] == "Box-Cox lambdas tuned for classification"
    assert lines[3].split() == ["criterion", "fisher"]
    assert lines[4].split() == ["mode", "spherical"]
    assert lines[5].split() == ["search", "grid"]
    assert lines[6].split() == ["rescaled", "after", "transform", "standard"]
    assert lines[7].split() == ["observations", "6"]
    assert lines[9].split() == ["tuned", "19.6000"]  # by hand: 0.25 * (2.0333 - 1.1)**2 / 0.011111
    assert lines[13].split() == ["lmbda", "ML", "lambda"]


# ---------------------------------------------------------------- display
class _Tables(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tables = 0
        self.cells: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tables += tag == "table"

    def handle_data(self, data):
        if data.strip():
            self.cells.append(data.strip())


def test_notebook_display_and_str_come_from_the_summary(data):
    res = tune(*data, mode="diagonal", criterion="fisher", search="grid")
    html = res._repr_html_()
    assert html == res.summary().as_html()
    parser = _Tables()
    parser.feed(html)
    assert parser.tables == 3
    assert "Box-Cox lambdas tuned for classification" in parser.cells
    assert {"criterion", "fisher", "diagonal", "grid", "x0", "x1"} <= set(parser.cells)
    assert str(res) == res.summary().as_text()


# ---------------------------------------------------------------- transform
def _made(layout: str = "array2d") -> TuningResult:
    """A result with chosen powers (2 and 0) and training ranges [0, 10] and [-1, 1]."""
    one = SearchOutcome(lmbda=np.array([2.0, 0.0]), score=1.0, trace_scores=np.array([1.0]),
                        trace_lmbda=np.array([[2.0, 0.0]]), evaluated=np.array([[2.0, 0.0]]),
                        evaluated_scores=np.array([1.0]))
    return TuningResult(
        names=("a", "b"), _layout=layout, _families=("boxcox", "boxcox"),
        _lmbda_used=np.array([2.0, 0.0]), criterion="fisher", mode="full", search="grid",
        baseline=0.5, score=1.0, ml_lmbda=np.array([1.0, 1.0]), outcomes=(one,),
        data_min=np.array([0.0, -1.0]), data_max=np.array([10.0, 1.0]),
        grid=np.array([0.0, 2.0]), nobs=10)


# By hand: a = 5 -> 1.5 -> (1.5**2 - 1)/2 = 0.625; a = 12 and 10 -> 2 (clipped) -> 1.5;
# b = 0 -> 1.5 -> log 1.5; b = -3 -> 1 (clipped) -> 0; b = 1 -> 2 -> log 2.
_NEW = np.array([[5.0, 0.0], [12.0, -3.0], [10.0, 1.0]])
_EXPECTED = np.array([[0.625, math.log(1.5)], [1.5, 0.0], [1.5, math.log(2.0)]])


def test_transform_scales_clips_and_applies_the_powers():
    # rtol: the package's expm1/log form and the direct formula differ by a few ulps
    np.testing.assert_allclose(_made().transform(_NEW), _EXPECTED, rtol=1e-12, atol=1e-15)


def test_transform_keeps_the_layout_nan_and_matches_frames_by_name():
    res = _made("frame")
    df = pd.DataFrame({"b": [0.0, np.nan], "a": [5.0, 12.0], "other": ["u", "v"]},
                      index=["r1", "r2"])
    out = res.transform(df)
    assert list(out.columns) == ["a", "b"] and list(out.index) == ["r1", "r2"]
    np.testing.assert_allclose(out.to_numpy(), [[0.625, math.log(1.5)], [1.5, np.nan]],
                               rtol=1e-12)  # as above: a few ulps between the two forms
    assert isinstance(res.lmbda, pd.Series) and list(res.lmbda) == [2.0, 0.0]
    assert isinstance(_made().lmbda, np.ndarray)
    assert list(res.params.index) == ["a", "b"] and res.params.name == "lmbda"


def test_inverse_transform_undoes_transform_inside_the_training_range():
    inside = np.array([[5.0, 0.0], [0.5, -0.9], [9.0, 0.7]])
    res = _made()
    # rtol: a round trip through log and exp loses a few ulps
    np.testing.assert_allclose(res.inverse_transform(res.transform(inside)), inside,
                               rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(("bad", "says"), [
    (np.ones((2, 3)), "3 column(s) given, but the result has 2 columns"),
    (np.ones(2), "1-D data given"),
    ([[np.inf, 1.0]], "infinite"),
    (pd.DataFrame({"a": [1.0]}), "lack column(s) ['b']"),
    ([["x", "y"]], "numeric"),
])
def test_transform_refuses_data_that_do_not_fit(bad, says):
    with pytest.raises(BoxCoxError) as info:
        _made().transform(bad)
    assert says in str(info.value)


# ---------------------------------------------------------------- JSON
@pytest.fixture(scope="module")
def diagonal(data):
    X = pd.DataFrame(data[0], columns=["lon", "lat"])
    return tune(X, data[1], mode="diagonal", criterion="fisher", epochs=2), X


def test_json_round_trip_from_str_dict_and_path(diagonal, tmp_path):
    res, X = diagonal
    text = res.to_json()
    json.loads(text, parse_constant=lambda token: pytest.fail(f"not strict JSON: {token}"))
    path = tmp_path / "tuning.json"
    path.write_text(text, encoding="utf-8")
    for source in (text, json.loads(text), path, str(path)):
        back = TuningResult.from_json(source)
        pd.testing.assert_frame_equal(back.transform(X), res.transform(X))
        pd.testing.assert_series_equal(back.params, res.params)
        assert str(back.summary()) == str(res.summary())
        assert len(back.outcomes) == 2 and isinstance(back.outcomes, tuple)
        for b, o in zip(back.outcomes, res.outcomes, strict=True):
            np.testing.assert_array_equal(b.evaluated, o.evaluated)
            np.testing.assert_array_equal(b.trace_lmbda, o.trace_lmbda)
            assert b.score == o.score
        pd.testing.assert_frame_equal(back.trace, res.trace)


@pytest.mark.parametrize("mode", ["spherical", "full"])
def test_json_round_trip_of_the_other_modes(data, mode):
    res = tune(*data, mode=mode, criterion="fisher", search="grid", grid=[-1.0, 1.0, 3.0])
    back = TuningResult.from_json(res.to_json())
    np.testing.assert_array_equal(back.transform(data[0]), res.transform(data[0]))
    pd.testing.assert_frame_equal(back.evaluations, res.evaluations)
    assert repr(back) == repr(res)


def _doc(res: TuningResult) -> dict:
    return json.loads(res.to_json())


def _refused(doc, *fragments: str) -> None:
    with pytest.raises(BoxCoxError) as info:
        TuningResult.from_json(doc)
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)


def test_malformed_documents_name_the_field(diagonal):
    res, _ = diagonal
    doc = _doc(res)
    del doc["criterion"]
    _refused(doc, "TuningResult JSON field 'criterion' is missing")
    _refused({**_doc(res), "nobs": "120"}, "field 'nobs'", "expected an integer")
    _refused({**_doc(res), "mode": "round"}, "field 'mode'", "spherical")
    _refused({**_doc(res), "lmbda_used": ["a", 1.0]}, "field 'lmbda_used'", "expected a number")
    _refused({**_doc(res), "outcomes": {}}, "field 'outcomes'", "list of objects")
    _refused({**_doc(res), "format": "boxcoxstat.PowerTransformResult"}, "field 'format'")
    _refused("[]", "not a TuningResult JSON document: expected an object")
    text = res.to_json()
    _refused(text[: len(text) // 2], "not a valid TuningResult JSON document")


def test_lists_of_different_lengths_name_the_field(diagonal):
    res, _ = diagonal
    doc = _doc(res)
    doc["data_min"] = doc["data_min"][:1]
    _refused(doc, "field 'data_min' has 1 entries but 'names' has 2")
    doc = _doc(res)
    doc["outcomes"][1]["trace_scores"].append(1.0)
    _refused(doc, "field 'outcomes': item 1: SearchOutcome JSON field 'trace_lmbda' has 2 "
             "entries but 'trace_scores' has 3")
    doc = _doc(res)
    doc["outcomes"][0]["evaluated_scores"].pop()
    _refused(doc, "item 0: SearchOutcome JSON field 'evaluated_scores'", "'evaluated'")


def test_documents_that_disagree_with_themselves_are_refused(diagonal):
    res, _ = diagonal
    doc = _doc(res)
    doc["outcomes"] = doc["outcomes"][:1]
    _refused(doc, "field 'outcomes' must hold 2 search(es) for mode 'diagonal'")
    doc = _doc(res)
    doc["mode"] = "full"
    _refused(doc, "field 'outcomes' must hold 1 search(es)")
    doc = _doc(res)
    doc["outcomes"][0]["evaluated"] = [[1.0, 2.0]] * len(doc["outcomes"][0]["evaluated"])
    _refused(doc, "item 0: SearchOutcome JSON document: field 'evaluated' must have 1 columns")
    _refused({**_doc(res), "lmbda_used": [None, 1.0]}, "field 'lmbda_used'", "finite numbers")
    _refused({**_doc(res), "ml_lmbda": ["Infinity", 1.0]}, "field 'ml_lmbda'", "finite")
    _refused({**_doc(res), "data_min": [100.0, 100.0]}, "'data_min' exceeds 'data_max'")
    _refused({**_doc(res), "families": ["boxcox", "yeojohnson"]}, "field 'families'")
    _refused({**_doc(res), "layout": "array1d"}, "field 'layout'")
    _refused({**_doc(res), "grid": []}, "field 'grid'")
