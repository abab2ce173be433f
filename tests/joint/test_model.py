"""Tests for the joint (multivariate) lambda: ``boxcoxstat.fit_joint`` against R's car.

The reference values are described in ``carref.py``. We compare with the tight values to 1e-8
or better and with car's raw output to the precision car delivers.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs
from boxcoxstat import families

from .carref import CASES, REF
from .carref import highway as _highway


@pytest.mark.parametrize("case", CASES)
def test_same_data_as_r(case):
    y = _highway()[case["columns"]]
    assert len(y) == case["n"]
    np.testing.assert_allclose(y.sum().to_numpy(), case["data_check"]["colsums"], rtol=1e-14)


@pytest.mark.parametrize("case", CASES)
def test_estimates_against_tight(fits, case):
    r, t = fits[case["name"]], case["tight"]
    assert r.converged
    assert r.nobs == case["n"] and r.n_missing == 0
    assert r.design_rank == case["design_rank"]
    np.testing.assert_allclose(r.lmbda.to_numpy(), t["lambda"], rtol=0, atol=1e-8)
    np.testing.assert_allclose(r.bse.to_numpy(), t["se"], rtol=1e-7)
    np.testing.assert_allclose(r.cov_params().to_numpy(), np.array(t["cov"]), rtol=1e-6,
                               atol=1e-10)
    assert r.llf == pytest.approx(t["llf"], rel=1e-12)
    lo, hi = r.conf_int(interval="wald").to_numpy().T
    np.testing.assert_allclose(lo, t["wald_lower_qnorm"], atol=1e-7)
    np.testing.assert_allclose(hi, t["wald_upper_qnorm"], atol=1e-7)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("which", ["lr_all0", "lr_all1", "lr_arbitrary", "lr_rounded"])
def test_lr_tests_against_tight(fits, case, which):
    r, t = fits[case["name"]], case["tight"]
    lam0 = {"lr_all0": 0.0, "lr_all1": 1.0, "lr_arbitrary": case["arbitrary_lambda"],
            "lr_rounded": t["rounded_pwr"]}[which]
    test = r.test(lam0)
    ref = t[which]
    assert test.df == ref["df"] == case["p"]
    assert test.statistic == pytest.approx(ref["statistic"], rel=1e-10, abs=1e-8)
    assert test.pvalue == pytest.approx(ref["pvalue"], rel=1e-7)


@pytest.mark.parametrize("case", CASES)
def test_against_car_raw_output(fits, case):
    """car's own numbers, at the precision its optimiser reaches (see car_minus_tight)."""
    r, c = fits[case["name"]], case["car"]
    np.testing.assert_allclose(r.lmbda.to_numpy(), c["lambda"], atol=1e-4)
    np.testing.assert_allclose(r.bse.to_numpy(), c["se"], rtol=2e-5)
    assert r.llf == pytest.approx(c["llf"], abs=1e-6)
    lam, se = r.lmbda.to_numpy(), r.bse.to_numpy()
    np.testing.assert_allclose(lam - 1.96 * se, c["wald_lower"], atol=1e-4)
    np.testing.assert_allclose(lam + 1.96 * se, c["wald_upper"], atol=1e-4)
    for key, lam0 in (("lr_all0", 0.0), ("lr_all1", 1.0),
                      ("lr_arbitrary", case["arbitrary_lambda"])):
        test = r.test(lam0)
        assert test.df == c[key]["df"]
        assert test.statistic == pytest.approx(c[key]["statistic"], abs=1e-6)


def test_summary_shows_cars_numbers(fits):
    """The documented car example: car prints 0.1451, 0.2396, -0.7336, -0.2959 and
    LR 13.1339 (all 0) and 140.5853 (all 1)."""
    case = REF["cases"][0]
    assert case["name"] == "highway1_bc_htype"
    text = str(fits[case["name"]].summary())
    printed = case["car"]["summary_printed"]
    for number in ("0.1451", "0.2396", "-0.7336", "-0.2959", "-0.2733", "0.4536",
                   "13.1339", "140.5853"):
        assert number in printed and number in text
    s = fits[case["name"]].summary()
    assert "Wald Lwr Bnd" in s.as_html() and r"\toprule" in s.as_latex()
    tests = s.tables[1][1]
    assert tests.loc["all 0 (log)", "LRT"] == fits[case["name"]].test(0).statistic


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_one_column_equals_univariate_fit(family):
    """p = 1 with ~1 is the univariate problem: the same lambda, SE, intervals (profile at two
    levels and Wald), LR tests and rounded power as bcs.fit, to 1e-10 relative (the issue's
    nested-model tolerance; the computations share the profile, so only rounding differs)."""
    x = bcs.datasets.load("topgear")["Weight"].dropna()
    joint = bcs.fit_joint(x.to_frame(), family=family)
    uni = bcs.fit(x.to_frame(), family=family)
    tol = {"rtol": 1e-10, "atol": 0}
    np.testing.assert_allclose(joint.lmbda, uni.lmbda, **tol)
    np.testing.assert_allclose(joint.bse, uni.bse, **tol)
    assert joint.llf == pytest.approx(uni.llf["Weight"], rel=1e-12)
    for kw in ({}, {"alpha": 0.1}, {"interval": "wald"}):
        np.testing.assert_allclose(joint.conf_int(**kw), uni.conf_int(**kw), **tol)
    for lam0 in (0.0, 1.0, 0.3):
        assert joint.test(lam0).statistic == pytest.approx(
            uni.test(lam0).statistic["Weight"], rel=1e-10)
    assert joint.rounded["Weight"] == uni.rounded["Weight"]


@pytest.mark.parametrize("scale", [1e-300, 1e250])
def test_extreme_scale_changes_nothing(scale):
    """Box-Cox with an intercept is scale invariant; values near float64's ends must not
    overflow or lose the estimate."""
    hw = _highway()[["len", "adt", "trks"]]
    base = bcs.fit_joint(hw)
    big = hw.copy()
    big["len"] = big["len"] * scale
    r = bcs.fit_joint(big)
    np.testing.assert_allclose(r.lmbda.to_numpy(), base.lmbda.to_numpy(), atol=1e-8)
    np.testing.assert_allclose(r.bse.to_numpy(), base.bse.to_numpy(), rtol=1e-6)
    assert r.test(1).statistic == pytest.approx(base.test(1).statistic, rel=1e-8)


def test_missing_rows_dropped_together_and_counted():
    hw = _highway()
    before = hw.copy()
    holes = hw.copy()
    holes.loc[3, "adt"] = np.nan
    holes.loc[7, "htype"] = np.nan
    holes.loc[11, "rate"] = np.nan  # not used: must not drop the row
    cols = ["len", "adt", "trks", "sigs1"]
    r = bcs.fit_joint(holes, cols, design="~ htype")
    ref = bcs.fit_joint(hw.drop(index=[3, 7]), cols, design="~ htype")
    assert r.nobs == 37 and r.n_missing == 2
    np.testing.assert_allclose(r.lmbda.to_numpy(), ref.lmbda.to_numpy(), atol=1e-10)
    pd.testing.assert_frame_equal(hw, before)
    with pytest.raises(bcs.BoxCoxError, match="adt"):
        bcs.fit_joint(holes, cols, missing="raise")
    with pytest.raises(bcs.BoxCoxError, match="htype"):
        bcs.fit_joint(holes.assign(adt=hw["adt"]), cols, design="~ htype", missing="raise")


def test_default_columns_exclude_design_variables():
    hw = _highway()[["len", "adt", "htype"]]
    r = bcs.fit_joint(hw, design="~ C(htype)")
    assert list(r.lmbda.index) == ["len", "adt"]


def test_bad_input_messages():
    hw = _highway()
    with pytest.raises(bcs.BoxCoxError, match="itg"):
        bcs.fit_joint(hw, ["len", "itg"])
    with pytest.raises(bcs.BoxCoxError, match="nosuch"):
        bcs.fit_joint(hw, ["len", "adt"], design="~ nosuch")
    with pytest.raises(bcs.BoxCoxError, match="nosuch"):
        bcs.fit_joint(hw, ["len", "nosuch"])
    with pytest.raises(bcs.BoxCoxError, match="one-sided"):
        bcs.fit_joint(hw, ["len", "adt"], design="rate ~ htype")
    with pytest.raises(bcs.BoxCoxError, match="intercept"):
        bcs.fit_joint(hw, ["len", "adt"], design="~ 0 + slim")
    with pytest.raises(bcs.BoxCoxError, match="too few"):
        bcs.fit_joint(hw.head(5), ["len", "adt", "trks"], design="~ slim")
    with pytest.raises(bcs.BoxCoxError, match="family"):
        bcs.fit_joint(hw, ["len", "adt"], family="auto")
    r = bcs.fit_joint(hw, ["len", "adt"])
    with pytest.raises(bcs.BoxCoxError, match="2 numbers"):
        r.test([0.0, 1.0, 2.0])


def _table1_rows():
    from tests import mpref

    return [pytest.param(r, id=f"{r['family']}-{r['data'][-1]}") for r in mpref.table1()]


@pytest.mark.parametrize("row", _table1_rows())
def test_one_column_adversarial_data_against_mpmath(row):
    """Xu & Cormode (2025) Table 1: |lambda| up to 4e5; the joint code must not lose it."""
    from tests import mpref

    exact = float(mpref.exact_lambda(row["data"], row["family"]))
    r = bcs.fit_joint(pd.DataFrame({"x": row["data"]}), family=row["family"])
    assert r.lmbda["x"] == pytest.approx(exact, rel=1e-9)


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_recovers_known_powers(family):
    """Inverse-transform correlated normal draws with known powers, then refit: the estimate
    lies within 4 standard errors of the truth and the LR test does not reject it."""
    rng = np.random.default_rng(11)
    n = 400
    true = np.array([0.5, -0.3, 1.5])
    cov = np.array([[1.0, 0.6, 0.3], [0.6, 1.0, 0.4], [0.3, 0.4, 1.0]])
    z = rng.multivariate_normal(np.zeros(3), cov, size=n)
    g = rng.integers(0, 3, n)
    centre = np.array([4.0, 1.0, 3.0]) if family == "boxcox" else np.array([0.5, -0.5, 0.0])
    z = centre + 0.25 * z + 0.3 * g[:, None]
    x = np.column_stack([families.inverse_transform(z[:, j], true[j], family)
                         for j in range(3)])
    df = pd.DataFrame(x, columns=["a", "b", "c"]).assign(g=g.astype(str))
    r = bcs.fit_joint(df, family=family, design="~ g")
    assert list(r.lmbda.index) == ["a", "b", "c"] and r.design_rank == 3
    assert np.all(np.abs(r.lmbda.to_numpy() - true) < 4 * r.bse.to_numpy())
    assert r.test(true).pvalue > 0.001


def test_polars_frame_with_a_design_gives_the_pandas_numbers():
    import polars as pl
    hw = bcs.datasets.load("highway1")
    cols = ["len", "adt", "trks", "sigs1"]
    want = bcs.fit_joint(hw, cols, design="~ htype")
    got = bcs.fit_joint(pl.from_pandas(hw), cols, design="~ htype")
    np.testing.assert_allclose(got.lmbda.to_numpy(), want.lmbda.to_numpy(), rtol=1e-13)
    out = got.transform(pl.from_pandas(hw))
    assert isinstance(out, pl.DataFrame) and out.columns == cols


def _global_case(name: str) -> pd.DataFrame:
    ref = json.loads((Path(__file__).parents[1] / "reference"
                      / "bcnpower_global_reference.json").read_text())["cases"][name]
    y = np.asarray(ref["y"], dtype=float)
    other = np.random.default_rng(0).lognormal(size=y.size)
    return pd.DataFrame({"bad": y, "other": other}), ref


@pytest.mark.parametrize("name", ["limit_after_local", "runaway"])
def test_joint_bcnpower_refuses_no_maximum_gh27(name):
    """Two columns, one of which has no bcnPower maximum (R's tight optimum of car's own
    likelihood: its supremum is the limit gamma -> inf). fit_joint used to return a local
    maximum (limit_after_local: lambda 0.571) or a runaway (lambda 1932, gamma 5813) with at
    most a convergence warning; it now refuses, naming the column and the limit model."""
    df, ref = _global_case(name)
    assert ref["tight"]["status"] == "infinite"  # R: the supremum is the limit
    with pytest.raises(bcs.BoxCoxError, match=r"column 'bad': the joint bcnPower likelihood "
                       r"has no maximum.*Manly's exponential transformation"):
        bcs.fit_joint(df, family="bcnpower")


def test_joint_bcnpower_keeps_an_interior_maximum_gh27():
    """The limit check does not refuse a column whose maximum is interior (R: not at the
    limit); two independent columns' joint powers stay near their own (0.01: what the
    weak correlation of 79 independent draws can move them)."""
    df, ref = _global_case("global_small_gamma")
    assert ref["tight"]["status"] == "estimated"
    r = bcs.fit_joint(df, family="bcnpower")
    assert r.lmbda["bad"] == pytest.approx(ref["tight"]["locals"][0]["lambda"], abs=0.01)


def test_joint_bcnpower_with_nan_drops_the_row_gh27():
    """A NaN used to hang fit_joint(family='bcnpower') for more than 20 s; the row is now
    left out (as missing='drop' says) and the estimates are those of the complete rows
    (1e-10: the same data)."""
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"a": rng.normal(size=40), "b": rng.lognormal(size=40)})
    df.iloc[3, 0] = np.nan
    r = bcs.fit_joint(df, family="bcnpower", missing="drop")
    full = bcs.fit_joint(df.dropna(), family="bcnpower")
    assert r.nobs == 39
    np.testing.assert_allclose(r.lmbda, full.lmbda, rtol=1e-10)


@pytest.mark.parametrize("case", CASES)
def test_pvalues_are_wald_of_cars_estimates(fits, case):
    # statsmodels' pvalues: two-sided Wald p of each power = 0, z = lambda / se from car's
    # tight lambda and se (scipy here); 1e-6: the se agree to 1e-7 above, p follows z
    from scipy import stats

    r, t = fits[case["name"]], case["tight"]
    z = np.asarray(t["lambda"]) / np.asarray(t["se"])
    want = 2 * stats.norm.sf(np.abs(z))
    assert list(r.pvalues.index) == list(r.params.index)
    np.testing.assert_allclose(r.pvalues.to_numpy(), want, rtol=1e-6, atol=1e-300)
