"""The estimator table's machinery: a fit's options checked once, matched against the table of
what exists (``boxcoxstat.api.TABLE``), refused in one message built here, and its data read.

Every door that fits a power of a sample (``bcs.fit``, ``PowerTransformer``, the command line
through ``bcs.fit``) enters the gate once, through :func:`admit`: the options are checked and
named in the door's own spelling, the container is recognised (in memory, Dask, Spark), the
combination (estimator x family x settings x container) is looked up in the table, and the
in-memory data are read into validated :class:`~boxcoxstat._validation.columns.Columns`. What
comes out is the table's row (which names the function that fits it) and a :class:`Request`
holding everything that function needs; nothing after it checks an option again.

The settings of a fit, by their names here (each door spells them its own way, see
:class:`Door`): ``"fixed"`` (a given power, ``lmbda=``), ``"safe"`` (``lmbda="safe"``),
``"shifted"`` (a known shift, ``gamma=``), ``"bounded"`` (``bounds=``), ``"weighted"`` (case
weights, ``weights=``), ``"frequency"`` (frequency weights, scikit-learn's
``sample_weight``), ``"ymax"`` (``ymax=``) and ``"options"`` (a robust estimator's keywords).
A fit without ``"fixed"`` estimates the power.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..exceptions import BoxCoxError
from .columns import (
    Columns,
    as_columns,
    case_weights,
    check_bounds,
    check_number,
    check_option,
    check_shift,
    check_weights_column,
    normalize_family,
    power_values,
)
from .containers import container_of
from .features import as_features
from .partitions import Partitioned, read_dask, read_spark

__all__ = ["ESTIMATORS", "SETTINGS", "Route", "Hint", "Door", "Table", "Request", "admit",
           "refusal"]

ESTIMATORS = ("mle", "rewml", "carroll", "mtl")
SETTINGS = ("fixed", "safe", "shifted", "bounded", "weighted", "frequency", "ymax", "options")
_CONTAINERS = {"memory": "in-memory data", "dask": "Dask input", "spark": "Spark input"}


def _names(text: str | frozenset[str]) -> frozenset[str]:
    names = frozenset(text.split()) if isinstance(text, str) else frozenset(text)
    unknown = sorted(names - set(SETTINGS))
    if unknown:
        raise ValueError(f"unknown setting(s) {unknown} in the estimator table")
    return names


@dataclass(frozen=True)
class Route:
    """One row of the estimator table: a fit that exists.

    A request is served by the row whose ``container`` it has, whose ``estimators`` and
    ``families`` hold its estimator and family, and whose ``needs`` it has, with nothing
    beyond ``needs | takes``. ``fitter`` names the function that fits it (``"module:name"``
    under ``boxcoxstat``; it takes the :class:`Request`); ``None`` marks a combination
    refused for now ("not available ... yet"). ``doors``: the entry points that offer it.
    """

    container: str
    estimators: tuple[str, ...]
    families: tuple[str, ...]
    needs: frozenset[str] | str = frozenset()
    takes: frozenset[str] | str = frozenset()
    fitter: str | None = None
    doors: tuple[str, ...] = ("fit",)

    def __post_init__(self) -> None:
        object.__setattr__(self, "needs", _names(self.needs))
        object.__setattr__(self, "takes", _names(self.takes))

    def offers(self, door: str, container: str) -> bool:
        return door in self.doors and self.container == container

    def serves(self, estimator: str, family: str, settings: frozenset[str]) -> bool:
        return (estimator in self.estimators and family in self.families
                and self.needs <= settings <= self.needs | self.takes)  # type: ignore[operator]


@dataclass(frozen=True)
class Hint:
    """Advice added to a refusal whose request has every token of ``when`` (settings,
    ``"robust"`` for a robust estimator, and the family's name) in ``container`` (``None``:
    any) at ``door``."""

    when: frozenset[str] | str
    text: str
    container: str | None = None
    door: str = "fit"

    def __post_init__(self) -> None:
        if isinstance(self.when, str):
            object.__setattr__(self, "when", frozenset(self.when.split()))


@dataclass(frozen=True)
class Door:
    """How an entry point spells the table's words in its messages."""

    name: str
    estimator: str = "method"
    family: str = "family"
    families: dict[str, str] = field(default_factory=lambda: {
        "boxcox": "boxcox", "yeojohnson": "yeojohnson", "auto": "auto", "bcnpower": "bcnpower"})
    settings: dict[str, str] = field(default_factory=lambda: {
        "fixed": "lmbda= (a fixed power)", "safe": "lmbda='safe'",
        "shifted": "gamma= (a known shift)", "bounded": "bounds=", "weighted": "weights=",
        "frequency": "sample_weight", "ymax": "ymax=", "options": "keywords"})
    quoted: bool = True  # method='mle' (keywords); False: --method mle (command line)

    def value(self, option: str, value: str) -> str:
        return f"{option}={value!r}" if self.quoted else f"{option} {value}"

    def values(self, option: str, values: list[str]) -> str:
        return f"{option} " + _either([repr(v) if self.quoted else v for v in values])


@dataclass(frozen=True)
class Table:
    """The estimator table: its rows, the advice its refusals may carry, and the doors."""

    routes: tuple[Route, ...]
    hints: tuple[Hint, ...]
    doors: dict[str, Door]


@dataclass(frozen=True)
class Request:
    """A fit the table serves, with everything its fitter needs (checked by the gate).

    ``data`` is validated :class:`~boxcoxstat._validation.columns.Columns` in memory, a Dask
    collection read by its set-up pass (:class:`~boxcoxstat._validation.partitions.
    Partitioned`, with case weights read and checked beside the values), a Spark DataFrame
    read by its set-up job (the same). Everything is checked and canonical: ``family`` is
    the canonical name, a fixed ``lmbda`` of ``bcs.fit`` in memory is one float per column
    (``power_values``), a known Box-Cox shift ``gamma`` leaves every value positive; the
    functions below the gate use them as they are. ``weights`` are case weights
    (``lm(weights=)``'s: validated, one per row, in memory; as given for Dask, whose read
    columns carry them), ``frequency`` frequency weights (``PowerTransformer``'s
    ``sample_weight``), ``bounds`` a ``(p, 2)`` array.
    ``constant="keep"``: a constant Yeo-Johnson column is not fitted (scikit-learn's rule);
    ``kept`` then lists the positions of the columns that are. ``stacklevel``: the frames
    from the fitter to the user's call, for warnings.
    """

    door: str
    container: str
    estimator: str
    family: str
    settings: frozenset[str]
    data: Any
    missing: str = "drop"
    ymax: float | None = None
    lmbda: Any = None
    gamma: float | None = None
    gamma_min: float = 0.1
    weights: Any = None
    frequency: NDArray[np.float64] | None = None
    bounds: NDArray[np.float64] | None = None
    options: dict[str, Any] = field(default_factory=dict)
    constant: str = "raise"
    kept: NDArray[np.intp] | None = None
    stacklevel: int = 4
    safe_option: str = "bcs.fit(..., lmbda='safe')"

    @property
    def safe(self) -> bool:
        return "safe" in self.settings


def admit(table: Table, door: str, data: Any, *, family: Any, estimator: Any,
          missing: Any = "drop", ymax: Any = None, lmbda: Any = None, gamma: Any = None,
          gamma_min: Any = 0.1, weights: Any = None, frequency: Any = None, bounds: Any = None,
          options: dict[str, Any] | None = None, names: list[str] | None = None,
          layout: str = "array2d", stacklevel: int = 4,
          safe_option: str = "bcs.fit(..., lmbda='safe')", read: bool = True,
          spelling: str | None = None) -> tuple[Route, Request]:
    """Check a fit's options, find its row in ``table`` (or raise the one refusal), and read
    its data: the gate, entered once by every door.

    ``door="fit"`` takes ``bcs.fit``'s arguments (``weights`` may name a column of a
    DataFrame). ``door="PowerTransformer"`` takes scikit-learn's validated float matrix (or a
    Dask collection) with its feature ``names``, the family in scikit-learn's spelling
    (``"box-cox"``), ``lmbda`` ``None`` or ``"safe"`` and ``frequency`` weights; its constant
    Yeo-Johnson features are not fitted (``Request.kept``). ``read=False`` checks the
    options and the combination only (the request then holds ``data`` as given);
    ``spelling`` names the door whose words a refusal uses, when not ``door``'s own.
    """
    spelled = table.doors[door]
    options = dict(options or {})
    if door == "fit":
        fam = normalize_family(family, allow_shifted=True)
    else:  # scikit-learn's names for the family
        check_option(spelled.family, family, tuple(spelled.families.values()))
        fam = {v: k for k, v in spelled.families.items()}[family]
    check_option(spelled.estimator, estimator, ESTIMATORS)
    check_option("missing", missing, ("drop", "raise"))
    ymax = None if ymax is None else check_number("ymax", ymax, positive=True)
    gamma = None if gamma is None else check_number("gamma", gamma)
    gamma_min = check_number("gamma_min", gamma_min, positive=True)
    if door != "fit" and lmbda is not None:
        check_option("lmbda", lmbda, ("safe",))
    if isinstance(lmbda, str) and lmbda != "safe":
        raise BoxCoxError(f"lmbda must be a number, one number per column, a Series by "
                          f"column or 'safe', got {lmbda!r:.40}")
    container = container_of(data)
    if container == "memory" and isinstance(weights, str):
        data, weights = _weights_column(data, weights)
    settings = {s for s, given in (
        ("fixed", lmbda is not None and not isinstance(lmbda, str)),
        ("safe", isinstance(lmbda, str)), ("shifted", gamma is not None),
        ("bounded", bounds is not None), ("weighted", weights is not None),
        ("frequency", frequency is not None), ("ymax", ymax is not None),
        ("options", bool(options))) if given}
    request = frozenset(settings)
    route = next((r for r in table.routes if r.offers(door, container)
                  and r.serves(estimator, fam, request)), None)
    if route is None or route.fitter is None:
        raise BoxCoxError(refusal(table, door, container, estimator, fam, request, options,
                                  spelling))
    if fam == "bcnpower" and gamma is not None and gamma <= 0:
        raise BoxCoxError(f"gamma must be a finite number (> 0 for bcnpower), got {gamma!r}")
    kept = None
    if not read:
        pass
    elif container == "memory" and door == "fit":
        data = _read(data, estimator, fam, request, missing)
        if "fixed" in request:  # one power per column, checked once
            lmbda = power_values(data.names, lmbda, "lmbda")
        if "shifted" in request and fam == "boxcox":  # every x + gamma > 0
            for j, name in enumerate(data.names):
                check_shift(data.values[:, j], float(gamma), name, data.row_label)
    elif container == "memory":
        data, kept = as_features(data, list(names or []), family=fam, weights=frequency,
                                 layout=layout)
    elif container == "dask":  # its set-up pass, the case weights read beside the values
        data = read_dask(data, family=fam, missing=missing, weights=weights,
                         constant="raise" if door == "fit" else "keep")
        kept = data.kept
    elif container == "spark":  # its set-up job, the case weights' column read beside
        data = read_spark(data, family=fam, missing=missing, weights=weights)
    p = len(data.names) if isinstance(data, (Columns, Partitioned)) else 1
    if bounds is not None and read and isinstance(data, (Columns, Partitioned)):
        bounds = check_bounds(bounds, p if door == "fit" else 1)
        if bounds is not None and bounds.shape[0] != p:
            bounds = np.tile(bounds[:1], (p, 1))
    if isinstance(data, Columns) and weights is not None:
        weights = case_weights(weights, data.values.shape[0])
    return route, Request(
        door=door, container=container, estimator=estimator, family=fam, settings=request,
        data=data, missing=missing, ymax=ymax, lmbda=lmbda, gamma=gamma,
        gamma_min=float(gamma_min), weights=weights, frequency=frequency, bounds=bounds,
        options=options, constant="raise" if door == "fit" else "keep", kept=kept,
        stacklevel=stacklevel, safe_option=safe_option)


def _read(data: Any, estimator: str, family: str, settings: frozenset[str],
          missing: str) -> Columns:
    """In-memory data as validated columns, read as the route needs them: a robust fit
    reports and leaves out the columns without a robust scale; a shifted fit reads any sign;
    a sample's own profile reaches lambda ~ 1/range (``tiny_scale``)."""
    if estimator != "mle":
        return as_columns(data, family="yeojohnson" if family == "auto" else family,
                          missing=missing, degenerate="skip")
    if family == "bcnpower" or "shifted" in settings:
        return as_columns(data, family="yeojohnson", missing=missing)
    return as_columns(data, family="yeojohnson" if family == "auto" else family,
                      missing=missing, tiny_scale=True)


def _weights_column(data: Any, name: str) -> tuple[Any, Any]:
    """``weights="w"``: the column ``w`` of a DataFrame as the weights, and the other columns
    as the data."""
    check_weights_column(data, name)
    w = data[name]
    w = w.to_numpy() if hasattr(w, "to_numpy") else np.asarray(w)
    import pandas as pd

    rest = data.drop(columns=[name]) if isinstance(data, pd.DataFrame) else data.drop(name)
    return rest, w  # (polars: drop takes the names)


# ----------------------------------------------------------------------- the one refusal
def _either(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def refusal(table: Table, door: str, container: str, estimator: str, family: str,
            settings: frozenset[str], options: dict[str, Any] | None = None,
            spelling: str | None = None) -> str:
    """The message for a combination the table does not serve: what is refused (the
    estimator, the family, a setting, or settings together), what the table offers instead
    for that estimator and family (or container), and the table's advice for it.

    Examples
    --------
    >>> from boxcoxstat.api import TABLE
    >>> from boxcoxstat._validation.routes import refusal
    >>> text = refusal(TABLE, "fit", "memory", "mle", "bcnpower", frozenset({"weighted"}))
    >>> for part in text.split("; "):
    ...     print(part)
    weights= needs method='mle' with family 'boxcox', 'yeojohnson' or 'auto'
    method='mle' with family='bcnpower' takes: estimated, optionally with gamma= (a known shift)
    """
    sp = table.doors[spelling or door]
    ctx = "" if container == "memory" else f" for {_CONTAINERS[container]}"
    here = [r for r in table.routes if r.offers(door, container)]
    live = [r for r in here if r.fitter is not None]

    def est(names: Any) -> str:
        names = [e for e in ESTIMATORS if e in names]
        return (sp.value(sp.estimator, names[0]) if len(names) == 1 else
                sp.values(sp.estimator, names))

    def fam(names: Any) -> str:
        names = [sp.families[f] for f in sp.families if f in names]
        return (sp.value(sp.family, names[0]) if len(names) == 1 else
                sp.values(sp.family, names))

    def setting(s: str) -> str:
        if s == "options" and options:
            keys = ", ".join(f"{k}=" for k in sorted(options))
            return f"keyword {keys}" if len(options) == 1 else f"keywords {keys}"
        return sp.settings.get(s, s)

    def is_are(s: str) -> str:
        return "are" if s == "options" and options and len(options) > 1 else "is"

    def takes(rows: list[Route]) -> str:
        alts = []
        for r in rows:
            if not r.needs <= sp.settings.keys():  # type: ignore[operator]
                continue  # a setting this door does not offer
            needs = " and ".join(setting(s) for s in SETTINGS if s in r.needs)
            more = [setting(s) for s in SETTINGS
                    if s in r.takes and s in sp.settings and s != "options"]
            if "options" in r.takes and "options" in sp.settings:
                more.append("the estimator's keywords")
            alts.append((needs or "estimated") + (
                "" if not more else f", optionally with {more[0]}" if len(more) == 1 else
                f", optionally with any of {', '.join(more)}"))
        return "; or ".join(alts)

    ours = [r for r in live if estimator in r.estimators]
    both = [r for r in ours if family in r.families]
    if not ours:
        what = [e for e in ESTIMATORS if any(e in r.estimators for r in live)]
        head = (f"{est([estimator])} is not available{ctx}, which is fitted by "
                + ("maximum likelihood (" + est(what) + ")" if what == ["mle"] else est(what))
                + " only")
    elif not both:
        others = [e for e in ESTIMATORS if any(e in r.estimators and family in r.families
                                               for r in live)]
        fams = {f for r in ours for f in r.families}
        head = (f"{fam([family])} needs {est(others)}{ctx}; " if others else
                f"{fam([family])} is not available{ctx}; ") + \
            f"{est([estimator])}{ctx} takes {fam(fams)}"
    else:
        allowed = {s for r in both for s in r.needs | r.takes}  # type: ignore[operator]
        bad = [s for s in SETTINGS if s in settings and s not in allowed]
        said = []
        for s in bad:
            pending = any(r.fitter is None and estimator in r.estimators and family in
                          r.families and s in r.needs for r in here)
            having = [r for r in live if s in r.needs | r.takes]  # type: ignore[operator]
            if pending or not having:
                said.append(f"{setting(s)} {is_are(s)} not available{ctx}"
                            + (" yet" if pending else ""))
            elif s == "options" and not any(estimator in r.estimators for r in having):
                said.append(f"{est([estimator])} takes no options, got {sorted(options or {})}")
            elif not any(estimator in r.estimators for r in having):
                said.append(f"{setting(s)} needs " + est(
                    {e for r in having for e in r.estimators}))
            else:
                said.append(f"{setting(s)} needs {est([estimator])} with " + fam(
                    {f for r in having if estimator in r.estimators for f in r.families}))
        if not said:
            said.append(" and ".join(setting(s) for s in SETTINGS if s in settings)
                        + f" do not go together{ctx}")
        head = "; ".join(said) + f"; {est([estimator])} with {fam([family])}{ctx} takes: " \
            + takes(both)
    tokens = set(settings) | {family} | ({"robust"} if estimator != "mle" else set())
    advice = [h.text for h in table.hints if h.door == door
              and h.when <= tokens  # type: ignore[operator]
              and h.container in (None, container)]
    if container != "memory" and any(r.offers(door, "memory") and r.fitter is not None
                                     and r.serves(estimator, family, settings)
                                     for r in table.routes):
        advice.append("bring the data into memory to fit it")
    return head + "".join(f"; {a}" for a in dict.fromkeys(advice))
