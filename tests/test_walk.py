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

Dask input takes the same route: the gate reads the collection (its set-up pass, every
partition's report merged and checked: ``_validation.partitions``), the model stage
(``federated.daskfit``) injects Dask's own ``dask.delayed`` / ``dask.compute`` /
``dask.persist`` into the core, and each round's partition functions and merges are the
core's (``core.partitioned``); Dask's frames are not boxcoxstat modules, so they are not
steps. Stated limit: on the error path only (a partition that raises) the core calls the
gate's ``first_failure`` to name the partition. ``family="auto"``'s rule is the core's
(``core.estimate.auto_family``), as in memory. Dask with case weights takes the same route
(the gate reads and checks the weights beside the values in its set-up pass; the core
merges the weighted moments), and so
does Spark, with or without weights: the gate's set-up job (``read_spark``), then the core's
``core.arrow`` columns with pyspark's ``DataFrame.collect`` and each column's bound
``mapInArrow`` injected (the functions shipped to the executors are the core's).
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
    """``bcs.fit(dask_df)``: door, then the gate, which recognises the collection and reads it
    (its set-up pass: ``read_dask``, every partition's ``ColumnReport``, their merge, the
    check of the merged report) before the model stage is entered; nothing after the gate
    enters it again (no re-check of options, no reading)."""
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    data = dd.from_pandas(frame, npartitions=3)
    with dask.config.set(scheduler="sync"):  # every call on this thread, for the profiler
        steps = _walk(lambda: bcs.fit(data))
    assert _stages(steps)[:3] == ["door", "gate", "model"]
    first = next(i for i, (m, _) in enumerate(steps) if _stage(m) not in ("door", "gate"))
    gate = [(m, f) for m, f in steps[:first] if _stage(m) == "gate"]
    assert gate[0] == ("boxcoxstat._validation.routes", "admit")
    assert ("boxcoxstat._validation.partitions", "read_dask") in gate
    assert ("boxcoxstat._validation.columns", "check_column") in gate
    assert not [f for m, f in steps[first:] if _stage(m) == "gate"]


@pytest.mark.parametrize("kind", ["frame", "array"])
def test_dask_input_is_a_straight_descent(frame, kind):
    """Door, gate (reading the partitions), model (Dask injected), core (every round's
    partition functions and merges), result: each stage once, for a Dask DataFrame and a
    2-D Dask array; the rounds run no boxcoxstat function outside the core."""
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    da = pytest.importorskip("dask.array")
    data = (dd.from_pandas(frame, npartitions=3) if kind == "frame" else
            da.from_array(frame.to_numpy(), chunks=(100, 2)))
    with dask.config.set(scheduler="sync"):
        steps = _walk(lambda: bcs.fit(data))
    assert _stages(steps) == list(ORDER)
    model = [m for m, _ in steps if _stage(m) == "model"]
    assert set(model) == {"boxcoxstat.federated.daskfit"}
    assert "boxcoxstat.core.partitioned" in {m for m, _ in steps}


def test_power_transformer_on_dask_takes_the_route_of_fit(frame):
    """``PowerTransformer().fit(dask_array)`` (issue 31's lazy fit): the door, then the
    stages of ``bcs.fit(dask_array)`` up to the result, then back in the door (the
    standardiser's pass)."""
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")
    data = da.from_array(frame.to_numpy(), chunks=(100, 2))
    with dask.config.set(scheduler="sync"):
        fit = _stages(_walk(lambda: bcs.fit(data, family="yeojohnson")))
        steps = _walk(lambda: PowerTransformer().fit(data))
    pt = _stages(steps)
    assert pt[:len(fit)] == fit == list(ORDER)
    assert pt[len(fit)] == "door"
    gate = [m for m, _ in steps if _stage(m) == "gate"]
    assert "boxcoxstat._validation.containers" in gate  # recognised by the gate, not the door
    first_gate = next(i for i, (m, _) in enumerate(steps) if _stage(m) == "gate")
    assert steps[first_gate] == ("boxcoxstat._validation.routes", "admit")


@pytest.mark.parametrize("kind", ["column", "series", "array"])
def test_weighted_dask_input_is_a_straight_descent(frame, kind):
    """``bcs.fit(dask_frame[["a"]], weights=dask_frame["w"])`` (and the weights as a column's
    name, or a NumPy array beside a Dask array): door, gate (the set-up pass reads the
    weights beside the values and checks them: ``read_dask``), model (Dask injected), core
    (the weighted moments of every round, the Jacobian's term), result; each stage once."""
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    da = pytest.importorskip("dask.array")
    w = np.linspace(0.5, 2.0, len(frame))
    ddf = dd.from_pandas(frame.assign(w=w), npartitions=3)
    call = {"column": lambda: bcs.fit(ddf, weights="w"),
            "series": lambda: bcs.fit(ddf[["a", "b"]], weights=ddf["w"]),
            "array": lambda: bcs.fit(da.from_array(frame.to_numpy(), chunks=(100, 2)),
                                     weights=w)}[kind]
    with dask.config.set(scheduler="sync"):
        steps = _walk(call)
        result = call()
    assert _stages(steps) == list(ORDER), [s for s in steps if _stage(s[0]) != "core"]
    model = {m for m, _ in steps if _stage(m) == "model"}
    assert model == {"boxcoxstat.federated.daskfit"}
    gate = [(m, f) for m, f in steps if _stage(m) == "gate"]
    assert ("boxcoxstat._validation.partitions", "read_dask") in gate
    memory = bcs.fit(frame, weights=w)  # the same weighted likelihood, pooled
    # merged moments vs the in-memory QR: 1e-10 (tests/federated/test_daskfit_weights.py's)
    assert np.asarray(result.lmbda) == pytest.approx(np.asarray(memory.lmbda), abs=1e-10)
    assert np.asarray(result.llf) == pytest.approx(np.asarray(memory.llf), abs=1e-9)


@pytest.fixture(scope="module")
def spark():
    pytest.importorskip("pyspark")
    from tests.sparkutil import local_spark

    with local_spark(1, "boxcoxstat-walk") as session:
        yield session


@pytest.mark.parametrize("weights", [None, "w"])
def test_spark_input_is_a_straight_descent(spark, frame, weights):
    """``bcs.fit(spark_df)`` (and with a weights column): door, gate (the set-up job reads
    every column and the weights: ``read_spark``), model (pyspark's ``collect`` injected),
    core (each round one ``mapInArrow`` job of the core's ``arrow_moments``, merged by the
    core), result; each stage once. The executors run in their own processes; on the
    driver no boxcoxstat function outside the core runs during a round."""
    w = np.linspace(0.5, 2.0, len(frame))
    sdf = spark.createDataFrame(frame.assign(w=w)).repartition(2)
    if weights is None:
        sdf = sdf.select("a", "b")
    steps = _walk(lambda: bcs.fit(sdf, weights=weights))
    assert _stages(steps) == list(ORDER), [s for s in steps if _stage(s[0]) != "core"]
    assert {m for m, _ in steps if _stage(m) == "model"} == {"boxcoxstat.federated.sparkfit"}
    assert ("boxcoxstat._validation.partitions", "read_spark") in steps
    assert "boxcoxstat.core.arrow" in {m for m, _ in steps}
