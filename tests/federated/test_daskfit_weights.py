"""``bcs.fit(dask_data, weights=)``: the weighted profile from the partitions equals the
in-memory weighted fit (to 1e-10, the brief) and R (tests/reference/
weights_bounds_compare_reference.R)."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

import boxcoxstat as bcs  # noqa: E402

REF = json.loads((Path(__file__).resolve().parents[1] / "reference"
                  / "weights_bounds_compare_reference.json").read_text())["weighted"]


@pytest.mark.parametrize("case", ["lognormal_60", "trees_volume_by_height",
                                  "prestige_women_yj"])
def test_dask_weighted_equals_in_memory_and_r(case):
    ref = REF[case]
    y, w = np.array(ref["y"]), np.array(ref["w"])
    r = bcs.fit(da.from_array(y, chunks=13), weights=w, family=ref["family"])
    m = bcs.fit(y, weights=w, family=ref["family"])
    # the same likelihood along two paths (merged moments vs a QR): 1e-10 (the brief)
    assert r.lmbda == pytest.approx(m.lmbda, abs=1e-10)
    assert float(r.llf) == pytest.approx(float(m.llf), abs=1e-9)
    assert r.conf_int().to_numpy() == pytest.approx(m.conf_int().to_numpy(), abs=1e-10)
    assert float(r.bse.iloc[0]) == pytest.approx(float(m.bse.iloc[0]), rel=1e-8)
    for lam0 in (0, 1):
        assert r.test(lam0).statistic == pytest.approx(m.test(lam0).statistic, abs=1e-8)
    assert "Case weights" in str(r.summary())
    t = ref["tight"]
    assert r.lmbda == pytest.approx(t["lambda"], abs=1e-10)  # R: uniroot of the score
    assert float(r.llf) == pytest.approx(t["llf"], abs=1e-9)


def test_dask_dataframe_weights_column_auto_family_zero_weights_and_missing():
    rng = np.random.default_rng(7)
    df = pd.DataFrame({"a": rng.lognormal(size=900), "b": rng.normal(size=900),
                       "w": rng.uniform(0.2, 3, 900)})
    df.loc[::40, "w"] = 0.0
    df.loc[5:9, "a"] = np.nan
    r = bcs.fit(dd.from_pandas(df, npartitions=6), weights="w", family="auto")
    m = bcs.fit(df, weights="w", family="auto")
    assert r._families == m._families
    assert r.lmbda.to_numpy() == pytest.approx(m.lmbda.to_numpy(), abs=1e-10)
    assert r.llf.to_numpy() == pytest.approx(m.llf.to_numpy(), abs=1e-9)
    assert r.nobs.tolist() == m.nobs.tolist()


@pytest.mark.parametrize("weights, message", [
    (np.r_[np.ones(59), -1.0], ">= 0"),
    (np.r_[np.nan, np.ones(59)], "finite"),
    (np.zeros(60), "all weights are zero"),
    (np.ones(50), "length 50"),
])
def test_bad_dask_weights(weights, message):
    y = np.array(REF["lognormal_60"]["y"])
    with pytest.raises(bcs.BoxCoxError, match=message):
        bcs.fit(da.from_array(y, chunks=20), weights=weights)


def test_dask_weighted_bounds_equal_in_memory():
    """Weights and bounds together: the weighted profile's bounded maximum and inference."""
    ref = REF["trees_volume_by_height"]
    y, w = np.array(ref["y"]), np.array(ref["w"])
    free = bcs.fit(y, weights=w).lmbda
    lo, hi = free + 0.3, free + 2.0  # the maximum below the bounds: lambda is lo
    r = bcs.fit(da.from_array(y, chunks=13), weights=w, bounds=(lo, hi))
    m = bcs.fit(y, weights=w, bounds=(lo, hi))
    assert r.lmbda == m.lmbda == lo
    assert r._lmbda_free[0] == pytest.approx(m._lmbda_free[0], abs=1e-10)
    assert float(r.llf) == pytest.approx(float(m.llf), abs=1e-9)  # sums in another order
    # interval ends: root searches (relative 1e-12) on the two paths' NLLs
    assert r.conf_int().to_numpy() == pytest.approx(m.conf_int().to_numpy(), abs=1e-10)
    for lam0 in (0.0, 1.0):  # the stored tests (others need the data)
        if lo <= lam0 <= hi:
            assert r.test(lam0).statistic == pytest.approx(m.test(lam0).statistic, abs=1e-8)
    assert "bound active" in str(r.summary())


def test_the_gate_names_the_partition_of_a_bad_weight():
    """The set-up pass reads the weights beside the values (the gate, ``read_dask``): a bad
    weight is refused before any round, naming its column and partition."""
    y = np.array(REF["lognormal_60"]["y"])
    w = np.ones(60)
    w[47] = -2.0  # partition 2 (rows 40-59), row 7 of it
    with pytest.raises(bcs.BoxCoxError, match=r"partition 2 \(of 3\) of column 'x': weights "
                                              r"must be >= 0: row 7 of the partition"):
        bcs.fit(da.from_array(y, chunks=20), weights=w)
    w[47] = np.inf
    with pytest.raises(bcs.BoxCoxError, match=r"partition 2 \(of 3\) of column 'x': weights "
                                              "must be finite"):
        bcs.fit(da.from_array(y, chunks=20), weights=w)


def test_dask_series_weights_beside_the_frames_columns():
    """``bcs.fit(ddf[["a", "b"]], weights=ddf["w"])``: the weights' own partitions read
    beside the columns' (never gathered); as many partitions as the data's, or the gate's
    error."""
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"a": rng.lognormal(size=400), "b": rng.gamma(2.0, size=400),
                       "w": rng.uniform(0.5, 2.0, 400)})
    ddf = dd.from_pandas(df, npartitions=4)
    r = bcs.fit(ddf[["a", "b"]], weights=ddf["w"])
    m = bcs.fit(df[["a", "b"]], weights=df["w"].to_numpy())
    # merged moments vs the in-memory QR: 1e-10, as above
    assert r.lmbda.to_numpy() == pytest.approx(m.lmbda.to_numpy(), abs=1e-10)
    assert r.llf.to_numpy() == pytest.approx(m.llf.to_numpy(), abs=1e-9)
    other = dd.from_pandas(df, npartitions=2)["w"]
    with pytest.raises(bcs.BoxCoxError, match="the weights have 2 partitions and column 'a' 4"):
        bcs.fit(ddf[["a", "b"]], weights=other)
    with pytest.raises(bcs.BoxCoxError, match="partitions of unknown length"):
        bcs.fit(ddf[["a", "b"]], weights=df["w"].to_numpy())
