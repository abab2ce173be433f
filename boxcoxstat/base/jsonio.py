"""JSON for results: every field declared once, on the result's dataclass.

A result class marks the dataclass fields that go into its
JSON document with ``metadata={"json": <codec>}`` (:func:`saved`); everything else (data,
profiles) stays out and is ``None`` in a loaded result. :func:`dump` writes
``{"format": "boxcoxstat.<Class>", "version": <int>, <field>: <value>, ...}`` as strict JSON
(NaN as ``null``, infinities as ``"Infinity"`` / ``"-Infinity"``); :func:`load` reads a
string, a dict or a path, checks the format, the version and every field (type, shape, length
against another field, allowed values) and raises :class:`~boxcoxstat.BoxCoxError` naming the
first field that is wrong.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._validation.columns import BoxCoxError

__all__ = [
    "Codec", "Float", "Int", "Bool", "Str", "Strs", "Floats", "Ints", "Bools", "Matrix",
    "Mapping_", "Frame", "Nested", "Nesteds", "saved", "dump", "load", "document",
]


class _Bad(Exception):
    """Internal: a value does not fit its codec (the message says how)."""


def _float_in(v: Any) -> float:
    if v is None:
        return float("nan")
    if v in ("Infinity", "-Infinity"):
        return float("inf") if v == "Infinity" else float("-inf")
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise _Bad(f"expected a number, got {v!r:.80}")
    try:
        return float(v)
    except OverflowError:  # an integer literal beyond float64 (JSON allows any length)
        raise _Bad(f"the number {v!r:.40} is beyond the float64 range") from None


def _float_out(v: float) -> Any:
    v = float(v)
    if np.isnan(v):
        return None
    if np.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    return v


def _nested(v: Any, depth: int) -> Any:
    if depth == 0:
        return [_float_out(x) for x in v]
    return [_nested(x, depth - 1) for x in v]


@dataclass(frozen=True)
class Codec:
    """How one field is written and read; ``optional`` allows ``null`` (``None``).

    ``optional`` is keyword-only, so a codec's own first option can be given by position
    (``Nested(Inner)``, ``Strs("names")``).
    """

    optional: bool = field(default=False, kw_only=True)

    def encode(self, value: Any) -> Any:
        return value

    def decode(self, value: Any) -> Any:  # pragma: no cover - every codec overrides it
        return value

    def length(self, value: Any) -> int | None:
        return None


@dataclass(frozen=True)
class Float(Codec):
    """A float; ``finite=True`` refuses NaN and infinities when reading."""

    finite: bool = False

    def encode(self, value: Any) -> Any:
        return _float_out(value)

    def decode(self, value: Any) -> float:
        v = _float_in(value)
        if self.finite and not np.isfinite(v):
            raise _Bad(f"expected a finite number, got {value!r}")
        return v


_INT64 = (-(2**63), 2**63 - 1)


@dataclass(frozen=True)
class Int(Codec):
    minimum: int | None = None

    def decode(self, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _Bad(f"expected an integer, got {value!r:.80}")
        if not _INT64[0] <= value <= _INT64[1]:
            raise _Bad(f"the integer {value!r:.40} is beyond the 64-bit range")
        if self.minimum is not None and value < self.minimum:
            raise _Bad(f"expected an integer >= {self.minimum}, got {value!r}")
        return int(value)

    def encode(self, value: Any) -> Any:
        return int(value)


@dataclass(frozen=True)
class Bool(Codec):
    def decode(self, value: Any) -> bool:
        if not isinstance(value, bool):
            raise _Bad(f"expected true or false, got {value!r}")
        return value

    def encode(self, value: Any) -> Any:
        return bool(value)


@dataclass(frozen=True)
class Str(Codec):
    choices: tuple[str, ...] | None = None

    def decode(self, value: Any) -> str:
        if not isinstance(value, str):
            raise _Bad(f"expected a string, got {value!r}")
        if self.choices is not None and value not in self.choices:
            raise _Bad(f"expected one of {list(self.choices)}, got {value!r}")
        return value


@dataclass(frozen=True)
class Strs(Codec):
    """A tuple of strings; ``length`` names another field whose length it must have."""

    length_of: str | None = None
    choices: tuple[str, ...] | None = None

    def decode(self, value: Any) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise _Bad(f"expected a list of strings, got {value!r:.80}")
        if self.choices is not None:
            bad = [v for v in value if v not in self.choices]
            if bad:
                raise _Bad(f"expected values among {list(self.choices)}, got {bad[0]!r}")
        return tuple(value)

    def encode(self, value: Any) -> Any:
        return list(value)

    def length(self, value: Any) -> int | None:
        return len(value)


@dataclass(frozen=True)
class Floats(Codec):
    """A float array with ``ndim`` dimensions; ``length_of`` ties its first axis to a field;
    ``finite=True`` refuses NaN and infinities when reading."""

    ndim: int = 1
    length_of: str | None = None
    dtype: str = "float"
    finite: bool = False

    def encode(self, value: Any) -> Any:
        arr = np.asarray(value)
        if self.dtype == "float":
            return _nested(arr.astype(np.float64), self.ndim - 1) if arr.ndim else []
        return arr.tolist()

    def decode(self, value: Any) -> np.ndarray:
        def walk(v: Any, depth: int) -> Any:
            if not isinstance(v, list):
                raise _Bad(f"expected a list nested {self.ndim} deep, got {v!r:.80}")
            if depth == 0:
                return [self._scalar(x) for x in v]
            return [walk(x, depth - 1) for x in v]

        rows = walk(value, self.ndim - 1)
        try:
            arr = np.array(rows, dtype=self._np_dtype())
        except ValueError:
            raise _Bad("rows of different lengths") from None
        if arr.ndim != self.ndim:
            if arr.size:
                raise _Bad(f"expected {self.ndim} dimensions, got {arr.ndim}")
            arr = arr.reshape((0,) * self.ndim)  # ``[]``; ``[[], []]`` keeps its 2 rows
        if self.finite and not np.all(np.isfinite(arr)):
            bad = np.argwhere(~np.isfinite(arr))[0]
            raise _Bad(f"expected finite numbers, got {arr[tuple(bad)]} at position "
                       f"{bad.tolist()}")
        return arr

    def _np_dtype(self) -> Any:
        return {"float": np.float64, "int": np.int64, "bool": bool}[self.dtype]

    def _scalar(self, x: Any) -> Any:
        if self.dtype == "float":
            return _float_in(x)
        if self.dtype == "int":
            return Int().decode(x)
        return Bool().decode(x)

    def length(self, value: Any) -> int | None:
        return int(np.shape(value)[0]) if np.ndim(value) else None


def Ints(length_of: str | None = None, optional: bool = False) -> Floats:  # noqa: N802
    """An integer array (see :class:`Floats`)."""
    return Floats(optional=optional, length_of=length_of, dtype="int")


def Bools(length_of: str | None = None, optional: bool = False) -> Floats:  # noqa: N802
    """A boolean array (see :class:`Floats`)."""
    return Floats(optional=optional, length_of=length_of, dtype="bool")


def Matrix(length_of: str | None = None, optional: bool = False,  # noqa: N802
           finite: bool = False) -> Floats:
    """A 2-D float array whose first axis may be tied to a field (see :class:`Floats`)."""
    return Floats(optional=optional, ndim=2, length_of=length_of, finite=finite)


def _strict(v: Any) -> Any:
    """``v`` with NumPy values made plain and non-finite floats written as the float codecs
    write them (NaN as ``null``, infinities as ``"Infinity"`` / ``"-Infinity"``)."""
    if isinstance(v, Mapping):
        return {_plain(k): _strict(x) for k, x in v.items()}
    if isinstance(v, (list, tuple, np.ndarray)):
        return [_strict(x) for x in v]
    v = _plain(v)
    return _float_out(v) if isinstance(v, float) else v


def _infinities(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _infinities(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_infinities(x) for x in v]
    return _float_in(v) if v in ("Infinity", "-Infinity") else v


@dataclass(frozen=True)
class Mapping_(Codec):  # noqa: N801 - ``Mapping`` is taken by collections.abc
    """A JSON object kept as a dict (numbers, strings, lists and objects inside, as written).

    Infinities are written as ``"Infinity"`` / ``"-Infinity"`` and read back as floats; NaN is
    written as ``null`` and reads back as ``None``.
    """

    def decode(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise _Bad(f"expected an object, got {value!r:.80}")
        return _infinities(value)

    def encode(self, value: Any) -> Any:
        return json.loads(json.dumps(_strict(value), default=_plain, allow_nan=False))


@dataclass(frozen=True)
class Frame(Codec):
    """A DataFrame of numbers (``split`` layout: columns, index, data); ``columns`` and
    ``rows``, where given, are the labels it must have (a table the result reads by label)."""

    columns: tuple[str, ...] | None = None
    rows: tuple[str, ...] | None = None

    def encode(self, value: Any) -> Any:
        frame = pd.DataFrame(value)
        return {
            "columns": [str(c) for c in frame.columns],
            "index": [_plain(i) for i in frame.index],
            "index_names": [None if n is None else str(n) for n in frame.index.names],
            "data": _nested(frame.to_numpy(dtype=np.float64), 1),
        }

    def decode(self, value: Any) -> pd.DataFrame:
        keys = {"columns", "index", "index_names", "data"}
        if not isinstance(value, dict) or set(value) != keys:
            raise _Bad(f"expected an object with {sorted(keys)}")
        data = Floats(ndim=2).decode(value["data"])
        cols = Strs().decode(value["columns"])
        if not isinstance(value["index"], list) or data.shape[0] != len(value["index"]):
            raise _Bad("index and data have different lengths")
        if data.shape[0] and data.shape[1] != len(cols):
            raise _Bad("columns and data have different widths")
        names = value["index_names"]
        if not isinstance(names, list) or not all(n is None or isinstance(n, str)
                                                  for n in names):
            raise _Bad("index_names must be a list of strings or nulls")
        def label(v: Any) -> bool:
            return v is None or isinstance(v, (str, bool, int, float))

        if len(names) > 1:
            if not all(isinstance(i, list) and len(i) == len(names) and all(map(label, i))
                       for i in value["index"]):
                raise _Bad(f"every index entry must be a list of {len(names)} labels (one per "
                           "index name)")
            index: pd.Index = pd.MultiIndex.from_tuples([tuple(i) for i in value["index"]],
                                                         names=names)
        else:
            if not all(map(label, value["index"])):
                raise _Bad("index labels must be strings, numbers, booleans or nulls")
            index = pd.Index(value["index"], name=names[0] if names else None)
        if self.columns is not None and list(cols) != list(self.columns):
            raise _Bad(f"must have the columns {list(self.columns)}")
        if self.rows is not None and sorted(map(str, index)) != sorted(self.rows):
            raise _Bad(f"must have the rows {list(self.rows)}")
        return pd.DataFrame(data.reshape(len(index), len(cols)), index=index, columns=cols)


@dataclass(frozen=True)
class Nested(Codec):
    """A result of another class, written as its own document (see :func:`dump`)."""

    cls: Any

    def encode(self, value: Any) -> Any:
        return document(value)

    def decode(self, value: Any) -> Any:
        if not isinstance(value, dict):  # not a string: that would be read as a file path
            raise _Bad(f"expected an object, got {value!r:.80}")
        return load(self.cls, value)


@dataclass(frozen=True)
class Nesteds(Codec):
    """A tuple of results of one class, each written as its own document (a JSON list);
    ``length_of`` ties their number to a field."""

    cls: Any
    length_of: str | None = None

    def encode(self, value: Any) -> Any:
        return [document(v) for v in value]

    def decode(self, value: Any) -> tuple[Any, ...]:
        if not isinstance(value, list):
            raise _Bad(f"expected a list of objects, got {value!r:.80}")
        one = Nested(self.cls)
        out = []
        for k, item in enumerate(value):
            try:
                out.append(one.decode(item))
            except (_Bad, BoxCoxError) as err:
                raise _Bad(f"item {k}: {err}") from None
        return tuple(out)

    def length(self, value: Any) -> int | None:
        return len(value)


def _plain(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, tuple):
        return [_plain(x) for x in v]
    if isinstance(v, np.ndarray):
        return v.tolist()
    return v


def saved(codec: Codec, *, key: str | None = None, **kwargs: Any) -> Any:
    """A dataclass field that is written to and read from the result's JSON document.

    The document's key is ``key``, by default the field's name without its leading
    underscores: a result keeps its storage private (``_lmbda_used``) and its documents
    readable (``"lmbda_used"``), and a field renamed later keeps its documents loading.
    """
    metadata: dict[str, Any] = {"json": codec}
    if key is not None:
        metadata["json_key"] = key
    return field(metadata=metadata, **kwargs)


def _codecs(cls: type) -> dict[str, Codec]:
    """Saved fields by document key (see :func:`saved`)."""
    return {_key(f): f.metadata["json"] for f in fields(cls) if "json" in f.metadata}


def _key(f: Any) -> str:
    return str(f.metadata.get("json_key", f.name.lstrip("_")))


def _field_names(cls: type) -> dict[str, str]:
    """Document key -> field name of the saved fields."""
    return {_key(f): f.name for f in fields(cls) if "json" in f.metadata}


def _format(cls: type) -> str:
    return f"boxcoxstat.{cls.__name__}"


def document(result: Any) -> dict[str, Any]:
    """The JSON document of ``result`` as a dict.

    ``result`` is a dataclass whose saved fields are declared with :func:`saved`: a
    :class:`~boxcoxstat.base.results.ResultBase`, or a plain record saved inside one
    (:class:`Nested`, :class:`Nesteds`).
    """
    cls = type(result)
    doc: dict[str, Any] = {"format": _format(cls), "version": getattr(cls, "_json_version", 1)}
    value_of = getattr(result, "_json_value", lambda name: getattr(result, name))
    names = _field_names(cls)
    for key, codec in _codecs(cls).items():
        value = value_of(names[key])
        doc[key] = None if value is None else codec.encode(value)
    return doc


def dump(result: Any) -> str:
    """``result`` as strict JSON text."""
    return json.dumps(document(result), allow_nan=False)


_BOM = "\ufeff"


def _is_file(text: str) -> bool:
    """True when ``text`` names an existing file (a name the OS refuses is not one)."""
    if len(text) >= 4096 or "\n" in text or "\x00" in text:
        return False
    try:
        return Path(text).is_file()
    except (OSError, ValueError):  # too long for the OS, or otherwise not a usable name
        return False


def _read(path: Any, what: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8-sig")  # a BOM (Windows editors) dropped
    except (OSError, UnicodeDecodeError) as err:
        raise BoxCoxError(f"cannot read the {what} JSON file: {err}") from None


def _parse(source: Any, what: str) -> dict[str, Any]:
    """The JSON object in ``source``: a dict, JSON text (str or bytes; a leading byte-order
    mark is dropped) or a path (``os.PathLike``, or a string that is not JSON and names an
    existing file)."""
    if isinstance(source, Mapping):
        return dict(source)
    if isinstance(source, (bytes, bytearray)):
        source = source.decode("utf-8", errors="replace")
    if isinstance(source, os.PathLike):
        return _loads(_read(source, what), what, None)
    if not isinstance(source, str):
        raise BoxCoxError(
            f"{what}.from_json takes a JSON string, a dict or a path, got "
            f"{type(source).__name__}"
        )
    return _loads(source, what, source)


def _loads(source: str, what: str, path: str | None) -> dict[str, Any]:
    """``source`` parsed as JSON; when it is not JSON, the file ``path`` names (if any)."""
    text = source.removeprefix(_BOM)
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError) as err:
        looks_like_json = text.lstrip().startswith(("{", "["))
        if path is not None and not looks_like_json and _is_file(path):
            return _loads(_read(path, what), what, None)
        if path is not None and not looks_like_json and len(text) < 4096:
            raise BoxCoxError(f"{what}.from_json: {source!r:.200} is neither JSON text nor the "
                              "path of an existing file") from None
        raise BoxCoxError(f"not a valid {what} JSON document ({err})") from None
    if not isinstance(doc, dict):
        raise BoxCoxError(f"not a {what} JSON document: expected an object, got "
                          f"{type(doc).__name__}")
    return doc


def load(cls: type, source: Any) -> Any:
    """Rebuild a ``cls`` result from its JSON document (a str, a dict or a path).

    Fields that are not saved take their dataclass default (``None`` for data); an optional
    field that a later version added (``cls._json_added``: document key -> version) is
    ``None`` in an older document. A wrong document raises
    :class:`~boxcoxstat.BoxCoxError` naming the field.
    """
    what = cls.__name__
    doc = _parse(source, what)
    if doc.get("format") != _format(cls):
        raise BoxCoxError(f"not a {what} JSON document: field 'format' is "
                          f"{doc.get('format')!r:.80}, expected {_format(cls)!r}")
    version = doc.get("version")
    newest = getattr(cls, "_json_version", 1)
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= newest:
        raise BoxCoxError(f"{what} JSON field 'version' must be an integer from 1 to {newest}, "
                          f"got {version!r}")
    values: dict[str, Any] = {}
    codecs = _codecs(cls)
    added = getattr(cls, "_json_added", {})  # document key -> the version that added it
    for name, codec in codecs.items():
        if name not in doc and codec.optional and added.get(name, 1) > version:
            values[name] = None  # an older document, from before the field existed
            continue
        if name not in doc:
            raise BoxCoxError(f"{what} JSON field {name!r} is missing")
        raw = doc[name]
        if raw is None and codec.optional:
            values[name] = None
            continue
        try:
            values[name] = codec.decode(raw)
        except _Bad as err:
            raise BoxCoxError(f"{what} JSON field {name!r}: {err}") from None
        except BoxCoxError as err:
            raise BoxCoxError(f"{what} JSON field {name!r}: {err}") from None
        except RecursionError:  # a dict built in Python can nest deeper than JSON text
            raise BoxCoxError(f"{what} JSON field {name!r} is nested too deeply") from None
    for name, codec in codecs.items():
        ref = getattr(codec, "length_of", None)
        if ref is None or values.get(name) is None or values.get(ref) is None:
            continue
        have, want = codec.length(values[name]), codecs[ref].length(values[ref])
        if have is not None and want is not None and have != want:
            raise BoxCoxError(f"{what} JSON field {name!r} has {have} entries but {ref!r} has "
                              f"{want}")
    check = getattr(cls, "_check_loaded", None)
    if check is not None:  # it reads the document's keys
        try:
            check(values)
        except _Bad as err:
            raise BoxCoxError(f"{what} JSON document: {err}") from None
    names = _field_names(cls)
    return cls(**{names[key]: value for key, value in values.items()})
