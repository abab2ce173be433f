"""bcs.fit on Dask arrays and DataFrames (boxcoxstat.federated.daskfit) against the in-memory
fit, on the threaded scheduler and on a dask.distributed LocalCluster."""

from __future__ import annotations

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from distributed import Client, LocalCluster

import boxcoxstat as bcs
from boxcoxstat import BoxCoxError
from tests import mpref


@pytest.fixture(scope="module")
def cluster_client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        yield client


def _rel(a, b):
    return np.max(np.abs(np.asarray(a) - np.asarray(b)) / np.maximum(np.abs(np.asarray(b)),
                                                                         1e-300))


def _data():
    rng = np.random.default_rng(7)
    return {
        "boxcox": rng.lognormal(mean=2.0, sigma=0.7, size=4000),
        "yeojohnson": rng.normal(size=4000) * 3 + rng.gamma(2.0, size=4000),
    }


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_dask_array_on_local_cluster_equals_in_memory(cluster_client, family):
    x = _data()[family]
    arr = da.from_array(x, chunks=400)  # 10 partitions
    r = bcs.fit(arr, family=family)
    m = bcs.fit(x, family=family)
    assert r.federated["clients"] == 10 and r.federated["unit"] == "partitions"
    assert _rel(r.lmbda, m.lmbda) < 1e-12
    assert _rel(r.conf_int(), m.conf_int()) < 1e-9
    assert r.llf == pytest.approx(m.llf, rel=1e-12)
    assert "10 partitions" in str(r.summary())


def test_dask_dataframe_with_missing_on_local_cluster(cluster_client):
    d = _data()
    df = pd.DataFrame({"a": d["yeojohnson"], "b": np.log(d["boxcox"]) - 2.0})
    df.loc[[5, 700], "a"] = np.nan
    r = bcs.fit(dd.from_pandas(df, npartitions=9), family="yeojohnson")
    m = bcs.fit(df, family="yeojohnson")
    assert list(r.lmbda.index) == ["a", "b"]
    assert _rel(r.lmbda, m.lmbda) < 1e-12
    assert list(r.nobs) == [3998, 4000] and list(r.n_missing) == [2, 0]


def test_threaded_scheduler_unstable_feature_and_series():
    x = mpref.unstable_feature("house_prices_train", "YrSold")  # lambda ~ -90.5
    with dask.config.set(scheduler="threads"):
        s = dd.from_pandas(pd.Series(x, name="YrSold"), npartitions=8)
        r = bcs.fit(s)
        assert _rel(r.lmbda, bcs.fit(x).lmbda) < 1e-12
        arr2 = da.from_array(np.column_stack([x, x[::-1] * 2.0]), chunks=(200, 2))
        r2 = bcs.fit(arr2)
        assert r2.lmbda.shape == (2,)
        assert _rel(r2.lmbda, bcs.fit(np.column_stack([x, x[::-1] * 2.0])).lmbda) < 1e-12


def test_dask_grid_mode_batches_lambdas():
    from boxcoxstat.federated.daskfit import fit_dask

    x = _data()["boxcox"]
    with dask.config.set(scheduler="sync"):
        r = fit_dask(da.from_array(x, chunks=500), optimizer="grid", grid=200)
    assert r.federated["fit_rounds"] <= 10
    assert _rel(r.lmbda, bcs.fit(x).lmbda) < 1e-10


@pytest.mark.parametrize(
    ("values", "kw", "match"),
    [
        ([1.0, 2.0, np.inf, 3.0], {}, "infinite"),
        ([1.0, -2.0, 3.0, 4.0], {}, "strictly positive"),
        ([1.0, np.nan, 3.0, 4.0], {"missing": "raise"}, "missing"),
        ([1.0, 2.0, 3.0, 4.0], {"ymax": -1.0}, "ymax must be a positive"),
        ([1.0, 2.0, 3.0, 4.0], {"family": "bcnpower"}, "not available for Dask"),
        ([2.0, 2.0, 2.0, 2.0], {}, "constant"),
        ([1.0, 2.0, 3.0, 4.0], {"method": "rewml"}, "not available for Dask"),
    ],
)
def test_dask_bad_input(values, kw, match):
    with dask.config.set(scheduler="sync"), pytest.raises(BoxCoxError, match=match):
        bcs.fit(da.from_array(np.array(values), chunks=2), **kw)


def test_large_input_solves_on_a_persisted_subsample_first(cluster_client):
    x = np.random.default_rng(11).gamma(3.0, size=160_000) + 0.5
    r = bcs.fit(da.from_array(x, chunks=20_000))
    assert r.federated["subsample_rounds"] > 0
    assert r.federated["fit_rounds"] <= 8  # the subsample's root leaves a few full passes
    assert _rel(r.lmbda, bcs.fit(x).lmbda) < 1e-12


@pytest.mark.parametrize(
    ("kind", "family", "ymax"),
    [("positive", "auto", None), ("mixed", "auto", None), ("table1", "boxcox", 1e10),
     ("mixed", "auto", 1.5)],
)
def test_dask_auto_and_ymax_equal_in_memory(kind, family, ymax):
    """family='auto' and ymax on Dask input: the pooled in-memory fit to 1e-10 (the solver's
    roots on the same likelihood; the bound is the same Lambert W computation)."""
    rng = np.random.default_rng(12)
    x = {"positive": rng.lognormal(1.0, 0.6, 600),
         "mixed": np.random.default_rng(7).lognormal(0, 3, 200) - 0.1,
         "table1": np.array([0.1, 0.1, 0.1, 0.101] * 6)}[kind]
    with dask.config.set(scheduler="sync"):
        r = bcs.fit(da.from_array(x, chunks=max(4, x.size // 5)), family=family, ymax=ymax)
    m = bcs.fit(x, family=family, ymax=ymax)
    assert r.families == m.families and r.bound_active == m.bound_active
    assert _rel(r.lmbda, m.lmbda) < 1e-10
    assert r.llf == pytest.approx(m.llf, rel=1e-10)
    if ymax is not None and kind != "positive":
        assert r.bound_active  # the binding cases


def test_dask_auto_per_column_frame():
    rng = np.random.default_rng(13)
    df = pd.DataFrame({"pos": rng.lognormal(size=500), "signed": rng.normal(size=500)})
    with dask.config.set(scheduler="sync"):
        r = bcs.fit(dd.from_pandas(df, npartitions=4), family="auto")
    m = bcs.fit(df, family="auto")
    assert r.families == m.families == ("boxcox", "yeojohnson")
    assert _rel(r.lmbda, m.lmbda) < 1e-10


@pytest.mark.parametrize("scale", [1e-40, -1e-300])
def test_dask_yeojohnson_on_tiny_scales_equals_in_memory(scale):
    """Refused before ("differ only beyond the 12th significant digit"); the frame's unit
    keeps every partition's moments of order one. 1e-10: the score's root, as in memory."""
    x = (np.random.default_rng(33).lognormal(0.0, 0.7, 3000) - 0.6) * scale
    mem = bcs.fit(x, family="yeojohnson")
    with dask.config.set(scheduler="threads"):
        r = bcs.fit(da.from_array(x, chunks=500), family="yeojohnson")
    assert abs(r.lmbda - mem.lmbda) < 1e-10 * abs(mem.lmbda)
    assert abs(r.bse.iloc[0] - mem.bse.iloc[0]) < 1e-9 * mem.bse.iloc[0]
    np.testing.assert_allclose(r.conf_int().to_numpy(), mem.conf_int().to_numpy(), rtol=1e-9)


# ------------------------------------------------------------- partitions that misbehave (gh27)
def _from_parts(make, n=4, rows=100):
    """A 1-D Dask array of ``n`` delayed partitions, each declaring ``rows`` rows."""
    return da.concatenate([da.from_delayed(dask.delayed(make)(i), shape=(rows,), dtype=float)
                           for i in range(n)])


def _lognormal(i, size=100):
    return np.random.default_rng(i).lognormal(size=size)


def _raises_at_2(i):
    if i == 2:
        raise ValueError("disk read failed")
    return _lognormal(i)


def _none_at_2(i):
    return None if i == 2 else _lognormal(i)


def _rows_at_2(size):
    return lambda i: _lognormal(i, size if i == 2 else 100)


@pytest.mark.parametrize("scheduler", ["sync", "threads"])
def test_a_partition_that_raises_is_named_gh27(scheduler):
    """A partition's exception becomes BoxCoxError naming the partition and the cause."""
    with dask.config.set(scheduler=scheduler), pytest.raises(
            BoxCoxError, match=r"partition 2 \(of 4\) of column 'x' raised ValueError: disk "
                               r"read failed"):
        bcs.fit(_from_parts(_raises_at_2))


def test_a_partition_that_raises_is_named_on_a_cluster_gh27(cluster_client):
    """The same on dask.distributed (the error travels back from a worker)."""
    with pytest.raises(BoxCoxError, match=r"partition 2 \(of 4\) .*ValueError: disk read"):
        bcs.fit(_from_parts(_raises_at_2))


def test_a_dataframe_partition_that_raises_is_named_gh27():
    """dd.from_map: a failing loader is named by partition and column."""
    def load(i):
        if i == 1:
            raise OSError("no such object")
        return pd.DataFrame({"a": _lognormal(i)})

    with dask.config.set(scheduler="sync"), pytest.raises(
            BoxCoxError, match=r"partition 1 \(of 3\) of column 'a' raised OSError: no such"):
        bcs.fit(dd.from_map(load, range(3)))


@pytest.mark.parametrize(
    ("make", "match"),
    [(_none_at_2, r"partition 2 \(of 4\) of column 'x' returned None"),
     (_rows_at_2(60), r"partition 2 \(of 4\) of column 'x' delivered 60 rows but its chunk "
                      r"declares 100"),
     (_rows_at_2(130), r"partition 2 \(of 4\) of column 'x' delivered 130 rows but its chunk "
                       r"declares 100")],
)
def test_a_partition_that_loses_rows_is_named_gh27(make, match):
    """None, fewer or more rows than the chunk declares: refused (main fitted 300/360/430)."""
    with dask.config.set(scheduler="sync"), pytest.raises(BoxCoxError, match=match):
        bcs.fit(_from_parts(make))


def test_a_series_partition_that_is_none_is_named_gh27():
    """A Dask Series partition that is None (main: AttributeError from Dask)."""
    meta = pd.Series([], dtype=float, name="a")

    def load(i):
        return None if i == 2 else pd.Series(_lognormal(i), name="a")

    with dask.config.set(scheduler="sync"), pytest.raises(
            BoxCoxError, match=r"partition 2 \(of 4\) of column 'a' returned None"):
        bcs.fit(dd.from_map(load, range(4), meta=meta))


def test_a_partition_that_changes_between_passes_is_named_gh27():
    """A DataFrame declares no row counts: each later pass is compared with the first."""
    calls: dict[int, int] = {}

    def load(i):
        calls[i] = calls.get(i, 0) + 1
        return pd.DataFrame({"a": _lognormal(i, 90 if i == 1 and calls[i] > 1 else 100)})

    with dask.config.set(scheduler="sync"), pytest.raises(
            BoxCoxError, match=r"partition 1 \(of 4\) of column 'a' delivered 90 rows but it "
                               r"delivered in the first pass 100"):
        bcs.fit(dd.from_map(load, range(4)))


def test_partition_checks_add_no_pass():
    """One graph per profile evaluation, as before the checks: rounds == fit_rounds + the
    interval's, and the set-up adds one pass (counted here by the loader's calls)."""
    calls: dict[int, int] = {}

    def load(i):
        calls[i] = calls.get(i, 0) + 1
        return _lognormal(i, 500)

    with dask.config.set(scheduler="sync"):
        r = bcs.fit(_from_parts(load, rows=500))
    passes = {calls[i] for i in range(4)}
    assert passes == {1 + r.federated["rounds"]}  # set-up + one per evaluation graph


@pytest.mark.parametrize(
    ("kw", "match"),
    [({"optimizer": "grid"}, r"keyword optimizer= is not available for Dask input; "
                             r"method='mle' with family='boxcox' for Dask input takes: "
                             r"estimated, optionally with ymax="),
     ({"h": 0.9, "c": 1.5}, r"keywords c=, h= are not available for Dask input"),
     ({"method": "mtl", "h": 0.9}, r"method='mtl' is not available for Dask input, which is "
                                   r"fitted by maximum likelihood \(method='mle'\) only")],
)
def test_extra_keywords_are_named_for_dask_input_gh27(kw, match):
    """main said "method='mle' is not available for Dask input; use 'mle'" for any keyword."""
    with pytest.raises(BoxCoxError, match=match):
        bcs.fit(da.from_array(_lognormal(0), chunks=50), **kw)
