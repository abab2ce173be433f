"""Every full pass over Dask data is in the result's count (issue 31 item 2): the set-up,
the extraction of the subsample the solver starts from, and each profile evaluation."""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
import pytest

import boxcoxstat as bcs


def _counted(calls: dict[int, int], parts: int, rows: int):
    def load(i: int) -> np.ndarray:
        calls[i] = calls.get(i, 0) + 1
        return np.random.default_rng(i).lognormal(0.0, 0.5, rows) + 1.0

    return da.concatenate([da.from_delayed(dask.delayed(load)(i), shape=(rows,), dtype=float)
                           for i in range(parts)])


@pytest.mark.parametrize("family", ["boxcox", "auto"])
def test_reported_passes_equal_the_loader_calls_with_a_subsample_start(family):
    """150,000 values (> 100,000: the solver starts on a subsample, whose extraction reads
    every partition once; main's count left it out). Each partition is read exactly
    ``passes`` times, and with inference that is at most 8 (issue 31's bound)."""
    calls: dict[int, int] = {}
    with dask.config.set(scheduler="sync"):
        r = bcs.fit(_counted(calls, 5, 30_000), family=family)
    fed = r.federated
    assert fed["subsample_rounds"] > 0
    assert set(calls.values()) == {fed["passes"]}
    assert fed["passes"] == 1 + 1 + fed["rounds"]  # set-up, subsample, evaluations
    if family == "boxcox":
        assert fed["passes"] <= 8


def test_small_column_passes_are_set_up_plus_rounds():
    calls: dict[int, int] = {}
    with dask.config.set(scheduler="sync"):
        r = bcs.fit(_counted(calls, 4, 500))
    assert r.federated["subsample_rounds"] == 0
    assert set(calls.values()) == {r.federated["passes"]} == {1 + r.federated["rounds"]}
