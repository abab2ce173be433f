"""The walk of a fit's data through the package: a straight descent (issue 28).

The walk is the sequence of boxcoxstat modules whose functions are called (``sys.setprofile``,
call events only; returns are not steps), consecutive repeats collapsed. Each module belongs
to one stage, in the order the data descend:

1. ``door`` -- what the user called: ``boxcoxstat.api`` (``bcs.fit`` and the estimator
   table's entry ``api._fit``) and ``boxcoxstat.sklearn`` (``PowerTransformer``);
2. ``gate`` -- ``boxcoxstat._validation``: options checked (the family's name made canonical,
   a fixed power read per column, a known shift checked against the data), the table's row
   found (or the one refusal), the container recognised and the data read into validated
   columns;
3. ``model`` -- the family that fits a sample, the row's function: ``boxcoxstat.univariate.
   model`` for maximum likelihood (estimated, fixed, shifted, bounded, weighted), the robust
   family's ``boxcoxstat.robust.model`` with its option registry (``robust.registry``) for
   ``method="rewml" | "carroll" | "mtl"``, and, for partitioned input,
   ``boxcoxstat.federated``: the columns turned into what the core computes on;
4. ``core`` -- the computation: ``boxcoxstat.core`` (the sample, its profile likelihood, the
   solver, the powers' resolution), the elementary functions of ``boxcoxstat._special`` and
   the transforms' math in ``boxcoxstat.families``; for a robust fit also the robust
   family's own estimation engine (``robust.estimators``, ``.huber``, ``.likelihood``,
   ``._rfmin``, ``._rrng``: Huber estimates, the robust criteria and their minimiser);
5. ``result`` -- the result object: ``boxcoxstat.univariate.results``,
   ``boxcoxstat.robust.results`` and ``boxcoxstat.base``.

``boxcoxstat._arrays`` (array reductions written once for the gate and the core, importing
nothing of the package) is no stage: a call into it is part of its caller's step, as a call
into NumPy is.

A straight descent visits the stages in this order, each once (no stage is entered again
after the walk has moved on to a later one), so the gate is entered exactly once, before the
core. ``PowerTransformer.fit`` standardises after its fit (its ``transform`` stage, back in the
door); its walk up to the result is compared with ``bcs.fit``'s.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs
from boxcoxstat import PowerTransformer

STAGES = (  # module prefix -> stage, most specific first
    ("boxcoxstat.api", "door"), ("boxcoxstat.sklearn", "door"),
    ("boxcoxstat._validation", "gate"),
    ("boxcoxstat.univariate.model", "model"), ("boxcoxstat.federated", "model"),
    ("boxcoxstat.robust.model", "model"), ("boxcoxstat.robust.registry", "model"),
    ("boxcoxstat.core", "core"), ("boxcoxstat._special", "core"),
    ("boxcoxstat.families", "core"), ("boxcoxstat.robust.estimators", "core"),
    ("boxcoxstat.robust.huber", "core"), ("boxcoxstat.robust.likelihood", "core"),
    ("boxcoxstat.robust._rfmin", "core"), ("boxcoxstat.robust._rrng", "core"),
    ("boxcoxstat.univariate.results", "result"), ("boxcoxstat.robust.results", "result"),
    ("boxcoxstat.base", "result"),
)
NO_STAGE = ("boxcoxstat._arrays",)  # shared leaf helpers: part of the caller's step
ORDER = ("door", "gate", "model", "core", "result")


def _stage(module: str) -> str:
    for prefix, stage in STAGES:
        if module == prefix or module.startswith(prefix + "."):
            return stage
    return module  # a module outside the descent: named as itself, so a test shows it


def _walk(call: Callable[[], object]) -> list[tuple[str, str]]:
    """(module, function) of every boxcoxstat function called by ``call``, in order, with
    consecutive calls into the same module collapsed to the first."""
    call()  # first imports and caches out of the way
    steps: list[tuple[str, str]] = []

    def profile(frame, event, arg):  # noqa: ARG001 (the profiler's signature)
        if event == "call":
            module = frame.f_globals.get("__name__", "")
            if (module.startswith("boxcoxstat") and module not in NO_STAGE
                    and (not steps or steps[-1][0] != module)):
                steps.append((module, frame.f_code.co_name))

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return steps


def _stages(steps: list[tuple[str, str]]) -> list[str]:
    out: list[str] = []
    for module, _ in steps:
        stage = _stage(module)
        if not out or out[-1] != stage:
            out.append(stage)
    return out


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(28)
    return pd.DataFrame({"a": rng.lognormal(size=300), "b": rng.gamma(3.0, size=300)})


def test_fit_is_a_straight_descent(frame):
    stages = _stages(_walk(lambda: bcs.fit(frame, family="boxcox")))
    assert stages == list(ORDER)


def test_the_gate_is_entered_once_by_its_entry(frame):
    steps = _walk(lambda: bcs.fit(frame, family="boxcox"))
    gate = [(m, f) for m, f in steps if _stage(m) == "gate"]
    assert gate[0] == ("boxcoxstat._validation.routes", "admit")
    first = next(i for i, (m, _) in enumerate(steps) if _stage(m) == "gate")
    last = max(i for i, (m, _) in enumerate(steps) if _stage(m) == "gate")
    core = next(i for i, (m, _) in enumerate(steps) if _stage(m) == "core")
    assert all(_stage(m) == "gate" for m, _ in steps[first:last + 1]) and last < core


def test_power_transformer_takes_the_route_of_fit(frame):
    """From the door to the result, ``PowerTransformer().fit(X)`` walks the stages of
    ``bcs.fit``; after the result it is back in the door, standardising."""
    fit = _stages(_walk(lambda: bcs.fit(frame, family="yeojohnson")))
    pt = _stages(_walk(lambda: PowerTransformer().fit(frame.to_numpy())))
    assert pt[:len(fit)] == fit == list(ORDER)
    assert pt[len(fit)] == "door"  # the standardiser: a transform, not the fit
    steps = _walk(lambda: PowerTransformer().fit(frame.to_numpy()))
    assert [m for m, _ in steps[:3]] == ["boxcoxstat.sklearn.transformer", "boxcoxstat.api",
                                         "boxcoxstat._validation.routes"]


READS = {"admit", "as_columns", "to_matrix", "container_of"}  # the gate's reading of input

#: Every in-memory row of the estimator table (``boxcoxstat.api.ROUTES``) with a setting
#: that selects it: estimated, robust, fixed, shifted (a known gamma and bcnPower), bounded,
#: weighted, ``ymax``, the safe power and ``family="auto"``.
ROWS = {
    "estimated": {}, "yeojohnson": {"family": "yeojohnson"}, "rewml": {"method": "rewml"},
    "mtl": {"method": "mtl"}, "fixed": {"lmbda": 0.0}, "gamma": {"gamma": 1.0},
    "bcnpower": {"family": "bcnpower"}, "bounds": {"bounds": (-1.0, 1.0)},
    "weights": {"weights": np.linspace(0.5, 2.0, 300)}, "ymax": {"ymax": 1e3},
    "safe": {"lmbda": "safe"}, "auto": {"family": "auto"},
}


@pytest.mark.parametrize("row", list(ROWS))
def test_every_in_memory_row_is_a_straight_descent(frame, row):
    """door -> gate -> model -> core -> result for every in-memory row: below the gate no
    function takes the user's spelling of an option again (the family's name, a fixed
    power, a shift are checked once, at the gate), and the model hands the core the whole
    computation before the result is built."""
    steps = _walk(lambda: bcs.fit(frame["a"], **ROWS[row]))
    assert _stages(steps) == list(ORDER), (row, [s for s in steps if _stage(s[0]) != "core"])
    model = "boxcoxstat.robust" if row in ("rewml", "mtl") else "boxcoxstat.univariate.model"
    first = next(m for m, _ in steps if _stage(m) == "model")
    assert first.startswith(model), (row, first)


def test_dask_input_passes_the_gate_first_then_reads_its_partitions(frame):
    """``bcs.fit(dask_df)``: door, then the gate (options, the table's row; the collection is
    recognised, not read), then the partitioned backend. What the gate does after that is
    the set-up pass's: every partition's column report (``ColumnReport``), their merge and
    the check of the merged report (``check_column``), called by the backend where the data
    are read, and the backend's own re-check of options (``fit_partitioned`` is also called
    directly); nothing reads the input again (``admit``, ``as_columns``, ``to_matrix``)."""
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    data = dd.from_pandas(frame, npartitions=3)
    with dask.config.set(scheduler="sync"):  # every call on this thread, for the profiler
        steps = _walk(lambda: bcs.fit(data))
    stages = _stages(steps)
    assert stages[:3] == ["door", "gate", "model"]
    first = next(i for i, (m, _) in enumerate(steps) if _stage(m) not in ("door", "gate"))
    again = {f for m, f in steps[first:] if _stage(m) == "gate"}
    assert again <= {"of", "merge", "check_column", "check_spread", "normalize_family",
                     "check_option", "<setcomp>", "_at", "first", "label"}, again
    assert not again & READS


@pytest.mark.xfail(strict=True, reason="not done: the Dask backend reads its partitions in "
                   "its set-up pass and checks them with the gate's column rules there, and "
                   "its solver's profile calls back into the backend each round")
def test_dask_input_is_a_straight_descent(frame):
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    data = dd.from_pandas(frame, npartitions=3)
    with dask.config.set(scheduler="sync"):
        assert _stages(_walk(lambda: bcs.fit(data))) == list(ORDER)
