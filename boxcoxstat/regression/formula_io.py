"""A formula's design, with everything it learned from the data, as JSON (and for pickle).

Layer 4. patsy's ``DesignInfo`` holds what a formula learned when the model was fitted: the
levels of each categorical, the powers of ``bc()`` / ``yj()`` terms, the means of
``center()``, the knots of ``bs()``. Predicting for new data needs exactly that, but patsy
refuses to pickle it and has no JSON. :func:`design_document` writes it as plain JSON (the
terms, each factor's code, kind, levels, contrasts and the state of its stateful transforms)
and :func:`design_from_document` rebuilds an equivalent ``DesignInfo``, so a saved
:class:`~boxcoxstat.LmResult` predicts in a fresh process exactly as the original.

Names the formula uses are saved by reference, never as code: modules and functions of
numpy, math, scipy, patsy and boxcoxstat (``np.log``, ``C``, ``bc``), and plain numbers or
strings from the caller's scope. A function of the user's own cannot be saved, and the error
says so. Stateful transforms are rebuilt only from patsy's and boxcoxstat's own classes.
"""

from __future__ import annotations

import importlib
import types
from collections import OrderedDict
from typing import Any

import numpy as np
import patsy
from patsy.contrasts import ContrastMatrix
from patsy.design_info import FactorInfo, SubtermInfo
from patsy.eval import ast_names

from .._validation import BoxCoxError
from ..base import jsonio

__all__ = ["design_document", "design_from_document", "DesignCodec"]

# top-level packages whose modules, functions and stateful-transform classes may be named in
# a saved design (a saved document never names anything else, so loading runs no other code)
_TRUSTED = ("numpy", "math", "scipy", "patsy", "boxcoxstat")
_TRANSFORM_HOMES = ("patsy", "boxcoxstat")
_NAMED_IN = ("boxcoxstat", "patsy.builtins")


def _trusted(module: str, homes: tuple[str, ...] = _TRUSTED) -> bool:
    return module.split(".")[0] in homes


def _name_ref(name: str, value: Any, code: str) -> dict[str, Any]:
    """How the formula's name ``name`` is saved: a module, a trusted object, or a value."""
    if isinstance(value, types.ModuleType) and _trusted(value.__name__):
        return {"module": value.__name__}
    if isinstance(value, (bool, int, float, str)) or value is None:
        return {"value": value}
    for home in _NAMED_IN:  # patsy's and boxcoxstat's stateful transforms are closures
        mod = importlib.import_module(home)
        for attr in getattr(mod, "__all__", ()):
            if getattr(mod, attr, None) is value:
                return {"object": f"{home}:{attr}"}
    module = getattr(value, "__module__", None)
    qual = getattr(value, "__qualname__", getattr(value, "__name__", None))
    if isinstance(module, str) and isinstance(qual, str) and _trusted(module):
        try:
            if _resolve(module, qual) is value:
                return {"object": f"{module}:{qual}"}
        except BoxCoxError:
            pass
    raise BoxCoxError(
        f"the formula term {code!r} uses {name!r} from the Python session, which a saved "
        "model cannot hold (only numpy, math, scipy, patsy and boxcoxstat functions and plain "
        f"numbers can be saved); add its values to the data as a column and use that instead"
    )


def _resolve(module: str, qual: str) -> Any:
    if not _trusted(module):
        raise BoxCoxError(f"the saved design names {module!r}, which is not a trusted package")
    try:
        obj: Any = importlib.import_module(module)
        for part in qual.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as err:
        raise BoxCoxError(f"the saved design names {module}:{qual}, which cannot be found "
                          f"({err})") from None
    return obj


def _encode_value(v: Any) -> Any:
    """A transform's state value as JSON: numbers, strings, lists, dicts and arrays."""
    if isinstance(v, np.ndarray):
        if v.dtype == np.longdouble and np.dtype(np.longdouble) != np.dtype(np.float64):
            data: list[Any] = [np.format_float_scientific(x, unique=True) for x in v.ravel()]
        elif v.dtype.kind in "biuf":
            data = [_encode_value(x) for x in v.ravel().tolist()]
        else:
            raise BoxCoxError(f"cannot save an array of dtype {v.dtype} in a formula's state")
        return {"array": v.dtype.str, "shape": list(v.shape), "data": data}
    if isinstance(v, np.generic):
        return _encode_value(np.asarray(v)) if v.dtype == np.longdouble else \
            _encode_value(v.item())
    if isinstance(v, float):
        return {"float": jsonio.Float().encode(v)} if not np.isfinite(v) else v
    if isinstance(v, (bool, int, str)) or v is None:
        return v
    if isinstance(v, (list, tuple)):
        return {"list" if isinstance(v, list) else "tuple": [_encode_value(x) for x in v]}
    if isinstance(v, dict) and all(isinstance(k, str) for k in v):
        return {"dict": {k: _encode_value(x) for k, x in v.items()}}
    raise BoxCoxError(f"cannot save a value of type {type(v).__name__} in a formula's state")


def _decode_value(v: Any) -> Any:
    if not isinstance(v, dict):
        return v
    if "array" in v:
        dtype = np.dtype(v["array"])
        if dtype == np.longdouble:
            flat = np.array([np.longdouble(x) for x in v["data"]], dtype=dtype)
        else:
            flat = np.array([_decode_value(x) for x in v["data"]], dtype=dtype)
        return flat.reshape(v["shape"])
    if "float" in v:
        return jsonio.Float().decode(v["float"])
    if "list" in v:
        return [_decode_value(x) for x in v["list"]]
    if "tuple" in v:
        return tuple(_decode_value(x) for x in v["tuple"])
    if "dict" in v:
        return {k: _decode_value(x) for k, x in v["dict"].items()}
    raise jsonio._Bad(f"unknown value {v!r:.80} in a formula's state")


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
        if not isinstance(f, patsy.EvalFactor):
            raise BoxCoxError(f"cannot save the factor {f!r}: only formula terms can be saved")
        state = info.state
        env = state["eval_env"].namespace
        transforms = {}
        for key, obj in state["transforms"].items():
            cls = type(obj)
            if not _trusted(cls.__module__, _TRANSFORM_HOMES):
                raise BoxCoxError(f"the stateful transform {cls.__name__} in {f.code!r} is not "
                                  "patsy's or boxcoxstat's, so it cannot be saved")
            transforms[key] = {"class": f"{cls.__module__}:{cls.__qualname__}",
                               "state": {k: _encode_value(v) for k, v in vars(obj).items()}}
        out_factors.append({
            "code": f.code, "type": info.type, "num_columns": info.num_columns,
            "categories": None if info.categories is None else
            [_category(c) for c in info.categories],
            "names": {name: _name_ref(name, env[name], f.code) for name in ast_names(f.code)
                      if name in env},
            "eval_code": state["eval_code"], "memorize_code": dict(state["memorize_code"]),
            "pass_bins": [sorted(b) for b in state["pass_bins"]], "transforms": transforms,
        })
    terms = []
    for term, subterms in design_info.term_codings.items():
        terms.append({
            "factors": [position[f] for f in term.factors],
            "subterms": [{
                "factors": [position[f] for f in s.factors],
                "contrasts": [[position[f], _encode_value(np.asarray(c.matrix)),
                               list(c.column_suffixes)]
                              for f, c in s.contrast_matrices.items()],
                "num_columns": s.num_columns,
            } for s in subterms],
        })
    return {"engine": "patsy", "column_names": list(design_info.column_names),
            "factors": out_factors, "terms": terms}


def _namespace(names: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for name, ref in names.items():
        if "module" in ref:
            if not _trusted(ref["module"]):
                raise BoxCoxError(f"the saved design names the module {ref['module']!r}, which "
                                  "is not a trusted package")
            out[name] = importlib.import_module(ref["module"])
        elif "object" in ref:
            out[name] = _resolve(*ref["object"].split(":", 1))
        else:
            out[name] = ref["value"]
    return out


def _transform(spec: dict[str, Any]) -> Any:
    module, qual = spec["class"].split(":", 1)
    if not _trusted(module, _TRANSFORM_HOMES):
        raise BoxCoxError(f"the saved design names the transform {spec['class']!r}, which is "
                          "not patsy's or boxcoxstat's")
    cls = _resolve(module, qual)
    if not isinstance(cls, type):
        raise BoxCoxError(f"{spec['class']!r} is not a class")
    obj: Any = object.__new__(cls)  # patsy's and boxcoxstat's transforms are plain classes
    obj.__dict__.update({k: _decode_value(v) for k, v in spec["state"].items()})
    return obj


def design_from_document(doc: dict[str, Any]) -> Any:
    """The patsy ``DesignInfo`` that :func:`design_document` wrote (an equivalent object:
    new data give the same design matrix)."""
    if doc.get("engine") != "patsy":
        raise jsonio._Bad(f"unknown formula engine {doc.get('engine')!r}")
    factors = []
    infos: OrderedDict[Any, Any] = OrderedDict()
    for spec in doc["factors"]:
        f = patsy.EvalFactor(spec["code"])
        state = {
            "eval_env": patsy.EvalEnvironment([_namespace(spec["names"])]),
            "eval_code": spec["eval_code"], "memorize_code": dict(spec["memorize_code"]),
            "pass_bins": [set(b) for b in spec["pass_bins"]],
            "transforms": {k: _transform(t) for k, t in spec["transforms"].items()},
        }
        infos[f] = FactorInfo(f, spec["type"], state, spec["num_columns"],
                              spec["categories"])
        factors.append(f)
    codings: OrderedDict[Any, list[Any]] = OrderedDict()  # patsy requires the ordered kind
    for t in doc["terms"]:
        term = patsy.Term([factors[k] for k in t["factors"]])
        codings[term] = [
            SubtermInfo([factors[k] for k in s["factors"]],
                        {factors[k]: ContrastMatrix(_decode_value(m), list(suffixes))
                         for k, m, suffixes in s["contrasts"]},
                        s["num_columns"])
            for s in t["subterms"]
        ]
    return patsy.DesignInfo(list(doc["column_names"]), infos, codings)


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
