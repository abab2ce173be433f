"""Saved documents from anyone are as safe to load as ``json.loads`` (issue: trust at the edges).

Every result's ``from_json``, the scikit-learn transformer's and the federated messages' are
given documents written by an attacker: code in every string field, dunder names, attribute
chains, names of importable callables, huge numbers, deep nesting and a 100 MB document. Each
must either load (the string is then inert data: a label) or raise the package's
``BoxCoxError``; nothing may be evaluated, executed or imported while the document is loaded
and used (``summary``, ``predict`` / ``transform``). Python's audit hooks (PEP 578) see every
``exec`` / ``eval`` of code, every module import, every process start and every file opened
for writing, so "nothing ran" is measured, not assumed.
"""

from __future__ import annotations

import builtins
import importlib
import json
import sys
import time
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs
from boxcoxstat.federated.messages import message_from_json
from boxcoxstat.sklearn import PowerTransformer

from .test_conformance import RESULTS, _toolbox_data

# what an attacker writes into a string field
PAYLOADS = [
    "__import__('os').system('echo pwned')",
    "np.ctypeslib.ctypes.CDLL('libc.so.6')",
    "numpy:ctypeslib.ctypes.CDLL",
    "subprocess:run",
    "builtins:eval",
    "os.system",
    "().__class__.__bases__[0].__subclasses__()",
    "Volume ~ __import__('os').getcwd()",
    "y ~ x + eval('1')",
    "y ~ (lambda: exec('import os'))()",
    "y ~ np.log(x).__class__.__mro__",
    "y ~ open('/tmp/boxcoxstat_pwned', 'w')",
    "__builtins__",
    "__globals__",
    "x" * 200_000,
    "y ~ " + "(" * 5000 + "x" + ")" * 5000,
    "y ~ " + "np.log(" * 3000 + "x" + ")" * 3000,
]
HUGE = [10**400, -(10**400), 1e308, -1e308, 2**63, "Infinity", None, True, []]

# events that mean code from a document ran or reached outside: exec/eval of code objects,
# a process, a shared library, a file written, a socket; imports are watched separately
FORBIDDEN = {"exec", "os.system", "subprocess.Popen", "os.exec", "os.posix_spawn",
             "os.spawn", "os.fork", "ctypes.dlopen", "ctypes.dlsym", "socket.connect",
             "os.remove", "os.rename", "shutil.rmtree", "pty.spawn"}
_seen: list[tuple[str, Any]] = []
_watching = [False]


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if not _watching[0]:
        return
    if event in FORBIDDEN:
        _seen.append((event, args[:1]))
    elif event == "import":
        _seen.append((event, args[:1]))
    elif event == "open" and len(args) > 1 and isinstance(args[1], str) and \
            any(c in args[1] for c in "wax+"):
        _seen.append((event, args[:2]))


sys.addaudithook(_hook)  # a hook cannot be removed; it records only while _watching


class _Imports:
    """Record every ``import`` statement and ``importlib.import_module`` call by name (a
    module already imported raises no audit event, so the names are watched too)."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def __enter__(self) -> _Imports:
        self._import, self._import_module = builtins.__import__, importlib.import_module

        def spy_import(name: str, *a: Any, **k: Any) -> Any:
            self.names.append(name)
            return self._import(name, *a, **k)

        def spy_module(name: str, *a: Any, **k: Any) -> Any:
            self.names.append(name)
            return self._import_module(name, *a, **k)

        builtins.__import__, importlib.import_module = spy_import, spy_module
        return self

    def __exit__(self, *exc: Any) -> None:
        builtins.__import__, importlib.import_module = self._import, self._import_module


# modules whose import while loading a document would mean a name from it was followed
DANGEROUS = ("os", "subprocess", "ctypes", "socket", "shutil", "pty", "pickle", "marshal",
             "builtins", "numpy.ctypeslib", "importlib", "runpy", "code", "codeop")


def _trees() -> pd.DataFrame:
    return bcs.datasets.load("trees")


def _transformer() -> PowerTransformer:
    x = np.random.default_rng(0).lognormal(size=(60, 2))
    return PowerTransformer().fit(x)


def _documents() -> dict[str, tuple[Any, str]]:
    """Each saved kind: how to load it and a genuine document to start from."""
    out: dict[str, tuple[Any, str]] = {}
    for name, build in RESULTS.items():
        r = build()
        out[name] = (type(r).from_json, r.to_json())
    m = bcs.lm("Volume ~ log(Height) + poly(Girth, 2) + center(Height) + bc(Girth)", _trees())
    out["LmResult (grammar functions)"] = (bcs.LmResult.from_json, m.to_json())
    out["PowerTransformer"] = (PowerTransformer.from_json, _transformer().to_json())
    return out


def _new_data() -> list[pd.DataFrame]:
    cars = bcs.datasets.load("topgear")[["Price", "MPG", "Weight", "Fuel"]].dropna()
    return [_trees().iloc[:5], cars.iloc[:5], _toolbox_data().iloc[:5]]


NEW_DATA = _new_data()


@pytest.fixture(scope="module")
def documents() -> dict[str, tuple[Any, str]]:
    docs = _documents()
    for name in docs:  # warm every lazy import on a genuine document first
        _use(docs[name][0](docs[name][1]))
    return docs


def _use(obj: Any) -> None:
    """What a user does with a loaded object: the report, and new data through it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # rows a hostile model cannot predict
        _use_quietly(obj)


def _use_quietly(obj: Any) -> None:
    if hasattr(obj, "summary"):
        str(obj.summary())
    repr(obj)
    if isinstance(obj, bcs.LmResult) and obj.design_info is not None:
        for new in NEW_DATA:  # the data set the model was fitted on predicts
            try:
                obj.predict(new)
            except bcs.BoxCoxError as err:
                if "lack the column" not in str(err):
                    raise
    if isinstance(obj, PowerTransformer):
        obj.transform(np.random.default_rng(1).lognormal(size=(4, 2)))


def _paths(doc: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every leaf (string, number, boolean, null) of a JSON document with its path."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, (*path, k))
    elif isinstance(doc, list):
        for k, v in enumerate(doc[:6]):  # the first few entries of long arrays suffice
            yield from _paths(v, (*path, k))
    else:
        yield path, doc


def _replaced(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    out = json.loads(json.dumps(doc))
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


def _load_safely(load: Any, doc: Any) -> None:
    """Load (and use) ``doc``: the package's error or success are both fine; anything
    else, or anything run, imported or written, fails the test."""
    _seen.clear()
    with _Imports() as imports:
        _watching[0] = True
        try:
            try:
                _use(load(doc))
            except bcs.BoxCoxError:
                pass
        finally:
            _watching[0] = False
    assert not _seen, f"loading ran or reached outside: {_seen[:3]}"
    bad = [n for n in imports.names if n.split(".")[0] in DANGEROUS or n in DANGEROUS]
    assert not bad, f"loading imported {bad[:3]} by name"


@pytest.mark.parametrize("kind", [*RESULTS, "LmResult (grammar functions)", "PowerTransformer"])
def test_code_in_any_string_field_is_refused_or_inert(documents, kind):
    load, text = documents[kind]
    doc = json.loads(text)
    strings = [p for p, v in _paths(doc) if isinstance(v, str)]
    assert strings
    for k, path in enumerate(strings):
        # every payload on the fields that hold formulas and names; a rotating few elsewhere
        many = any(str(key) in ("formula", "response", "code", "design_info", "names",
                                "function", "format", "class", "result_class")
                   for key in path)
        chosen = PAYLOADS if many else [PAYLOADS[(k + j) % len(PAYLOADS)] for j in range(3)]
        for payload in chosen:
            _load_safely(load, _replaced(doc, path, payload))


@pytest.mark.parametrize("kind", [*RESULTS, "PowerTransformer"])
def test_huge_numbers_and_wrong_types_in_any_field_are_refused_or_inert(documents, kind):
    load, text = documents[kind]
    doc = json.loads(text)
    leaves = [p for p, _ in _paths(doc)]
    for k, path in enumerate(leaves):
        _load_safely(load, _replaced(doc, path, HUGE[k % len(HUGE)]))


def test_a_saved_design_names_no_object_and_takes_none(documents):
    """The issue's two findings: a crafted formula that wrote a file, and a document that
    named ``numpy:ctypeslib.ctypes.CDLL`` as an object."""
    load, text = documents["LmResult (grammar functions)"]
    doc = json.loads(text)
    factors = doc["design_info"]["factors"]
    for k in range(len(factors)):
        for field, value in [("code", "open('/tmp/boxcoxstat_pwned', 'w').write('x')"),
                             ("values", {"Height": {"object": "numpy:ctypeslib.ctypes.CDLL"}}),
                             ("values", {"Height": "numpy:ctypeslib.ctypes.CDLL"}),
                             ("transforms", [{"class": "numpy:ctypeslib.ctypes.CDLL",
                                              "state": {}}])]:
            bad = json.loads(json.dumps(doc))
            bad["design_info"]["factors"][k][field] = value
            with pytest.raises(bcs.BoxCoxError, match="design_info"):
                load(bad)
            _load_safely(load, bad)


def test_the_earlier_format_that_stored_code_is_refused_with_what_to_do(documents):
    load, text = documents["LmResult (grammar functions)"]
    doc = json.loads(text)
    doc["design_info"]["factors"][0]["eval_code"] = "__import__('os').system('true')"
    with pytest.raises(bcs.BoxCoxError, match="saved by boxcoxstat 0.1.*fit the model again"):
        load(doc)


@pytest.mark.parametrize("depth", [100, 10_000, 100_000])
def test_deep_nesting_is_refused(documents, depth):
    load, text = documents["LmResult"]
    doc = json.loads(text)
    nested = "[" * depth + "]" * depth
    for key in ("params", "formula", "design_info"):
        raw = text.replace(f'"{key}":', f'"{key}": {nested}, "x{key}":', 1) if \
            f'"{key}":' in text else text
        _load_safely(load, raw)
    deep: Any = 1.0
    for _ in range(min(depth, 5000)):  # a dict built in Python (no JSON parser's limit)
        deep = [deep]
    _load_safely(load, _replaced(doc, ("formula",), deep))


def test_a_100_mb_document_is_refused_quickly_and_runs_nothing(documents):
    load, text = documents["LmResult"]
    doc = json.loads(text)
    big = json.dumps(_replaced(doc, ("formula",), "y ~ " + "x + " * 25_000_000 + "x"))
    assert len(big) > 100_000_000
    start = time.perf_counter()
    _load_safely(load, big)
    # generous: parsing 100 MB of JSON takes about a second; refusing must not take minutes
    assert time.perf_counter() - start < 60


def test_federated_messages_take_no_code(documents):
    from boxcoxstat.federated.messages import Request

    req = Request(lmbda=(0.5,), shift_pos=(0.0,), shift_neg=(0.0,), score=True, round=1)
    doc = json.loads(req.to_json())
    for path, _ in list(_paths(doc)):
        for payload in PAYLOADS[:8]:
            _load_safely(message_from_json, json.dumps(_replaced(doc, path, payload)))
