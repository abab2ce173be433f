"""A sample held in partitions (``core/partitioned.py``): the fit from per-partition moments
run through injected task callables, its pass count, and its checks of each partition."""

from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import optimize, stats

import boxcoxstat as bcs
from boxcoxstat.core import partitioned
from boxcoxstat.core.partitioned import (
    HeldColumn,
    Tasks,
    fit_held,
    new_tally,
    partition_values,
)
from boxcoxstat.exceptions import BoxCoxError

#: A scheduler of one thread, run at once: a "task" is its value (no Dask needed).
EAGER = Tasks(delayed=lambda f: f, compute=lambda *t: t, persist=lambda *t: t, split_every=3)


def _held(x: np.ndarray, k: int) -> SimpleNamespace:
    """What the gate hands on for one column split into ``k`` partitions."""
    parts = np.array_split(x, k)
    fin = x[np.isfinite(x)]
    return SimpleNamespace(name="x", parts=parts, rows=tuple(p.size for p in parts),
                           labels=tuple(f"partition {i} (of {k}) of column 'x'"
                                        for i in range(k)),
                           n=fin.size, pos=side(fin[fin >= 0]), neg=side(fin[fin < 0]),
                           lo=float(fin.min()), hi=float(fin.max()))


def test_the_fit_from_partitions_is_scipys_maximum():
    """Ten partitions merged in a tree of three: lambda is the maximum of SciPy's Box-Cox
    log-likelihood, and the in-memory fit's."""
    x = np.random.default_rng(28).lognormal(0.0, 0.7, 5000)
    tally = new_tally()
    (fit,) = fit_held([_held(x, 10)], EAGER, "boxcox", tally)
    ref = optimize.minimize_scalar(lambda lam: -stats.boxcox_llf(lam, x), bounds=(-3, 3),
                                   method="bounded", options={"xatol": 1e-12}).x
    assert abs(fit.sol.lmbda[0] - ref) < 1e-6  # SciPy's bounded search on a flat maximum
    assert abs(fit.sol.lmbda[0] - bcs.fit(x).lmbda) < 1e-12  # the same likelihood, exactly
    assert tally["passes"] == tally["rounds"] > 0  # one pass per evaluation, no subsample


def test_a_long_column_starts_from_its_subsample_in_one_more_pass():
    x = np.random.default_rng(1).normal(0.3, 1.5, 150_000)  # both signs: Yeo-Johnson
    tally = new_tally()
    (fit,) = fit_held([_held(x, 6)], EAGER, "yeojohnson", tally)
    assert tally["subsample_rounds"] > 0
    assert tally["passes"] == tally["rounds"] + 1  # the subsample's extraction
    assert abs(fit.sol.lmbda[0] - bcs.fit(x, family="yeojohnson").lmbda) < 1e-10 * max(
        1.0, abs(fit.sol.lmbda[0]))  # the solver's roots, rounding apart


def test_a_partition_that_changes_between_passes_is_refused_by_name():
    label = "partition 3 (of 5) of column 'a'"
    with pytest.raises(BoxCoxError, match=r"partition 3 \(of 5\) of column 'a' returned None"):
        partition_values(None, label, 4)
    with pytest.raises(BoxCoxError, match=r"delivered 3 rows but it delivered in the first "
                                          r"pass 4"):
        partition_values(np.ones(3), label, 4)


def test_a_partition_that_raises_is_named():
    dask = pytest.importorskip("dask")

    def load(i):
        if i == 1:
            raise OSError("gone")
        return np.random.default_rng(i).lognormal(size=50)

    parts = tuple(dask.delayed(load)(i) for i in range(3))
    col = HeldColumn("a", parts, (50, 50, 50), tuple(f"p{i}" for i in range(3)),
                     Tasks(dask.delayed, dask.compute, dask.persist))
    from boxcoxstat.core.frame import SampleFrame

    frame = SampleFrame.from_ranges("boxcox", (0.1, 10.0), None)
    with dask.config.set(scheduler="sync"), pytest.raises(BoxCoxError,
                                                          match="p1 raised OSError: gone"):
        col.moments(frame, (0.5,), *frame.shifts(np.array([0.5])), True)


def test_the_core_imports_no_scheduler():
    """Dask is injected, never imported: the module's imports name no scheduler."""
    tree = ast.parse(Path(partitioned.__file__).read_text())
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not {m for m in names if m.split(".")[0] in ("dask", "pyspark", "distributed")}


def side(v: np.ndarray) -> tuple[float, float] | None:
    """The (min, max) of ``v``, or None when empty."""
    return (float(v.min()), float(v.max())) if v.size else None
