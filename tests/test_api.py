"""boxcoxstat.api.fit, the dispatcher: what it accepts (layouts, lists, nullable and object
columns), what it refuses (bad input, named by column and row) and that it never modifies the
caller's data. The estimates are tested in univariate/test_model.py, the result's methods in
univariate/test_results.py and base/test_transform.py."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import boxcoxstat as bcs
from boxcoxstat import BoxCoxError, TransformOverflowError


def test_return_types_follow_the_input(frame):
    r1 = bcs.fit(frame["a"])
    # estimates follow the input's layout; params, bse and conf_int are always labelled
    assert isinstance(r1.lmbda, float) and isinstance(r1.bse, pd.Series)
    ci1 = r1.conf_int()
    assert list(ci1.columns) == ["lower", "upper"] and list(ci1.index) == ["a"]
    assert list(bcs.fit(frame["a"].to_numpy()).conf_int().index) == ["x"]
    r2 = bcs.fit(frame)
    assert isinstance(r2.lmbda, pd.Series) and list(r2.lmbda.index) == ["a", "b"]
    assert list(r2.conf_int().columns) == ["lower", "upper"]
    r3 = bcs.fit(frame.to_numpy())
    assert isinstance(r3.lmbda, np.ndarray) and r3.conf_int().shape == (2, 2)
    assert list(r3.bse.index) == ["x0", "x1"]
    r4 = bcs.fit(frame["a"].tolist())
    assert r4.lmbda == pytest.approx(r1.lmbda, rel=1e-14)
    np.testing.assert_allclose(r2.lmbda.to_numpy(), r3.lmbda, rtol=1e-14)
    assert isinstance(r2.params, pd.Series)


def test_caller_data_is_never_modified(frame):
    frame.iloc[3, 0] = np.nan
    before = frame.copy()
    arr = frame.to_numpy().copy()
    arr_before = arr.copy()
    r = bcs.fit(frame)
    r.transform(frame)
    bcs.fit(arr)
    pd.testing.assert_frame_equal(frame, before)
    np.testing.assert_array_equal(arr, arr_before)


def test_missing_drop_counts_and_raise_refuses():
    x = pd.Series([1.0, 2.5, np.nan, 4.0, None, 8.0, 3.0], dtype=float)
    r = bcs.fit(x)
    assert r.nobs == 5
    assert "missing" in str(r.summary())
    with pytest.raises(BoxCoxError, match="2 missing value"):
        bcs.fit(x, missing="raise")


# --- bad input ------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "data,kwargs,pattern",
    [
        ([1.0, 2.0, 0.0, -1.0, 5.0], {}, r"2 value\(s\) <= 0, first at row 2"),
        ([1.0, np.inf, 3.0, 4.0], {}, "infinite"),
        ([2.0, 2.0, 2.0, 2.0], {}, "constant"),
        ([1.0, 2.0], {}, "at least 3"),
        ([1.0, np.nan, np.nan, 3.0], {}, "at least 3"),
        (["a", "b", "c"], {}, "not numeric"),
        ([1.0, 2.0, 3.0], {"family": "logit"}, "unknown family"),
        ([1.0, 2.0, 3.0], {"method": "magic"}, "method"),
        ([1.0, 2.0, 3.0], {"missing": "ignore"}, "missing"),
        ([1.0, 1.0 + 1e-15, 1.0, 1.0 + 2e-15], {}, "12th significant digit"),
        ([1.0, 2.0, 3.0], {"ymax": -5.0}, "ymax"),
    ],
)
def test_bad_input_raises_package_error(data, kwargs, pattern):
    with pytest.raises(BoxCoxError, match=pattern):
        bcs.fit(data, **kwargs)


def test_bad_input_names_column_and_row_label():
    df = pd.DataFrame({"ok": [1.0, 2.0, 3.0, 4.0], "bad": [1.0, 2.0, -3.0, 4.0]},
                      index=["w", "x", "y", "z"])
    with pytest.raises(BoxCoxError, match=r"column 'bad'.*first at row 'y'"):
        bcs.fit(df)
    df2 = pd.DataFrame({"num": [1.0, 2.0, 3.0], "txt": ["a", "b", "c"]})
    with pytest.raises(BoxCoxError, match="column 'txt' is not numeric"):
        bcs.fit(df2)


def test_package_error_is_a_valueerror():
    assert issubclass(BoxCoxError, ValueError)
    assert issubclass(TransformOverflowError, BoxCoxError)


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(
        st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.just(0.0)),
        min_size=0, max_size=8,
    ),
    family=st.sampled_from(["boxcox", "yeojohnson"]),
)
def test_any_input_gives_finite_numbers_or_package_error(values, family):
    try:
        r = bcs.fit(values, family=family)
    except BoxCoxError:
        return
    assert np.isfinite(r.lmbda) and np.isfinite(r.llf)
    lo, hi = r.conf_int().iloc[0]
    assert np.isfinite(lo) and np.isfinite(hi)


def test_pandas_nullable_and_object_columns():
    s = pd.Series([1, 2, None, 4, 7], dtype="Int64", name="n")
    r = bcs.fit(s)
    assert r.nobs == 4
    assert r.lmbda == pytest.approx(bcs.fit([1.0, 2.0, 4.0, 7.0]).lmbda, rel=1e-14)
    obj = pd.Series([1.0, 2, None, 4.5, 3], dtype=object)
    assert bcs.fit(obj).nobs == 4
    with pytest.raises(BoxCoxError, match="categorical"):
        bcs.fit(pd.Series(pd.Categorical([1, 2, 3, 4])))
    with pytest.raises(BoxCoxError, match="duplicate column names"):
        bcs.fit(pd.DataFrame([[1.0, 2.0], [2.0, 3.0], [3.0, 5.0]], columns=["a", "a"]))


def test_fit_at_a_fixed_power_evaluates_the_likelihood_there():
    """fit(x, lmbda=0): no estimation; llf is the normal log-likelihood of log x at its ML
    variance plus the Jacobian -sum(log x) (written out here; 1e-12 relative: the same sum
    in another order)."""
    x = np.random.default_rng(4).lognormal(1.0, 0.5, 300)
    r = bcs.fit(x, lmbda=0)
    z = np.log(x)
    n = x.size
    want = -n / 2 * (np.log(2 * np.pi * z.var()) + 1) - z.sum()
    assert r.fixed and r.lmbda == 0.0 and r.llf == pytest.approx(want, rel=1e-12)
    np.testing.assert_allclose(r.transform(x), z, rtol=1e-15)
    for what, call in (("bse", lambda: r.bse), ("conf_int", r.conf_int),
                       ("test", lambda: r.test(1)), ("rounded", lambda: r.rounded),
                       ("at\\('rounded'\\)", lambda: r.at("rounded"))):
        with pytest.raises(bcs.BoxCoxError, match=f"PowerTransformResult.{what} is not "
                                                  "available: the power was fixed at 0"):
            call()
    text = str(r.summary())
    assert "fixed power" in text and "not estimated" in text
    back = bcs.PowerTransformResult.from_json(r.to_json())
    assert back.fixed and str(back.summary()) == text
    assert r.profile()["llf"].max() >= r.llf  # the profile is still there to look at


def test_fixed_powers_by_column_and_refusals():
    cars = bcs.datasets.load("topgear")[["MPG", "Weight"]]
    r = bcs.fit(cars, lmbda=pd.Series({"Weight": 1.0, "MPG": 0.0}))
    assert list(r.lmbda) == [0.0, 1.0]
    est = bcs.fit(cars)
    np.testing.assert_allclose(est.at([0.0, 1.0]).llf, r.llf, rtol=1e-13)
    np.testing.assert_allclose(est.at("rounded").lmbda, est.rounded)
    with pytest.raises(bcs.BoxCoxError, match="lmbda has no value for column"):
        bcs.fit(cars, lmbda=pd.Series({"MPG": 0.0}))
    with pytest.raises(bcs.BoxCoxError, match="lmbda must be a number or 2 numbers"):
        bcs.fit(cars, lmbda=[0.0, 1.0, 2.0])
    for bad in ({"family": "auto"}, {"ymax": 1e300}, {"method": "rewml"}):
        with pytest.raises(bcs.BoxCoxError, match="lmbda= fixes the power"):
            bcs.fit(cars["MPG"], lmbda=0, **bad)
    with pytest.raises(bcs.BoxCoxError, match="strictly positive"):
        bcs.fit([1.0, -2.0, 3.0], lmbda=0)


def test_an_integer_index_label_reads_as_a_number_gh27():
    """A DataFrame with an int64 index named the first bad row 'np.int64(12)' on main."""
    frame = pd.DataFrame({"z": [1.0, 2.0, 0.0, 3.0]}, index=pd.Index([10, 11, 12, 13]))
    with pytest.raises(BoxCoxError, match=r"first at row 12 \(0\.0\)"):
        bcs.fit(frame)


# --- the estimator table (issue 28) ---------------------------------------------------------

def _combinations():
    """Every (door, container, estimator, family, settings) the table could be asked for,
    with at most three settings."""
    import itertools

    from boxcoxstat._validation.routes import ESTIMATORS, SETTINGS

    subsets = [frozenset(c) for k in range(4) for c in itertools.combinations(SETTINGS, k)]
    return itertools.product(("fit", "PowerTransformer"), ("memory", "dask", "spark"),
                             ESTIMATORS, ("boxcox", "yeojohnson", "auto", "bcnpower"), subsets)


def test_every_row_names_a_function_and_no_combination_has_two_rows():
    import importlib

    from boxcoxstat.api import TABLE

    for row in TABLE.routes:
        if row.fitter is not None:
            module, name = row.fitter.split(":")
            assert callable(getattr(importlib.import_module(f"boxcoxstat.{module}"), name))
    pending = {(r.container, tuple(sorted(r.needs))) for r in TABLE.routes if r.fitter is None}
    assert pending == set()  # the rest of issue 30 (Dask/Spark bounds, Spark weights) landed
    for door, container, est, fam, wanted in _combinations():
        rows = [r for r in TABLE.routes
                if r.offers(door, container) and r.serves(est, fam, wanted)]
        assert len(rows) <= 1, (door, container, est, fam, wanted)


def test_every_refused_combination_gets_one_message_naming_it():
    """The one refusal, for every combination the table does not serve: it says what is not
    available (or needed, or does not go together) and what the table offers instead."""
    from boxcoxstat._validation.routes import refusal
    from boxcoxstat.api import TABLE

    count = 0
    for door, container, est, fam, wanted in _combinations():
        if door == "PowerTransformer" and (fam == "bcnpower" or container == "spark"
                                           or wanted & {"fixed", "shifted", "weighted"}):
            continue  # settings scikit-learn's transformer has no keyword for
        if any(r.offers(door, container) and r.serves(est, fam, wanted) and r.fitter
               for r in TABLE.routes):
            continue
        text = refusal(TABLE, door, container, est, fam, wanted, {"h": 0.9})
        count += 1
        assert any(w in text for w in ("not available", " needs ", "do not go together",
                                       "takes no options")), text
        assert "takes" in text or "fitted by" in text, text
    assert count > 1000


@pytest.mark.parametrize(("kw", "message"), [
    ({"method": "rewml", "lmbda": "safe"}, r"lmbda='safe' needs method='mle'; method='rewml' "
                                          r"with family='boxcox' takes: estimated"),
    ({"family": "bcnpower", "method": "carroll"}, r"family='bcnpower' needs method='mle'"),
    ({"bounds": (0, 1), "lmbda": "safe"}, r"lmbda='safe' and bounds= do not go together.*"
                                         r"give one"),
    ({"family": "auto", "lmbda": 1.0}, r"lmbda= \(a fixed power\) needs method='mle' with "
                                       r"family 'boxcox' or 'yeojohnson'"),
])
def test_a_refused_combination_names_itself_and_what_is_available(kw, message):
    with pytest.raises(BoxCoxError, match=message):
        bcs.fit([1.0, 2.0, 3.0, 5.0], **kw)


def test_power_transformer_is_refused_by_the_same_table_in_its_own_words():
    pytest.importorskip("sklearn")
    X = np.random.default_rng(0).lognormal(size=(20, 2))
    with pytest.raises(BoxCoxError) as fit_err:
        bcs.fit(X, method="rewml", lmbda="safe")
    with pytest.raises(BoxCoxError) as pt_err:
        bcs.PowerTransformer("box-cox", estimator="rewml", lmbda="safe").fit(X)
    assert str(fit_err.value).startswith("lmbda='safe' needs method='mle'; method='rewml'")
    assert str(pt_err.value).startswith("lmbda='safe' needs estimator='mle'; "
                                        "estimator='rewml' with method='box-cox' takes")


def test_dask_bounds_are_refused_for_power_transformer_too():
    """main's PowerTransformer ignored bounds= on Dask input without a word."""
    pytest.importorskip("sklearn")
    da = pytest.importorskip("dask.array")
    x = da.from_array(np.random.default_rng(1).lognormal(size=(60, 2)), chunks=(20, 2))
    with pytest.raises(BoxCoxError, match="bounds= is not available for Dask input"):
        bcs.PowerTransformer(bounds=(0, 1)).fit(x)
    # bcs.fit takes them (issue 30): the in-memory bounded fit, to 1e-10
    got = bcs.fit(x, bounds=(0, 1)).lmbda
    want = bcs.fit(x.compute(), bounds=(0, 1)).lmbda
    assert got == pytest.approx(want, abs=1e-10)


def test_the_doors_refuse_nothing_by_hand():
    """Every refusal of a combination is the table's: fit's door raises no error itself."""
    import inspect

    import boxcoxstat.api as api

    assert "raise " not in inspect.getsource(api)


def test_the_gate_recognises_collections_without_importing_their_libraries():
    """Dask and Spark are recognised by the module name of the object's type: fitting
    in-memory data (bcs.fit, PowerTransformer) imports neither."""
    import subprocess
    import sys

    code = ("import sys, numpy as np, pandas as pd, boxcoxstat as bcs\n"
            "from boxcoxstat._validation import container_of\n"
            "bcs.fit([1.0, 2.0, 3.0, 5.0]); bcs.fit(pd.DataFrame({'a': [1.0, 2.0, 3.0, 5.0]}))\n"
            "bcs.PowerTransformer().fit(np.arange(1.0, 9.0).reshape(4, 2))\n"
            "assert container_of(np.ones(3)) == 'memory'\n"
            "print(sorted(m for m in ('dask', 'pyspark') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.strip() == "[]"
