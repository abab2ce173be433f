"""bcs.fit on Spark DataFrames and transforms as Spark column expressions (issue 31 item 1),
in Spark's local mode against the in-memory fit of the same values.

Needs the ``spark`` extra (pyspark) and a Java runtime; skipped, naming them, without.
One local session (2 threads, 2 shuffle partitions, no UI) serves the module and is stopped
at its end.
"""

from __future__ import annotations

import os
import shutil

import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs
from boxcoxstat import BoxCoxError
from tests.sparkutil import local_spark

pytest.importorskip("pyspark", reason='needs the spark extra: pip install "boxcoxstat[spark]"')
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Spark needs a Java runtime (apt-get install default-jre-headless)",
                allow_module_level=True)


@pytest.fixture(scope="module")
def spark():
    with local_spark(2, "boxcoxstat-tests") as session:
        yield session


def _sdf(spark, frame: pd.DataFrame, parts: int):
    return spark.createDataFrame(frame).repartition(parts)


def _rel(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300)))


def _same(r, m):
    """Equality with the in-memory fit to 1e-10 (the same score root and inference on the same
    likelihood, merged in another order: about 1e-13 in practice)."""
    assert r._families == m._families
    assert _rel(r.lmbda, m.lmbda) < 1e-10
    assert _rel(r.bse, m.bse) < 1e-10
    assert _rel(r.conf_int(), m.conf_int()) < 1e-10
    assert _rel(r.llf, m.llf) < 1e-10
    for value in (0.0, 1.0):
        assert _rel(r.test(value).statistic_values, m.test(value).statistic_values) < 1e-10


@pytest.mark.parametrize("family", ["boxcox",
                                    pytest.param("yeojohnson", marks=pytest.mark.slow),
                                    pytest.param("auto", marks=pytest.mark.slow)])
def test_spark_fit_equals_in_memory(spark, family):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"pos": rng.lognormal(1.0, 0.6, 3000),
                          "mixed": rng.normal(size=3000) * 2 + rng.gamma(2.0, size=3000)})
    if family == "boxcox":
        frame = frame[["pos"]]
    r = bcs.fit(_sdf(spark, frame, 4), family=family)
    m = bcs.fit(frame, family=family)
    _same(r, m)
    assert r.federated["clients"] == 4 and r.federated["unit"] == "partitions"
    assert list(r.lmbda.index) == list(frame.columns)


def test_spark_bounds_equal_in_memory(spark):
    """bounds=(lo, hi) (issue 30): the partitioned engine's bounded maximum (here the lower
    bound: the unconstrained lambda is near 0) and its bounded inference, as in memory."""
    frame = pd.DataFrame({"pos": np.random.default_rng(8).lognormal(1.0, 0.6, 3000)})
    r = bcs.fit(_sdf(spark, frame, 4), bounds=(0.5, 2.0))
    m = bcs.fit(frame, bounds=(0.5, 2.0))
    assert r.lmbda.iloc[0] == m.lmbda.iloc[0] == 0.5
    assert _rel(r._lmbda_free, m._lmbda_free) < 1e-10
    assert _rel(r.conf_int(), m.conf_int()) < 1e-10
    assert _rel(r.llf, m.llf) < 1e-10
    assert np.isnan(r.bse.iloc[0]) and np.isnan(m.bse.iloc[0])  # no se on a bound
    assert _rel(r.test(1.0).statistic_values, m.test(1.0).statistic_values) < 1e-10
    with pytest.raises(BoxCoxError, match="outside the bounds"):
        r.test(0.0)
    assert "bound active" in str(r.summary())


def test_spark_weights_equal_in_memory(spark):
    """weights="w" (issue 30): lm(x ~ 1, weights=w)'s likelihood from the partitions'
    weighted moments, as the in-memory weighted fit (zero weights and missing values
    included); with bounds= too."""
    rng = np.random.default_rng(9)
    frame = pd.DataFrame({"x": rng.lognormal(0.5, 0.7, 2000), "w": rng.uniform(0.2, 3, 2000)})
    frame.loc[::50, "w"] = 0.0
    frame.loc[7:9, "x"] = np.nan
    r = bcs.fit(_sdf(spark, frame, 3), weights="w")
    m = bcs.fit(frame, weights="w")
    _same(r, m)
    assert r._weighted and list(r.lmbda.index) == ["x"]
    assert list(r.nobs) == list(m.nobs)
    assert "Case weights" in str(r.summary())
    rb = bcs.fit(_sdf(spark, frame, 3), weights="w", bounds=(0.4, 2.0))
    mb = bcs.fit(frame, weights="w", bounds=(0.4, 2.0))
    assert rb.lmbda.iloc[0] == mb.lmbda.iloc[0] == 0.4
    assert _rel(rb.conf_int(), mb.conf_int()) < 1e-10
    assert _rel(rb.llf, mb.llf) < 1e-10


@pytest.mark.parametrize(("weights", "frame", "match"), [
    (np.ones(4), pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]}), r"names a column"),
    ("v", pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]}), r"'v' is not in the data"),
    ("w", pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "w": [1.0, -1.0, 1.0, 1.0]}), r">= 0"),
    ("w", pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "w": [0.0] * 4}), r"all weights are zero"),
])
def test_spark_bad_weights(spark, weights, frame, match):
    with pytest.raises(BoxCoxError, match=match):
        bcs.fit(spark.createDataFrame(frame), weights=weights)


@pytest.mark.slow  # two columns, about 20 Spark jobs
def test_spark_missing_values_and_ymax(spark):
    """NaN and null are missing (dropped and counted); ymax clips lambda as in memory
    (Table 1's 0.1/0.101 rows, whose unbounded optimum is far beyond ymax)."""
    rng = np.random.default_rng(4)
    a = rng.lognormal(size=400)
    a[[3, 50]] = np.nan
    frame = pd.DataFrame({"a": a, "t": np.array([0.1, 0.1, 0.1, 0.101] * 100)})
    r = bcs.fit(_sdf(spark, frame, 3), ymax=1e10)
    m = bcs.fit(frame, ymax=1e10)
    assert list(r.n_missing) == [2, 0] and list(r.nobs) == [398, 400]
    assert list(r.bound_active) == list(m.bound_active) == [False, True]
    assert _rel(r.lmbda, m.lmbda) < 1e-10


def test_spark_passes_counted_by_the_source(spark):
    """150,000 values (the solver starts on a cached subsample): the source is read once per
    partition per pass, counted by an accumulator in a pass-through over the source, and
    that equals federated['passes'] <= 8 with the interval, SE and both tests."""
    from pyspark.sql.functions import col

    x = np.random.default_rng(5).gamma(3.0, size=150_000) + 0.5
    acc = spark.sparkContext.accumulator(0)

    def through(batches):
        acc.add(1)
        yield from batches

    src = spark.createDataFrame(pd.DataFrame({"x": x})).repartition(3)
    src = src.mapInArrow(through, src.schema).select(col("x"))
    r = bcs.fit(src)
    r.summary()  # inference was computed with the fit: no more passes
    m = bcs.fit(x)
    assert _rel(r.lmbda, m.lmbda) < 1e-10
    assert _rel(r.conf_int(), m.conf_int()) < 1e-10
    fed = r.federated
    assert fed["subsample_rounds"] > 0
    assert acc.value == 3 * fed["passes"]
    assert fed["passes"] <= 8


def _python_free(sdf) -> bool:
    plan = sdf._jdf.queryExecution().executedPlan().toString()
    return not any(k in plan for k in ("Python", "BatchEval", "ArrowEval"))


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_spark_transform_is_column_expressions(spark, family):
    """transform / inverse_transform give lazy Spark DataFrames planned without Python (no
    UDF), equal to the in-memory transform to 1e-12 relative (expm1/log1p in the JVM against
    NumPy's: a few ulps) and at lambda 0 too; other columns pass through, NaN stays NaN."""
    rng = np.random.default_rng(6)
    x = rng.lognormal(size=300) if family == "boxcox" else rng.normal(size=300) * 3
    x[7] = np.nan
    frame = pd.DataFrame({"x": x, "id": np.arange(300)})
    m = bcs.fit(frame[["x"]], family=family)
    sdf = spark.createDataFrame(frame)
    for power in (None, 0.0, 2.0):
        res = m if power is None else bcs.fit(frame[["x"]], family=family, lmbda=power)
        out = res.transform(sdf)
        assert _python_free(out)
        assert out.columns == ["x", "id"]
        got = out.toPandas().sort_values("id")
        want = res.transform(frame[["x"]])["x"].to_numpy()
        ok = ~np.isnan(want)
        assert np.isnan(got["x"].to_numpy()[~ok]).all()
        np.testing.assert_allclose(got["x"].to_numpy()[ok], want[ok], rtol=1e-12, atol=1e-15)
        back = res.inverse_transform(out)
        assert _python_free(back)
        np.testing.assert_allclose(back.toPandas().sort_values("id")["x"].to_numpy()[ok],
                                   x[ok], rtol=1e-12)


def test_spark_transform_errors(spark):
    from pyspark.errors import PySparkException

    m = bcs.fit(pd.DataFrame({"x": np.random.default_rng(8).lognormal(size=100)}))
    bad = spark.createDataFrame(pd.DataFrame({"x": [1.0, -2.0]}))
    with pytest.raises(Exception, match=r"column 'x': Box-Cox requires strictly positive") \
            as info:
        m.transform(bad).collect()
    assert isinstance(info.value, PySparkException) or "Box-Cox" in str(info.value)
    with pytest.raises(BoxCoxError, match=r"no column\(s\) \['x'\]"):
        m.transform(spark.createDataFrame(pd.DataFrame({"y": [1.0]})))
    # outside the range at lambda = -1: 1 + lambda*y <= 0 has no inverse -> NaN, as in memory
    inv = bcs.fit(pd.DataFrame({"x": [1.0, 2.0, 3.0]}), lmbda=-1.0)
    got = inv.inverse_transform(spark.createDataFrame(pd.DataFrame({"x": [0.5, 2.0]})))
    vals = got.toPandas()["x"].to_numpy()
    assert vals[0] == pytest.approx(2.0, rel=1e-14) and np.isnan(vals[1])


@pytest.mark.parametrize(
    ("frame", "kw", "match"),
    [(pd.DataFrame({"s": ["a", "b", "c"]}), {}, r"column 's' is not numeric"),
     (pd.DataFrame({"x": [1.0, -2.0, 3.0, 4.0]}), {}, r"strictly positive"),
     (pd.DataFrame({"x": [2.0, 2.0, 2.0, 2.0]}), {}, r"constant"),
     (pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]}), {"method": "rewml"},
      r"not available for Spark input"),
     (pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]}), {"family": "bcnpower"},
      r"not available for Spark"),
     (pd.DataFrame({"x": [1.0, np.nan, 3.0, 4.0]}), {"missing": "raise"}, r"missing")],
)
def test_spark_bad_input(spark, frame, kw, match):
    with pytest.raises(BoxCoxError, match=match):
        bcs.fit(spark.createDataFrame(frame), **kw)
