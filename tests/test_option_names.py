"""One meaning per option name (issue 28): the table "Option names" in docs/architecture.rst,
encoded so that it holds for every public callable as the package grows.

The public surface is what a user reaches from ``import boxcoxstat as bcs``: the names in
``bcs.__all__`` and in the ``__all__`` of its public submodules, the public methods (and, for
classes that are not dataclasses, ``__init__``) of those classes, and the classes those
methods are annotated to return, recursively. A dataclass's ``__init__`` lists its
attributes (the result vocabulary, checked by ``tests/test_conformance.py``), not options.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import types
import typing
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import boxcoxstat as bcs

# --- the table ---------------------------------------------------------------------------
#: ``method`` is the estimator (of lambda, or of the principal components); scikit-learn's
#: ``PowerTransformer(method=)`` keeps scikit-learn's meaning (the family).
METHOD_OWNERS = {"fit", "robust_pca", "guerrero", "PowerTransformer.__init__"}
#: ``estimators`` is a list of lambda estimators; ``estimator`` one, where ``method`` is taken
#: (scikit-learn's ``PowerTransformer``); ``mean_estimator`` the estimator of the mean.
ESTIMATORS_OWNERS = {"simulate", "sensitivity_curve"}
ESTIMATOR_OWNERS = {"PowerTransformer.__init__"}
#: ``criterion`` is what a tuning search optimises (classify).
CRITERION_OWNERS = {"classify.tune", "classify.get_criterion",
                    "classify.BoxCoxTunedClassifier.__init__",
                    "classify.BoxCoxTunedTransformer.__init__"}
#: ``envelope`` is the band of a QQ plot.
ENVELOPE_OWNERS = {"qqplot"}
#: names no public option may take, and what to use instead.
FORBIDDEN = {
    "axes": "ax (one Axes, or a sequence of them for several panels)",
    "level": "alpha (the significance level)",
    "mean": "kind='mean' with mean_estimator=",
    "scale": "which= (scale is an attribute: the residual variance or a robust scale)",
    "interval_type": "interval",
    "estimator_options": "**options",
}
#: an option with one of these names has a default in its set (its one meaning).
DEFAULTS: dict[str, tuple[Any, ...]] = {
    "alpha": (0.05,),                               # the significance level
    "interval": (None, "profile"),                  # which interval: profile / wald,
                                                    # confidence / prediction
    "kind": ("median",),                            # median or mean
    "which": ("response",),                         # the response or the transformed one
    "envelope": ("pointwise",),                     # pointwise or simulated band
    "family": (inspect.Parameter.empty, None, "boxcox", "yeojohnson"),
    "column": (inspect.Parameter.empty, None, 0),   # one column, by name or position
    "columns": (inspect.Parameter.empty, None),     # several columns
    "ax": (None,),                                  # a new figure by default
}


# --- the public surface ------------------------------------------------------------------
def _modules() -> list[tuple[str, types.ModuleType]]:
    out = [("", bcs)]
    for name in bcs.__all__:
        obj = getattr(bcs, name)
        if isinstance(obj, types.ModuleType):
            out.append((name + ".", obj))
    return out


def _ours(obj: Any) -> bool:
    return getattr(obj, "__module__", "").startswith("boxcoxstat")


def _returned_classes(func: Callable[..., Any]) -> list[type]:
    try:
        hint = typing.get_type_hints(func).get("return")
    except Exception:  # an annotation only importable for type checking
        return []
    found: list[type] = []
    stack = [hint]
    while stack:
        h = stack.pop()
        if isinstance(h, type) and _ours(h):
            found.append(h)
        stack.extend(typing.get_args(h))
    return found


def public_callables() -> dict[str, Callable[..., Any]]:
    """Qualified name (as reached from ``bcs``) -> callable."""
    out: dict[str, Callable[..., Any]] = {}
    queue: list[tuple[str, Any]] = []
    for prefix, mod in _modules():
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if not isinstance(obj, types.ModuleType):
                queue.append((prefix + name, obj))
    seen: set[int] = set()
    while queue:
        qual, obj = queue.pop()
        if id(obj) in seen or not _ours(obj):
            continue
        seen.add(id(obj))
        if inspect.isclass(obj):
            if issubclass(obj, BaseException):
                continue
            if not dataclasses.is_dataclass(obj):
                out[qual + ".__init__"] = obj.__init__
            for name, member in inspect.getmembers(obj):
                if name.startswith("_") or not (inspect.isfunction(member)
                                                or inspect.ismethod(member)):
                    continue
                if _ours(member):
                    out[f"{qual}.{name}"] = member
                    for cls in _returned_classes(member):
                        queue.append((cls.__name__, cls))
        elif callable(obj):
            out[qual] = obj
            for cls in _returned_classes(obj):
                queue.append((cls.__name__, cls))
    return out


PUBLIC = public_callables()


def _parameters() -> Iterator[tuple[str, inspect.Parameter]]:
    for qual, func in sorted(PUBLIC.items()):
        try:
            sig = inspect.signature(func)
        except (TypeError, ValueError):
            continue
        for p in sig.parameters.values():
            if p.name not in ("self", "cls"):
                yield qual, p


def test_the_surface_is_found():
    # the walk reaches functions, submodules' functions, methods, __init__ and returned classes
    for qual in ("fit", "qqplot", "sensitivity_curve", "PowerTransformer.__init__",
                 "LmResult.predict", "LmResult.get_prediction", "classify.tune",
                 "PowerTransformResult.qqplot", "RobustPCAResult.plot_scores",
                 "federated.fit"):
        assert qual in PUBLIC, qual
    assert any(q.startswith("LmPrediction.") for q in PUBLIC)  # reached by a return type


@pytest.mark.parametrize("name", sorted(FORBIDDEN))
def test_no_public_option_takes_a_retired_name(name):
    bad = [q for q, p in _parameters() if p.name == name]
    assert not bad, f"{name}= in {bad}; use {FORBIDDEN[name]}"


@pytest.mark.parametrize(("name", "owners"), [
    ("method", METHOD_OWNERS), ("estimators", ESTIMATORS_OWNERS),
    ("estimator", ESTIMATOR_OWNERS), ("criterion", CRITERION_OWNERS),
    ("envelope", ENVELOPE_OWNERS),
])
def test_names_with_one_owner_stay_with_it(name, owners):
    found = {q for q, p in _parameters() if p.name == name}
    assert found <= owners, f"{name}= outside its owners: {sorted(found - owners)}"
    missing = {q for q in owners if q in PUBLIC} - found
    assert not missing, f"{name}= no longer in {sorted(missing)}: update the table"


@pytest.mark.parametrize("name", sorted(DEFAULTS))
def test_option_defaults_say_one_meaning(name):
    odd = [(q, p.default) for q, p in _parameters()
           if p.name == name and p.default not in DEFAULTS[name]]
    assert not odd, f"{name}= with a default outside {DEFAULTS[name]}: {odd}"


def _is_plot(qual: str) -> bool:
    last = qual.rsplit(".", 1)[-1]
    return last.startswith("plot") or last.endswith("qqplot") or last == "symbox"


def test_every_plot_takes_ax():
    plots = [q for q in PUBLIC if _is_plot(q)]
    assert len(plots) > 10  # the walk found the plots
    missing = [q for q in plots if "ax" not in inspect.signature(PUBLIC[q]).parameters]
    assert not missing, f"plots without ax=: {missing}"


def test_mean_estimator_and_which_are_predict_options():
    sig = inspect.signature(bcs.LmResult.predict).parameters
    assert sig["mean_estimator"].default == "smearing" and sig["which"].default == "response"
    assert inspect.signature(bcs.LmResult.get_prediction).parameters["which"].default == \
        "response"


def _cli_flags() -> set[str]:
    from boxcoxstat import cli

    parser = cli._build_parser()
    flags: set[str] = set()
    stack = [parser]
    while stack:
        p = stack.pop()
        for action in p._actions:
            flags.update(s.lstrip("-") for s in action.option_strings)
            if isinstance(action, argparse._SubParsersAction):
                stack.extend(action.choices.values())
    return flags


def test_cli_flags_use_the_same_names():
    flags = _cli_flags()
    assert {"method", "family", "columns", "alpha"} <= flags
    assert not flags & set(FORBIDDEN), sorted(flags & set(FORBIDDEN))
