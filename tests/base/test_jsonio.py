"""Tests for boxcoxstat.base.jsonio: every codec, strict JSON, and every malformed document.

A small result class declares one field of each codec; the reference values are the literal
values the tests build, never something the code under test computed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import boxcoxstat as bcs
from boxcoxstat import BoxCoxError
from boxcoxstat.base import jsonio
from boxcoxstat.base.jsonio import saved
from boxcoxstat.base.results import ResultBase
from boxcoxstat.base.summary import Summary


@dataclass(frozen=True, repr=False)
class Inner(ResultBase):
    """A result saved inside another (the ``Nested`` codec)."""

    label: str = saved(jsonio.Str())
    value: float = saved(jsonio.Float())

    def summary(self) -> Summary:
        return Summary("Inner", [("", pd.DataFrame({"value": [self.value]}, index=[self.label]))])


@dataclass(frozen=True, repr=False)
class Everything(ResultBase):
    """One saved field per codec, plus a field that is not saved."""

    names: tuple[str, ...] = saved(jsonio.Strs())
    x: float = saved(jsonio.Float())
    n: int = saved(jsonio.Int(minimum=1))
    flag: bool = saved(jsonio.Bool())
    side: str = saved(jsonio.Str(choices=("left", "right")))
    values: Any = saved(jsonio.Floats(length_of="names"))
    counts: Any = saved(jsonio.Ints(length_of="names"))
    mask: Any = saved(jsonio.Bools(length_of="names"))
    limits: Any = saved(jsonio.Matrix(length_of="names"))
    extra: Any = saved(jsonio.Mapping_())
    table: Any = saved(jsonio.Frame())
    inner: Any = saved(jsonio.Nested(Inner))
    parts: tuple[Inner, ...] = saved(jsonio.Nesteds(Inner, length_of="names"))
    maybe: float | None = saved(jsonio.Float(optional=True), default=None)
    data: Any = None  # not saved: None after loading

    def summary(self) -> Summary:
        return Summary("Everything", [("", pd.DataFrame({"values": self.values},
                                                         index=list(self.names)))])


def _table() -> pd.DataFrame:
    return pd.DataFrame({"lo": [1.5, -2.0], "hi": [np.nan, np.inf]},
                        index=pd.Index(["a", "b"], name="column"))


def _everything(**changes: Any) -> Everything:
    kw: dict[str, Any] = dict(
        names=("a", "b"), x=0.25, n=3, flag=True, side="left",
        values=np.array([1.0, -2.5]), counts=np.array([4, 5]), mask=np.array([True, False]),
        limits=np.array([[-1.0, 1.0], [-3.0, 3.0]]), extra={"c": 0.5, "steps": [1, 2]},
        table=_table(), inner=Inner("k", 7.0), parts=(Inner("p", 1.0), Inner("q", -1.0)),
        maybe=2.0, data=np.ones(3))
    kw.update(changes)
    return Everything(**kw)


def _doc(**changes: Any) -> dict[str, Any]:
    """A valid document (as a dict) with some fields replaced."""
    doc = json.loads(_everything().to_json())
    doc.update(changes)
    return doc


def _refuses(source: Any, *fragments: str) -> str:
    """``Everything.from_json(source)`` raises BoxCoxError whose message has every fragment."""
    with pytest.raises(BoxCoxError) as info:
        Everything.from_json(source)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, message
    return message


# ---------------------------------------------------------------- regressions (issue 11)
def test_float_beyond_float64_is_refused_gh11():
    """An integer literal too large for a float raised OverflowError instead of the error."""
    _refuses(_doc(x=10**400), "field 'x'", "float64 range")
    _refuses(_doc(values=[1.0, 10**400]), "field 'values'", "float64 range")


def test_integer_beyond_int64_is_refused_gh11():
    """An integer array entry beyond int64 raised OverflowError from NumPy."""
    _refuses(_doc(counts=[1, 2**70]), "field 'counts'", "64-bit range")
    _refuses(_doc(n=2**64), "field 'n'", "64-bit range")


def test_matrix_rows_without_columns_keep_their_count_gh11():
    """``[[], []]`` was read as a (0, 0) matrix, so a (2, 0) field failed its length check."""
    back = Everything.from_json(_everything(limits=np.empty((2, 0))).to_json())
    assert back.limits.shape == (2, 0)
    frame = pd.DataFrame(index=pd.Index(["a", "b", "c"]))
    back = Everything.from_json(_everything(table=frame).to_json())
    assert back.table.shape == (3, 0) and list(back.table.index) == ["a", "b", "c"]


def test_mapping_with_non_finite_numbers_is_strict_json_gh11():
    """A NaN or infinity in a Mapping_ field made to_json raise ValueError."""
    r = _everything(extra={"bound": np.inf, "low": -np.inf, "gap": np.nan,
                           "n": np.int64(3), "pair": (1.0, np.float64(2.0))})
    text = r.to_json()
    back = Everything.from_json(text)
    assert back.extra == {"bound": np.inf, "low": -np.inf, "gap": None, "n": 3,
                          "pair": [1.0, 2.0]}


def test_frame_index_entries_must_match_the_index_names_gh11():
    """A MultiIndex frame with a scalar index entry raised TypeError."""
    two = pd.DataFrame({"v": [1.0]}, index=pd.MultiIndex.from_tuples([("a", 1)],
                                                                     names=["k", "m"]))
    table = jsonio.Frame().encode(two)
    assert Everything.from_json(_doc(table=table)).table.index.names == ["k", "m"]
    _refuses(_doc(table={**table, "index": [5]}), "field 'table'", "2 labels")
    _refuses(_doc(table={**table, "index_names": [1, 2]}), "field 'table'", "index_names")
    _refuses(_doc(table={**table, "data": 0}), "field 'table'", "expected a list")


def test_nested_field_must_be_an_object_gh11():
    """A string in a Nested field was taken as JSON text or a file path."""
    _refuses(_doc(inner="inner.json"), "field 'inner'", "expected an object")


def test_a_missing_file_is_named_gh11(tmp_path):
    """A path that does not exist gave a JSON syntax error about 'char 0'."""
    missing = str(tmp_path / "result.json")
    _refuses(missing, "result.json", "neither JSON text nor the path of an existing file")


def test_json_text_with_a_byte_order_mark_loads_gh27(tmp_path):
    """A BOM before the JSON text (str, bytes or file) is dropped; main raised OSError ("File
    name too long") for the str and refused the bytes and the file as invalid JSON."""
    r = _everything()
    text = r.to_json()
    path = tmp_path / "bom.json"
    path.write_text(text, encoding="utf-8-sig")  # as Windows editors save
    for source in ("\ufeff" + text, ("\ufeff" + text).encode("utf-8"), path, str(path)):
        _assert_same(Everything.from_json(source), r)


@pytest.mark.parametrize("text", ["\ufeff" + "x" * 300, "y" * 300, "\ufeff", "\ufeff{"])
def test_a_string_that_is_neither_json_nor_a_file_is_the_package_error_gh27(text):
    """Names longer than the OS allows raised OSError from the path check on main."""
    _refuses(text, "Everything")


def test_a_file_naming_itself_is_read_once(tmp_path, monkeypatch):
    """A path is followed once: a file whose text is a file name is not JSON."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "loop.json").write_text("loop.json", encoding="utf-8")
    _refuses("loop.json", "not a valid Everything JSON document")


def test_a_string_that_parses_as_json_is_never_a_path_gh27(tmp_path, monkeypatch):
    """A file named like a JSON value does not shadow the value."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "3").write_text(_everything().to_json(), encoding="utf-8")
    _refuses("3", "expected an object, got int")


def test_every_result_class_reads_through_the_one_parser_gh27():
    """Every from_json is ResultBase's (jsonio.load, whose _parse drops the BOM), or
    PowerTransformer's, which also calls jsonio.load: a BOM document loads in both."""
    import inspect

    import boxcoxstat as bcs

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    own = [c for c in subclasses(ResultBase)
           if c.from_json.__func__ is not ResultBase.from_json.__func__]
    assert own == []
    assert "jsonio.load(" in inspect.getsource(bcs.PowerTransformer.from_json)
    x = np.random.default_rng(0).lognormal(size=40)[:, None]
    pt = bcs.PowerTransformer().fit(x)
    back = bcs.PowerTransformer.from_json("\ufeff" + pt.to_json())
    np.testing.assert_array_equal(back.lambdas_, pt.lambdas_)  # JSON floats round-trip


def test_an_unknown_format_names_the_field_gh11():
    """The format error now names the field 'format'."""
    _refuses(_doc(format="boxcoxstat.Other"), "field 'format'", "boxcoxstat.Other",
             "boxcoxstat.Everything")


def test_a_codec_first_option_is_positional_gh11():
    """``Nested(Inner)`` set ``optional=Inner`` and left ``cls`` None (AttributeError on load)."""
    assert jsonio.Nested(Inner).cls is Inner and jsonio.Nested(Inner).optional is False
    assert jsonio.Strs("names").length_of == "names"
    assert Everything.from_json(_everything().to_json()).inner.value == 7.0


# ---------------------------------------------------------------- round trips
def _assert_same(back: Everything, r: Everything) -> None:
    assert back.names == r.names and back.side == r.side and back.flag is r.flag
    assert back.x == r.x and back.n == r.n and back.maybe == r.maybe
    np.testing.assert_array_equal(back.values, r.values)
    np.testing.assert_array_equal(back.counts, r.counts)
    np.testing.assert_array_equal(back.mask, r.mask)
    np.testing.assert_array_equal(back.limits, r.limits)
    assert back.counts.dtype == np.int64 and back.mask.dtype == bool
    assert back.extra == json.loads(json.dumps(r.extra))  # tuples come back as lists
    pd.testing.assert_frame_equal(back.table, r.table)
    assert (back.inner.label, back.inner.value) == (r.inner.label, r.inner.value)
    assert [(q.label, q.value) for q in back.parts] == [(q.label, q.value) for q in r.parts]
    assert isinstance(back.parts, tuple)
    assert back.data is None  # not saved


def test_every_codec_round_trips_from_str_dict_bytes_and_paths(tmp_path):
    r = _everything()
    text = r.to_json()
    path = tmp_path / "everything.json"
    path.write_text(text, encoding="utf-8")
    for source in (text, json.loads(text), text.encode("utf-8"), path, str(path)):
        _assert_same(Everything.from_json(source), r)


def test_the_document_names_its_format_and_version():
    doc = json.loads(_everything().to_json())
    assert doc["format"] == "boxcoxstat.Everything" and doc["version"] == 1
    assert doc["inner"]["format"] == "boxcoxstat.Inner"
    assert "data" not in doc  # only saved fields are written


def test_optional_field_may_be_null_and_defaults():
    back = Everything.from_json(_everything(maybe=None).to_json())
    assert back.maybe is None
    assert json.loads(_everything(maybe=None).to_json())["maybe"] is None


def test_empty_arrays_round_trip():
    r = _everything(names=(), values=np.array([]), counts=np.array([], dtype=np.int64),
                    mask=np.array([], dtype=bool), limits=np.empty((0, 2)), parts=())
    back = Everything.from_json(r.to_json())
    assert back.values.shape == (0,) and back.limits.shape == (0, 0) and back.parts == ()


def _no_constants(token: str) -> Any:
    raise AssertionError(f"not strict JSON: {token}")


def test_non_finite_numbers_are_strict_json_and_read_back():
    r = _everything(x=np.nan, values=np.array([np.inf, -np.inf]),
                    limits=np.array([[np.nan, 1.0], [-np.inf, np.inf]]), maybe=-np.inf,
                    extra={"b": np.inf})
    text = r.to_json()
    doc = json.loads(text, parse_constant=_no_constants)  # no NaN/Infinity tokens
    assert doc["x"] is None and doc["values"] == ["Infinity", "-Infinity"]
    back = Everything.from_json(text)
    assert np.isnan(back.x) and back.maybe == -np.inf and back.extra == {"b": np.inf}
    np.testing.assert_array_equal(back.values, [np.inf, -np.inf])
    np.testing.assert_array_equal(back.limits, [[np.nan, 1.0], [-np.inf, np.inf]])
    assert np.isnan(back.table.loc["a", "hi"]) and back.table.loc["b", "hi"] == np.inf


# ---------------------------------------------------------------- malformed documents
@pytest.mark.parametrize("name", ["names", "x", "n", "flag", "side", "values", "counts", "mask",
                                  "limits", "extra", "table", "inner", "parts"])
def test_a_missing_field_is_named(name):
    doc = _doc()
    del doc[name]
    _refuses(doc, f"field {name!r} is missing")


@pytest.mark.parametrize(("name", "bad", "says"), [
    ("names", "a", "list of strings"),
    ("names", ["a", 1], "list of strings"),
    ("x", "0.25", "expected a number"),
    ("x", True, "expected a number"),
    ("n", 3.0, "expected an integer"),
    ("n", 0, "integer >= 1"),
    ("flag", 1, "true or false"),
    ("side", "up", "one of ['left', 'right']"),
    ("values", [1.0, "2"], "expected a number"),
    ("counts", [1, 2.5], "expected an integer"),
    ("mask", [True, 0], "true or false"),
    ("extra", [1, 2], "expected an object"),
    ("table", {"columns": []}, "expected an object with"),
    ("inner", [], "expected an object"),
    ("inner", {"format": "boxcoxstat.Inner", "version": 1, "label": "k"},
     "Inner JSON field 'value' is missing"),
    ("parts", {}, "expected a list of objects"),
    ("parts", [{"format": "boxcoxstat.Inner", "version": 1, "label": "k", "value": "v"},
               {}], "item 0: Inner JSON field 'value'"),
    ("maybe", "x", "expected a number"),
])
def test_a_wrong_type_is_named(name, bad, says):
    _refuses(_doc(**{name: bad}), f"field {name!r}", says)


@pytest.mark.parametrize(("name", "bad"), [
    ("values", [[1.0], [2.0]]),           # one level too deep
    ("limits", [1.0, 2.0]),               # one level too shallow
    ("limits", [[1.0, 2.0], [3.0]]),      # ragged rows
    ("limits", [[1.0, [2.0]], [3.0, 4.0]]),
])
def test_wrong_nesting_is_named(name, bad):
    _refuses(_doc(**{name: bad}), f"field {name!r}")


@pytest.mark.parametrize("name", ["values", "counts", "mask", "limits", "parts"])
def test_a_length_mismatch_names_both_fields(name):
    doc = _doc()
    doc[name] = doc[name][:1]
    _refuses(doc, f"field {name!r} has 1 entries but 'names' has 2")


@pytest.mark.parametrize("version", [None, 0, 2, "1", True, 1.0])
def test_an_unknown_version_is_named(version):
    doc = _doc(version=version)
    if version is None:
        del doc["version"]
    _refuses(doc, "field 'version'", "from 1 to 1")


@pytest.mark.parametrize("fmt", [None, "boxcoxstat.Inner", "Everything", 3])
def test_an_unknown_format_is_refused(fmt):
    doc = _doc(format=fmt)
    if fmt is None:
        del doc["format"]
    _refuses(doc, "not a Everything JSON document", "field 'format'")


@pytest.mark.parametrize("text", ["[]", "3", '"text"', "null", "[{}]"])
def test_a_top_level_that_is_not_an_object_is_refused(text):
    _refuses(text, "not a Everything JSON document: expected an object")


@pytest.mark.parametrize("text", ['{"format": "boxcoxstat.Everything", "vers', "{", "{]",
                                  '{"a": 1,}'])
def test_invalid_json_is_refused(text):
    _refuses(text, "not a valid Everything JSON document")


def test_a_truncated_document_is_refused():
    text = _everything().to_json()
    for cut in (1, len(text) // 2, len(text) - 1):
        _refuses(text[:cut], "not a valid Everything JSON document")


def test_deeply_nested_json_is_refused():
    _refuses('{"extra": ' + "[" * 100_000 + "]" * 100_000 + "}",
             "not a valid Everything JSON document")
    deep: Any = 1.0
    for _ in range(100_000):
        deep = [deep]
    _refuses(_doc(extra={"deep": deep}), "field 'extra' is nested too deeply")


def test_other_sources_are_refused(tmp_path):
    _refuses(12, "takes a JSON string, a dict or a path, got int")
    _refuses(tmp_path, "cannot read")  # a directory
    _refuses("not json", "neither JSON text nor the path of an existing file")


def test_the_first_wrong_field_is_named_in_declaration_order():
    _refuses(_doc(x="bad", side="up"), "field 'x'")


# ---------------------------------------------------------------- finite= and Nesteds
@dataclass(frozen=True, repr=False)
class Finite(ResultBase):
    level: float = saved(jsonio.Float(finite=True))
    powers: Any = saved(jsonio.Floats(finite=True))
    box: Any = saved(jsonio.Matrix(finite=True))


@pytest.mark.parametrize(("name", "bad"), [
    ("level", None), ("level", "Infinity"), ("powers", [1.0, None]),
    ("powers", [1.0, "-Infinity"]), ("box", [[1.0, 2.0], [None, 1.0]]),
])
def test_finite_fields_refuse_nan_and_infinities(name, bad):
    good = {"format": "boxcoxstat.Finite", "version": 1, "level": 0.5, "powers": [1.0, 2.0],
            "box": [[0.0, 1.0], [2.0, 3.0]]}
    assert Finite.from_json(good).level == 0.5
    with pytest.raises(BoxCoxError, match=f"Finite JSON field '{name}': expected (a )?finite"):
        Finite.from_json({**good, name: bad})


def test_nesteds_is_a_tuple_of_documents():
    doc = _doc()
    assert [p["format"] for p in doc["parts"]] == ["boxcoxstat.Inner"] * 2
    assert [p["value"] for p in doc["parts"]] == [1.0, -1.0]


# ---------------------------------------------------------------- properties
@dataclass(frozen=True, repr=False)
class Vector(ResultBase):
    labels: tuple[str, ...] = saved(jsonio.Strs())
    values: Any = saved(jsonio.Floats(length_of="labels"))
    scalar: float = saved(jsonio.Float())


@given(st.lists(st.tuples(st.text(), st.floats()), max_size=20), st.floats())
def test_any_floats_and_strings_round_trip(pairs, scalar):
    labels = tuple(t for t, _ in pairs)
    values = np.array([v for _, v in pairs], dtype=np.float64)
    text = Vector(labels, values, scalar).to_json()
    json.loads(text, parse_constant=_no_constants)
    back = Vector.from_json(text)
    assert back.labels == labels
    np.testing.assert_array_equal(back.values, values)  # NaN equals NaN here
    assert back.scalar == scalar or (np.isnan(scalar) and np.isnan(back.scalar))


# ---------------------------------------------------------------- documents of older code
_OLD = json.loads((Path(__file__).parent / "data" / "d03779f_documents.json").read_text())


@pytest.mark.parametrize("key", list(_OLD["results"]))
def test_documents_written_before_the_storage_went_private_still_load(key):
    """Issue 28: the results' storage fields got a leading underscore; their documents keep
    the keys (``saved`` writes a field under its name without the underscore). The documents
    were written by the code at d03779f (data/write_old_documents.py); each loads, reports the
    same summary and the same estimates (exact: the numbers are read, not recomputed), and
    writes the same keys and values again (but the version and what it added since)."""
    case = _OLD["results"][key]
    cls = getattr(bcs, case["class"])
    back = cls.from_json(case["document"])
    assert str(back.summary()) == case["summary"]
    assert np.atleast_1d(np.asarray(back.params, dtype=float)).tolist() == case["lmbda"]
    assert _without_added(json.loads(back.to_json())) == _without_added(case["document"])


def _without_added(doc):
    """A document without what a later version added (PowerTransformResult 2: gamma_cov)."""
    if isinstance(doc, dict):
        return {k: _without_added(v) for k, v in doc.items()
                if k not in ("version", "gamma_cov")}
    return [_without_added(v) for v in doc] if isinstance(doc, list) else doc


def test_saved_key_defaults_to_the_name_without_underscore_and_can_be_given():
    @dataclass(frozen=True)
    class Keys(ResultBase):
        _hidden: float = saved(jsonio.Float())
        _renamed: int = saved(jsonio.Int(), key="old_name")

        def summary(self) -> Summary:
            return Summary("keys", [], [])

    doc = jsonio.document(Keys(1.5, 2))
    assert {k: doc[k] for k in ("hidden", "old_name")} == {"hidden": 1.5, "old_name": 2}
    back = Keys.from_json(doc)
    assert (back._hidden, back._renamed) == (1.5, 2)
    with pytest.raises(bcs.BoxCoxError, match="field 'old_name' is missing"):
        Keys.from_json({k: v for k, v in doc.items() if k != "old_name"})
