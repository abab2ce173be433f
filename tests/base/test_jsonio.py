"""Tests for boxcoxstat.base.jsonio: every codec, strict JSON, and every malformed document.

A small result class declares one field of each codec; the reference values are the literal
values the tests build, never something the code under test computed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pytest

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
        table=_table(), inner=Inner("k", 7.0), maybe=2.0, data=np.ones(3))
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


def test_an_unknown_format_names_the_field_gh11():
    """The format error now names the field 'format'."""
    _refuses(_doc(format="boxcoxstat.Other"), "field 'format'", "boxcoxstat.Other",
             "boxcoxstat.Everything")


def test_a_codec_first_option_is_positional_gh11():
    """``Nested(Inner)`` set ``optional=Inner`` and left ``cls`` None (AttributeError on load)."""
    assert jsonio.Nested(Inner).cls is Inner and jsonio.Nested(Inner).optional is False
    assert jsonio.Strs("names").length_of == "names"
    assert Everything.from_json(_everything().to_json()).inner.value == 7.0
