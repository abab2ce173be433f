"""A formula's design, with everything it learned from the data, as JSON (and for pickle).

patsy's ``DesignInfo`` holds what a formula learned when the model was fitted: the
levels of each categorical, the powers of ``bc()`` / ``yj()`` terms, the means of
``center()``, the bases of ``poly()`` and the knots of ``bs()``. Predicting for new data needs
exactly that, but patsy refuses to pickle it and has no JSON. :func:`design_document` writes it
as plain JSON (the terms, each factor's text, kind, levels, contrasts and the learned state of
its stateful transforms, field by field) and :func:`design_from_document` rebuilds an
equivalent ``DesignInfo``, so a saved :class:`~boxcoxstat.LmResult` predicts in a fresh process
exactly as the original.

A saved document is safe to load from anyone: each factor's text is checked against the
grammar of :mod:`~boxcoxstat.regression.formula_grammar` (column names, numbers, arithmetic and
a closed list of functions) and evaluated by that module's own interpreter; nothing in a
document is given to ``eval`` or names an object to import. Names the formula read from the
caller's Python session are saved as their plain values (numbers, strings); a function of the
user's own cannot be saved, and the error says so.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from typing import Any

import numpy as np
import patsy
from patsy.contrasts import ContrastMatrix
from patsy.design_info import FactorInfo, SubtermInfo

from .._validation.columns import BoxCoxError
from ..base import jsonio
from .formula import COLUMNS_KEY
from .formula_grammar import (
    SavedFactor,
    check_term,
    number_table,
    restore_transform,
    transform_state,
)

__all__ = ["design_document", "design_from_document", "DesignCodec", "COLUMNS_KEY"]

_STOBJ = re.compile(r"^_patsy_stobj(\d+)__(\w+?)__$")


def _plain_value(v: Any) -> bool:
    """A number a saved design may hold for a name from the caller's session (finite)."""
    return isinstance(v, (bool, int, float, np.number)) and bool(np.isfinite(v))


def _values(term: Any, state: dict[str, Any]) -> dict[str, Any]:
    """The names of ``term`` that the formula read from the caller's session, as plain
    values; every other name is a data column (a column always wins, as in patsy)."""
    columns = state.get(COLUMNS_KEY)
    env = state["eval_env"].namespace
    out = {}
    for name in term.names:
        if columns is not None and name in columns:
            continue
        if name in env and _plain_value(env[name]):
            v = env[name]
            out[name] = v.item() if isinstance(v, np.generic) else v
        elif columns is not None and name in env:
            raise BoxCoxError(
                f"the formula term {term.code!r} uses {name!r} from the Python session, which "
                "a saved model cannot hold (only data columns, plain numbers and the functions "
                "of the formula grammar can be saved); add its values to the data as a column "
                "and use that instead")
    return out


def _transforms(term: Any, state: dict[str, Any]) -> list[dict[str, Any]]:
    """The learned states of ``term``'s stateful calls, in the order patsy numbered them."""
    found = []
    for key, obj in state["transforms"].items():
        m = _STOBJ.match(key)
        if m is None:
            raise BoxCoxError(f"cannot save the term {term.code!r}: unexpected transform {key!r}")
        found.append((int(m.group(1)), m.group(2), obj))
    found.sort(key=lambda t: t[0])
    if [f for _, f, _ in found] != list(term.stateful):
        raise BoxCoxError(f"cannot save the term {term.code!r}: its stateful calls "
                          f"{[f for _, f, _ in found]} do not match {list(term.stateful)}")
    return [{"function": f, "state": transform_state(f, obj)} for _, f, obj in found]


def _index(k: Any, n: int, where: str) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < n:
        raise jsonio._Bad(f"{where} must be a factor's position, 0 to {n - 1}")
    return k


def _contrast(entry: Any, factors: list[Any], where: str) -> tuple[Any, ContrastMatrix]:
    """One saved contrast: ``[factor position, matrix (list of rows), column suffixes]``."""
    if not isinstance(entry, list) or len(entry) != 3:
        raise jsonio._Bad(f"{where} must be [factor, matrix, suffixes]")
    k, matrix, suffixes = entry
    table = number_table(matrix, f"field '{where}' matrix")
    if table.ndim != 2 or not isinstance(suffixes, list) or len(suffixes) != table.shape[1] \
            or not all(isinstance(x, str) and len(x) < 1000 for x in suffixes):
        raise jsonio._Bad(f"{where} must hold a table and one suffix per column")
    return factors[_index(k, len(factors), where)], ContrastMatrix(table, suffixes)


def _category(v: Any) -> Any:
    v = v.item() if isinstance(v, np.generic) else v
    if not (isinstance(v, (bool, int, float, str)) or v is None):
        raise BoxCoxError(f"cannot save the level {v!r} of a categorical term (levels must be "
                          "numbers, strings or booleans)")
    return v


def design_document(design_info: Any) -> dict[str, Any]:
    """``design_info`` (a patsy ``DesignInfo``) as a JSON-ready dict (see the module docs)."""
    factors = list(design_info.factor_infos)
    position = {f: k for k, f in enumerate(factors)}
    out_factors = []
    for f in factors:
        info = design_info.factor_infos[f]
        if not isinstance(f, (patsy.EvalFactor, SavedFactor)):
            raise BoxCoxError(f"cannot save the factor {f!r}: only formula terms can be saved")
        if isinstance(f, SavedFactor):  # a loaded design, saved again as it was read
            term, values = f.term, dict(f.values)
            transforms = [{"function": fn, "state": transform_state(fn, obj)}
                          for fn, obj in zip(term.stateful, info.state["transforms"].values(),
                                             strict=True)]
        else:
            term = check_term(f.code, f"the formula term {f.code!r}, which is to be saved,")
            values = _values(term, info.state)
            transforms = _transforms(term, info.state)
        out_factors.append({
            "code": term.code, "type": info.type, "num_columns": info.num_columns,
            "categories": None if info.categories is None else
            [_category(c) for c in info.categories],
            "values": values, "transforms": transforms,
        })
    terms = []
    for term_, subterms in design_info.term_codings.items():
        terms.append({
            "factors": [position[f] for f in term_.factors],
            "subterms": [{
                "factors": [position[f] for f in s.factors],
                "contrasts": [[position[f], np.asarray(c.matrix, dtype=np.float64).tolist(),
                               list(c.column_suffixes)]
                              for f, c in s.contrast_matrices.items()],
                "num_columns": s.num_columns,
            } for s in subterms],
        })
    return {"engine": "patsy", "grammar": 1, "column_names": list(design_info.column_names),
            "factors": out_factors, "terms": terms}


def _factor(spec: Any, k: int) -> tuple[SavedFactor, dict[str, Any]]:
    """Factor ``k`` of a saved design, checked: its text against the grammar, its saved
    values plain, its transforms the ones its text calls, each state field by field."""
    where = f"design_info.factors[{k}]"
    if not isinstance(spec, dict) or set(spec) != {"code", "type", "num_columns",
                                                   "categories", "values", "transforms"}:
        if isinstance(spec, dict) and "eval_code" in spec:
            raise BoxCoxError(
                "this model was saved by boxcoxstat 0.1, whose format stored its formula as "
                "code to run; it is not loaded, for safety: fit the model again and save it")
        raise jsonio._Bad(f"{where} must have the fields code, type, num_columns, "
                          "categories, values and transforms")
    term = check_term(spec["code"], f"{where}.code")
    values = spec["values"]
    if not isinstance(values, dict) or not all(
            k in term.names and _plain_value(v) for k, v in values.items()):
        raise BoxCoxError(f"field '{where}.values' must map names of the term to plain "
                          "numbers")
    found = spec["transforms"]
    if not isinstance(found, list) or [t.get("function") if isinstance(t, dict) else None
                                       for t in found] != list(term.stateful):
        raise BoxCoxError(f"field '{where}.transforms' must hold the states of "
                          f"{list(term.stateful)}, in that order")
    objs = {f"_patsy_stobj{n}__{t['function']}__":
            restore_transform(t["function"], t.get("state"), f"field '{where}.transforms[{n}]'")
            for n, t in enumerate(found)}
    if spec["type"] not in ("numerical", "categorical"):
        raise jsonio._Bad(f"{where}.type must be 'numerical' or 'categorical'")
    return SavedFactor(term, dict(values)), {"transforms": objs}


def design_from_document(doc: dict[str, Any]) -> Any:
    """The patsy ``DesignInfo`` that :func:`design_document` wrote (an equivalent object:
    new data give the same design matrix), every part checked before use."""
    if not isinstance(doc, dict) or doc.get("engine") != "patsy":
        engine = doc.get("engine") if isinstance(doc, dict) else doc
        raise jsonio._Bad(f"unknown formula engine {engine!r:.40}")
    factors = []
    infos: OrderedDict[Any, Any] = OrderedDict()
    for k, spec in enumerate(doc["factors"]):
        f, state = _factor(spec, k)
        if f in infos:
            raise jsonio._Bad(f"design_info.factors[{k}] repeats the term {f.code!r}")
        num = spec["num_columns"]
        if spec["type"] == "numerical" and (isinstance(num, bool) or not isinstance(num, int)
                                             or not 1 <= num <= 10_000):
            raise jsonio._Bad(f"design_info.factors[{k}].num_columns must be 1 to 10000")
        cats = spec["categories"]
        if cats is not None and (not isinstance(cats, list) or len(cats) > 100_000 or not all(
                _plain_value(c) or c is None or isinstance(c, str) for c in cats)):
            raise jsonio._Bad(f"design_info.factors[{k}].categories must be a list of levels")
        infos[f] = FactorInfo(f, spec["type"], state, num,
                              None if cats is None else tuple(cats))
        factors.append(f)
    codings: OrderedDict[Any, list[Any]] = OrderedDict()  # patsy requires the ordered kind
    n = len(factors)
    for i, t in enumerate(doc["terms"]):
        where = f"design_info.terms[{i}]"
        term = patsy.Term([factors[_index(k, n, where)] for k in t["factors"]])
        codings[term] = [
            SubtermInfo([factors[_index(k, n, where)] for k in s["factors"]],
                        dict(_contrast(c, factors, f"{where}.contrasts") for c in s["contrasts"]),
                        s["num_columns"])
            for s in t["subterms"]
        ]
    names = doc["column_names"]
    if not isinstance(names, list) or not all(isinstance(c, str) for c in names):
        raise jsonio._Bad("design_info.column_names must be a list of strings")
    return patsy.DesignInfo(list(names), infos, codings)


class DesignCodec(jsonio.Codec):
    """A patsy ``DesignInfo`` field of a result, saved with :func:`design_document`."""

    def encode(self, value: Any) -> Any:
        return design_document(value)

    def decode(self, value: Any) -> Any:
        if not isinstance(value, dict):
            raise jsonio._Bad(f"expected an object, got {value!r:.80}")
        try:
            return design_from_document(value)
        except (KeyError, TypeError, ValueError, IndexError, patsy.PatsyError) as err:
            if isinstance(err, BoxCoxError):
                raise
            raise jsonio._Bad(f"not a saved formula design ({type(err).__name__}: {err})"
                              ) from None
