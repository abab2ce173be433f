"""``bcs.fit(dask_data, bounds=(lo, hi))``: the partitioned engine with the core's bounded
solution and bounded inference equals the in-memory ``bcs.fit(x, bounds=)`` (to 1e-10, issue
30): the estimate (the bound itself where it is active), the unconstrained maximum, the
interval measured from the bounded maximum and the LR tests against it."""

import numpy as np
import pandas as pd
import pytest

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

import boxcoxstat as bcs  # noqa: E402


def _same(r, m):
    """Equal to the in-memory fit: lambda to 1e-10 (the brief; the score's root on merged
    moments vs one array), the interval's ends (root searches to 1e-12 relative) likewise."""
    assert np.asarray(r.lmbda) == pytest.approx(np.asarray(m.lmbda), abs=1e-10)
    assert r.lmbda_free == pytest.approx(m.lmbda_free, abs=1e-10)
    assert r.bounds.tolist() == m.bounds.tolist()
    assert np.asarray(r.llf) == pytest.approx(np.asarray(m.llf), abs=1e-9)  # sums reordered
    assert r.conf_int().to_numpy() == pytest.approx(m.conf_int().to_numpy(), abs=1e-10)
    rb, mb = r.bse.to_numpy(), m.bse.to_numpy()
    assert np.isnan(rb).tolist() == np.isnan(mb).tolist()  # no se on a bound
    ok = ~np.isnan(mb)
    assert rb[ok] == pytest.approx(mb[ok], rel=1e-7)  # curvature by differences of scores
    assert np.asarray(r.bound_active).tolist() == np.asarray(m.bound_active).tolist()


@pytest.mark.parametrize("bounds, active", [((0.5, 2.0), "lower"), ((-3.0, -0.5), "upper"),
                                            ((-1.0, 1.0), None)])
def test_dask_bounds_equal_in_memory(bounds, active):
    x = np.random.default_rng(3).lognormal(size=3000)  # lambda near 0
    r = bcs.fit(da.from_array(x, chunks=400), bounds=bounds)
    m = bcs.fit(x, bounds=bounds)
    _same(r, m)
    if active == "lower":
        assert r.lmbda == bounds[0]
    elif active == "upper":
        assert r.lmbda == bounds[1]
    else:
        assert bcs.fit(da.from_array(x, chunks=400)).lmbda == pytest.approx(r.lmbda, abs=1e-12)
    for lam0 in (0.0, 1.0):
        if bounds[0] <= lam0 <= bounds[1]:
            assert r.test(lam0).statistic == pytest.approx(m.test(lam0).statistic, abs=1e-8)
        else:
            with pytest.raises(bcs.BoxCoxError, match="outside the bounds"):
                r.test(lam0)
    text = str(r.summary())
    assert ("bound active" in text) == (active is not None)
    assert "Fitted without pooling the data" in text


def test_dask_dataframe_bounds_per_column_auto_family_and_a_large_column():
    """Per-column bounds, family='auto' (both families bounded, then compared) and a
    column beyond 100,000 values (the solver starts from a subsample)."""
    rng = np.random.default_rng(11)
    n = 120_000
    df = pd.DataFrame({"a": rng.lognormal(size=n), "b": rng.normal(size=n) * 2 + 0.5})
    bounds = [(0.4, 3.0), (-2.0, 0.8)]
    r = bcs.fit(dd.from_pandas(df, npartitions=4), family="auto", bounds=bounds)
    m = bcs.fit(df, family="auto", bounds=bounds)
    assert r.families == m.families
    _same(r, m)


def test_dask_yeojohnson_bounds_and_bad_bounds():
    x = np.random.default_rng(5).normal(size=2000) ** 3  # both signs, heavy tails
    r = bcs.fit(da.from_array(x, chunks=300), family="yeojohnson", bounds=(1.2, 1.5))
    m = bcs.fit(x, family="yeojohnson", bounds=(1.2, 1.5))
    _same(r, m)
    assert r.lmbda == 1.2  # the unconstrained maximum is 1.006
    with pytest.raises(bcs.BoxCoxError, match="lower end must be below"):
        bcs.fit(da.from_array(x, chunks=300), family="yeojohnson", bounds=(1, 0))
