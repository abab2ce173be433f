"""The estimators of lambda, their options and defaults, declared once.

``bcs.fit(x, method=..., **options)``,
``bcs.sensitivity_curve(estimators=..., **options)`` and ``bcs.simulate(estimators=[...])`` all
validate and run estimators here, so a name and an option mean the same everywhere: ``"mtl"``
with ``h=0.9`` is one estimator in all three.

An *estimator spec* is a method name (``"rewml"``) or a pair ``(method, {options})``
(``("mtl", {"h": 0.9})``, ``("rewml", {"rectified": False})``); its :attr:`Spec.label`
(``"mtl(h=0.9)"``) names it in result tables.

The methods (Raymaekers & Rousseeuw 2021, sections 2.4-2.5 and 3.1):

* ``"mle"`` -- exact maximum likelihood through the core (``solve(SampleProfile)``);
* ``"rewml"`` -- reweighted maximum likelihood, as cellWise 2.5.3 ``transfo()`` computes it;
* ``"carroll"`` -- Carroll's (1980) Huber likelihood (Huber's proposal 2 location and scale);
* ``"mtl"`` -- maximum trimmed likelihood (Van der Veeken 2010), keeping a fraction ``h``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np
from numpy.typing import NDArray

from .._validation.columns import BoxCoxError
from ..core.profile import SampleProfile
from ..core.solve import solve
from . import estimators as est
from ._rfmin import TOL_R
from .huber import PRESTANDARDIZE, RECTIFY

__all__ = ["Option", "Method", "Spec", "EstimatorLike", "METHODS", "ROBUST_METHODS",
           "get_method", "parse_spec", "parse_specs", "lambdas"]


# --------------------------------------------------------------------------- option checks
def _number(name: str, low: float | None = None, high: float | None = None,
            *, low_open: bool = True, high_open: bool = True) -> Callable[[Any], float]:
    def check(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer,
                                                             np.floating)):
            raise BoxCoxError(f"{name} must be a number, got {value!r}")
        v = float(value)
        bad = not np.isfinite(v)
        if low is not None:
            bad |= v <= low if low_open else v < low
        if high is not None:
            bad |= v >= high if high_open else v > high
        if bad:
            lo = "-inf" if low is None else f"{low:g}"
            hi = "inf" if high is None else f"{high:g}"
            span = f"{'(' if low_open else '['}{lo}, {hi}{')' if high_open else ']'}"
            raise BoxCoxError(f"{name} must lie in {span}, got {value!r}")
        return v
    return check


def _integer(name: str, low: int) -> Callable[[Any], int]:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise BoxCoxError(f"{name} must be an integer >= {low}, got {value!r}")
        return int(value)
    return check


def _flag(name: str) -> Callable[[Any], bool]:
    def check(value: Any) -> bool:
        if not isinstance(value, (bool, np.bool_)):
            raise BoxCoxError(f"{name} must be True or False, got {value!r}")
        return bool(value)
    return check


def _choice(name: str, allowed: tuple[str, ...]) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        if value not in allowed:
            raise BoxCoxError(f"{name}={value!r} is not valid; use one of "
                              f"{', '.join(repr(a) for a in allowed)}")
        return str(value)
    return check


def _lmbda_range(value: Any) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in value)
    except (TypeError, ValueError):
        raise BoxCoxError(f"lmbda_range must be a pair (low, high), got {value!r}") from None
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < 1 < hi):
        raise BoxCoxError(f"lmbda_range must be finite and contain 1, got {value!r}")
    return lo, hi


@dataclass(frozen=True)
class Option:
    """One tuning option: its default, its check (returns the value to use) and what it is."""

    default: Any
    check: Callable[[Any], Any]
    doc: str


_SEARCH = {
    "lmbda_range": Option((-4.0, 6.0), _lmbda_range,
                          "lambda search range, expanded as cellWise does unless expand=False"),
    "expand": Option(True, _flag("expand"), "grow lmbda_range while lambda lands near an end"),
    "max_expand": Option(40, _integer("max_expand", 0), "at most this many expansions"),
    "tol": Option(TOL_R, _number("tol", 0.0), "Brent tolerance (R's optimize default 2**-13)"),
    "prestandardize": Option("cellwise", _choice("prestandardize", PRESTANDARDIZE),
                             "'cellwise' (YJ: median/MAD, BC: x/median), 'paper' or 'none'"),
    "quant": Option(0.99, _number("quant", 0.0, 1.0),
                    "flag |y - mu_H| > Phi^-1((1 + quant)/2) sigma_H"),
    "c": Option(0.5, _number("c", 0.0), "bisquare constant of the robust criterion"),
    "subsample": Option(25000, _integer("subsample", 0),
                        "Huber estimates of a longer column from this many values, the ones "
                        "cellWise draws (R's set.seed(0)); 0: all values"),
}
_REWML = {
    "nbsteps": Option(2, _integer("nbsteps", 1), "reweighted ML steps"),
    "rectified": Option(True, _flag("rectified"),
                        "rectified transform in step 1 (False: the paper's RewMLnr)"),
    "rectify": Option("cellwise", _choice("rectify", RECTIFY),
                      "change points: 'cellwise' or the paper's 'quartile'"),
    "rectify_factor": Option(1.5, _number("rectify_factor", 0.0),
                             "cellWise's change point factor"),
}
_GRID = {"grid": Option(201, _integer("grid", 3),
                       "lambda grid points before Brent's refinement (a global search)")}
_MTL = {
    "h": Option(0.95, _number("h", 0.5, 1.0, high_open=False), "fraction of points kept"),
    **_GRID,
}


@dataclass(frozen=True)
class Method:
    """An estimator: its name, a title for reports and its options with their defaults."""

    name: str
    title: str
    options: Mapping[str, Option] = field(default_factory=dict)

    def resolve(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """The full option set: defaults overridden by ``given``, every value checked."""
        unknown = sorted(set(given) - set(self.options))
        if unknown and not self.options:
            raise BoxCoxError(f"method={self.name!r} takes no options, got {unknown}")
        if unknown:
            raise BoxCoxError(f"method={self.name!r} does not take option(s) {unknown}; its "
                              f"options are {sorted(self.options)}")
        return {k: opt.check(given[k]) if k in given else opt.default
                for k, opt in self.options.items()}


METHODS: dict[str, Method] = {
    "mle": Method("mle", "maximum likelihood"),
    "rewml": Method("rewml", "reweighted ML (RewML)", {**_SEARCH, **_REWML}),
    "carroll": Method("carroll", "Carroll's robustified ML", {**_SEARCH, **_GRID}),
    "mtl": Method("mtl", "maximum trimmed likelihood (MTL)", {**_SEARCH, **_MTL}),
}
ROBUST_METHODS = tuple(m for m in METHODS if m != "mle")


def get_method(name: Any) -> Method:
    """The registered method called ``name``, or the package's error listing them."""
    if not isinstance(name, str) or name not in METHODS:
        raise BoxCoxError(f"unknown method {name!r}; use one of {list(METHODS)}")
    return METHODS[name]


@dataclass(frozen=True)
class Spec:
    """A validated estimator: the method, the options given and the full option set."""

    method: str
    given: Mapping[str, Any]
    options: Mapping[str, Any]

    @property
    def label(self) -> str:
        """``"rewml"``, or the method with the options given: ``"mtl(h=0.9)"``."""
        if not self.given:
            return self.method
        args = ", ".join(f"{k}={v!r}" for k, v in self.given.items())
        return f"{self.method}({args})"

    def with_defaults(self, **defaults: Any) -> Spec:
        """The spec with ``defaults`` for options it takes and was not given (the label is
        unchanged: they are the caller's defaults, not the user's choice)."""
        extra = {k: v for k, v in defaults.items()
                 if k in METHODS[self.method].options and k not in self.given}
        if not extra:
            return self
        return Spec(self.method, self.given,
                    METHODS[self.method].resolve({**extra, **self.given}))


# what users pass for an estimator: "rewml", ("mtl", {"h": 0.9}) or a parsed Spec
EstimatorLike = Union[str, tuple[str, Mapping[str, Any]], "Spec"]


def parse_spec(spec: Any, **options: Any) -> Spec:
    """A method name or a ``(method, {options})`` pair as a validated :class:`Spec`.

    Examples
    --------
    >>> from boxcoxstat.robust.registry import parse_spec
    >>> parse_spec(("mtl", {"h": 0.9})).label
    'mtl(h=0.9)'
    >>> parse_spec("rewml", rectified=False).options["nbsteps"]
    2
    """
    if isinstance(spec, Spec):
        given: dict[str, Any] = {**spec.given, **options}
        name = spec.method
    elif isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], Mapping):
        name, given = spec[0], {**spec[1], **options}
    elif isinstance(spec, str):
        name, given = spec, dict(options)
    else:
        raise BoxCoxError(f"an estimator is a method name or a (method, {{options}}) pair, "
                          f"got {spec!r}")
    m = get_method(name)
    full = m.resolve(given)
    return Spec(m.name, {k: full[k] for k in given}, full)


def parse_specs(specs: Any, **options: Any) -> list[Spec]:
    """One estimator spec, or a sequence of them, as a list of :class:`Spec` with distinct
    labels. ``options`` apply to a single estimator only (give several their options in
    their own ``(method, {options})`` pairs).

    Examples
    --------
    >>> from boxcoxstat.robust.registry import parse_specs
    >>> [s.label for s in parse_specs(["mle", ("mtl", {"h": 0.9}), "rewml"])]
    ['mle', 'mtl(h=0.9)', 'rewml']
    """
    single = isinstance(specs, (str, Spec)) or (
        isinstance(specs, tuple) and len(specs) == 2 and isinstance(specs[1], Mapping))
    if single:
        return [parse_spec(specs, **options)]
    try:
        items = list(specs)
    except TypeError:
        raise BoxCoxError(f"an estimator is a method name or a (method, {{options}}) pair, "
                          f"got {specs!r}") from None
    if not items:
        raise BoxCoxError("give at least one estimator")
    if options:
        raise BoxCoxError(f"option(s) {sorted(options)} apply to a single estimator; with "
                          "several, give each its options as a (method, {options}) pair")
    out = [parse_spec(s) for s in items]
    labels = [s.label for s in out]
    twice = sorted({v for v in labels if labels.count(v) > 1})
    if twice:
        raise BoxCoxError(f"estimator(s) {twice} are given more than once")
    return out


def lambdas(x: NDArray[np.float64], family: str, spec: Spec) -> NDArray[np.float64]:
    """lambda of every column of complete data ``x`` (n, p) by the estimator ``spec``."""
    if spec.method == "mle":
        return np.asarray(solve(SampleProfile.from_array(x, family)).lmbda, dtype=np.float64)
    return est.robust_lambda(x, family, spec.method, dict(spec.options)).lmbda
