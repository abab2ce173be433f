"""bcnPower (core/shifted.py) through bcs.fit, bcs.lm and bcs.fit_joint against car 3.1-1.

Reference: tests/reference/car_toolbox_reference.R -> car_toolbox_reference.json. "tight" is car's
own log-likelihood (``bcnPowerllik``) optimised in R to near machine precision: gamma by Brent
on log(gamma) (tol 1e-13), lambda by Brent (tol 1e-11) and a BFGS polish, profile interval ends by
uniroot (tol 1e-12), SE from ``optimHess`` (steps 1e-4).

Tolerances. lambda: 1e-6 absolute (the issue's bar; R's Brent on the flat profile resolves it
to about 2e-8, and we agree to that). Log-likelihood, interval ends and LR statistics: 1e-9
relative (values of one smooth function, computed to rounding on both sides). SE: 1e-5 relative
(optimHess's central differences with step 1e-4 on a numerical gradient), except inc's in the
two-column case (1e-2: R's steps of 1e-4 on gamma ~ 23 and its numerical gradient; our value is
confirmed by two independent routes that agree to 1e-8).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs
from boxcoxstat import families
from boxcoxstat.core.design import qr_design
from boxcoxstat.core.shifted import ShiftedColumn, ShiftedProfile

REF = json.loads((Path(__file__).parents[1] / "reference" / "car_toolbox_reference.json")
                 .read_text())
BCN = REF["bcnpower"]
GLOBAL = json.loads((Path(__file__).parents[1] / "reference" / "bcnpower_global_reference.json")
                    .read_text())
CASES = GLOBAL["cases"]


def _lwg() -> pd.Series:
    return pd.Series(BCN["mroz_lwg"]["y"], name="lwg")


def _check_one(lmbda, gamma, llf, bse, ci, lr0, lr1, tight):
    assert lmbda == pytest.approx(tight["lambda"], abs=1e-6)
    assert gamma == pytest.approx(tight["gamma"], rel=1e-6)
    assert llf == pytest.approx(tight["llf"], rel=1e-9)
    assert bse.iloc[0] == pytest.approx(tight["se_lambda"], rel=1e-5)
    assert bse.iloc[1] == pytest.approx(tight["se_gamma"], rel=1e-5)
    assert ci.iloc[0]["lower"] == pytest.approx(tight["profile_lower"], rel=1e-9)
    assert ci.iloc[0]["upper"] == pytest.approx(tight["profile_upper"], rel=1e-9)
    assert lr0 == pytest.approx(tight["lr0_profile"], rel=1e-9)
    assert lr1 == pytest.approx(tight["lr1_profile"], rel=1e-9)


def test_fit_bcnpower_matches_car_on_mroz_lwg():
    r = bcs.fit(_lwg(), family="bcnpower")
    _check_one(r.lmbda, r.gamma, r.llf, r.bse, r.conf_int(), r.test(0).statistic,
               r.test(1).statistic, BCN["mroz_lwg"]["tight"])
    assert list(r.params.index) == ["lwg", "lwg:gamma"]
    assert list(r.conf_int().index) == ["lwg", "lwg:gamma"]
    car = BCN["mroz_lwg"]["car"]  # car's own optimiser stops about 3e-4 away
    assert r.lmbda == pytest.approx(car["lambda"], abs=1e-3)


def test_lm_bcnpower_matches_car_on_an_lm_response():
    case = BCN["mroz_lwg_lm"]
    m = bcs.lm("lwg ~ k5 + wc + hc + age", pd.DataFrame(case["data"]), family="bcnpower")
    p = m.power
    _check_one(m.lmbda, p.gamma, m.llf, p.bse, p.conf_int(), p.test(0).statistic,
               p.test(1).statistic, case["tight"])


def test_fit_joint_bcnpower_matches_car_on_two_columns():
    case = BCN["mroz_lwg_inc"]
    y = pd.DataFrame(np.array(case["Y"]).reshape(case["n"], 2, order="F"),
                     columns=case["names"])
    r = bcs.fit_joint(y, family="bcnpower")
    tight = case["tight"]
    # R's BFGS on a numerical gradient stops where the gradient is 1e-5 (inc's lambda 1.8e-6
    # away along its flat direction); ours is the better optimum (checked below: analytic
    # gradient 1e-12, NLL 1e-11 lower than at R's point)
    np.testing.assert_allclose(r.lmbda, tight["lambda"], atol=5e-6)
    at_r = r.problem.nll(np.array(tight["lambda"]))
    assert r.nll_hat <= at_r
    np.testing.assert_allclose(r.gamma, tight["gamma"], rtol=1e-5)
    assert r.test(0).statistic == pytest.approx(tight["lr0_profile"], rel=1e-9)
    # lambda = (1, 1): inc's gamma goes to infinity (the column untransformed); the global
    # maximum over both gammas (bcnpower_global_reference.R) is higher than the local one
    # L-BFGS-B from the estimate's gammas finds (car_toolbox_reference's 372.28: issue 27)
    assert r.test(1).statistic == pytest.approx(GLOBAL["mroz_lwg_inc"]["lr1"]["lr"], rel=1e-9)
    assert GLOBAL["mroz_lwg_inc"]["lr0"]["lr"] == pytest.approx(tight["lr0_profile"], rel=1e-9)
    # car's det(var) scaling differs from det(R'R/n) by (n/2)(p - 1) log(n/(n - 1))
    n = case["n"]
    car_llik = -r.nll_hat - 0.5 * n * np.log(n / (n - 1))
    assert car_llik == pytest.approx(tight["llik"], rel=1e-12)
    bse = r.bse
    assert bse["lwg"] == pytest.approx(tight["se_lambda"][0], rel=1e-5)
    assert bse["lwg:gamma"] == pytest.approx(tight["se_gamma"][0], rel=1e-5)
    assert bse["inc"] == pytest.approx(tight["se_lambda"][1], rel=1e-2)
    assert bse["inc:gamma"] == pytest.approx(tight["se_gamma"][1], rel=1e-2)
    # car's alternating L-BFGS-B (lambda boxed in [-3, 3], stopped at 1e-4) ends lower
    assert car_llik > case["car"]["llik"] + 0.5


def test_car_tests_hold_gamma_at_its_estimate():
    """car's testTransform for bcnPower re-optimises a function that ignores its argument,
    so its LR statistic keeps gamma at the estimate; ours maximises gamma out."""
    tight = BCN["mroz_lwg"]["tight"]
    u = np.array(BCN["mroz_lwg"]["y"])
    col = ShiftedColumn(u, qr_design(np.ones((u.size, 1))))
    v_hat, _, _ = col.nll(tight["lambda"], tight["gamma"])
    v0, _, _ = col.nll(0.0, tight["gamma"])
    assert 2 * (v0 - v_hat) == pytest.approx(tight["lr0_gamma_fixed"], rel=1e-8)
    assert tight["lr0_gamma_fixed"] > 3 * tight["lr0_profile"]


def test_nll_at_points_matches_car_bcnpowerllik():
    tight = BCN["mroz_lwg"]["tight"]
    u = np.array(BCN["mroz_lwg"]["y"])
    prof = ShiftedProfile((ShiftedColumn(u, qr_design(np.ones((u.size, 1)))),))
    for pt in tight["llik_at"]:
        v, _, _ = prof.columns[0].nll(pt["lambda"], pt["gamma"])
        car_llik = prof.llf_offset()[0] - v + 0.5 * u.size * (np.log(2 * np.pi) + 1)
        assert car_llik == pytest.approx(pt["llik"], rel=1e-12)


def test_gamma_score_is_the_derivative_of_the_nll():
    u = np.random.default_rng(3).lognormal(size=80) - 1.0
    col = ShiftedColumn(u, qr_design(np.ones((80, 1))))
    for lam, g in ((0.3, 0.5), (-0.7, 2.0), (1.4, 0.15)):
        _, dl, dg = col.nll(lam, g)
        h = 1e-6
        num_g = (col.nll(lam, g + h)[0] - col.nll(lam, g - h)[0]) / (2 * h)
        num_l = (col.nll(lam + h, g)[0] - col.nll(lam - h, g)[0]) / (2 * h)
        assert dg == pytest.approx(num_g, rel=1e-6, abs=1e-7)  # central difference error
        assert dl == pytest.approx(num_l, rel=1e-6, abs=1e-7)


def test_transform_and_inverse_match_car():
    t = REF["bcnpower_transform"]
    np.testing.assert_allclose(families.bcnpower(t["x"], t["lambda"], t["gamma"]), t["value"],
                               rtol=1e-14)
    np.testing.assert_allclose(families.bcnpower(t["x"], 0.0, t["gamma"]), t["value_lambda0"],
                               rtol=1e-14)
    r = bcs.fit(_lwg(), family="bcnpower")
    x = np.array([-3.0, -0.2, 0.0, 0.4, 5.0])
    np.testing.assert_allclose(r.inverse_transform(r.transform(x)), x, atol=1e-13)


def test_fixed_shift_boxcox_matches_car_bcpower_gamma():
    ref = REF["bcpower_shift"]
    r = bcs.fit(_lwg(), family="boxcox", gamma=ref["gamma"])
    assert r.lmbda == pytest.approx(ref["lambda"], abs=1e-6)  # car's optimiser tolerance
    t = ref["transform_at"]
    fixed = bcs.fit(_lwg(), family="boxcox", gamma=ref["gamma"])
    object.__setattr__(fixed, "lmbda_used", np.array([t["lambda"]]))
    np.testing.assert_allclose(fixed.transform(np.array(t["x"])), t["value"], rtol=1e-14)
    assert list(r.params.index) == ["lwg"]  # a fixed shift is not a parameter


def test_json_round_trip_keeps_gamma():
    r = bcs.fit(_lwg(), family="bcnpower")
    back = bcs.PowerTransformResult.from_json(r.to_json())
    assert str(back.summary()) == str(r.summary())
    pd.testing.assert_series_equal(back.params, r.params)
    x = np.array([-1.0, 0.5])
    np.testing.assert_allclose(back.transform(x), r.transform(x), rtol=1e-15)


def test_bad_input_names_the_problem():
    with pytest.raises(bcs.BoxCoxError,
                       match=r"plus the shift gamma = 1 has 5 value\(s\) <= 0, first at row 76"):
        bcs.fit(_lwg(), gamma=1.0)
    with pytest.raises(bcs.BoxCoxError, match="gamma must be a finite number"):
        bcs.fit(_lwg(), family="bcnpower", gamma=-1.0)
    with pytest.raises(bcs.BoxCoxError, match=r"gamma= \(a known shift\) needs method='mle' "
                                              r"with family 'boxcox' or 'bcnpower'"):
        bcs.fit(_lwg(), family="yeojohnson", gamma=1.0)
    r = bcs.fit(pd.Series([1.0, 2.0, 5.0, 3.0, 9.0], name="x"), gamma=0.5)
    with pytest.raises(bcs.BoxCoxError, match=r"first at row 1 \(-2.0 \+ 0.5\)"):
        r.transform(np.array([1.0, -2.0]))


def test_dask_input_refuses_bcnpower_rather_than_ignoring_it():
    import dask.array as da  # the dev extra, as tests/test_nested.py uses it
    x = da.from_array(np.array(BCN["mroz_lwg"]["y"]), chunks=200)
    with pytest.raises(bcs.BoxCoxError, match="not available for Dask input"):
        bcs.fit(x, family="bcnpower")
    with pytest.raises(bcs.BoxCoxError, match="not available for Dask input"):
        bcs.fit(x + 3.0, gamma=1.0)


# ----------------------------------------------------------------- issue 27: the global maximum
# Reference: tests/reference/bcnpower_global_reference.R -> .json: car's own bcnPowerllik
# maximised globally in R (a grid of step 0.05 in log gamma, each point's lambda by optimize,
# the best polished with tol 1e-13), the limit gamma -> inf (Manly's exponential family)
# maximised by optimize (tol 1e-13). Tolerances: lambda 1e-6 absolute (the brief's bar; R's
# optimize on the flat profile resolves it to about 1e-8), gamma 1e-6 relative (the same), log-
# likelihoods and LR statistics 1e-9 relative (one smooth function on both sides, to rounding).

def _case(name: str):
    c = CASES[name]
    n = c["n"]
    return c, np.array(c["y"]), n, 0.5 * n * (np.log(2 * np.pi) + 1)


def test_bcnpower_finds_the_global_maximum_gh27():
    """A local maximum at gamma ~ 4.2 (where car's start leads) must not hide the global one
    at gamma ~ 0.14."""
    c, y, n, const = _case("global_small_gamma")
    tight = c["tight"]
    r = bcs.fit(pd.Series(y, name="y"), family="bcnpower")
    assert r.lmbda == pytest.approx(tight["lambda"], abs=1e-6)
    assert r.gamma == pytest.approx(tight["gamma"], rel=1e-6)
    assert r.llf + const == pytest.approx(tight["sup_llik"], rel=1e-9)
    assert r.test(1).statistic == pytest.approx(tight["lr1"], rel=1e-9)
    assert r.test(0).statistic == pytest.approx(tight["lr0"], rel=1e-6, abs=1e-9)
    # the local maximum (gamma ~ 4.25) is 2.85 lower; car itself stops elsewhere, lower still
    assert min(loc["llik"] for loc in tight["locals"]) < tight["sup_llik"] - 2.8
    assert c["car"]["llik"] < tight["sup_llik"] - 0.2


def test_bcnpower_lm_at_the_lower_bound_not_a_runaway_gh27():
    """y ~ x: the maximum is at gamma's lower bound (car errors on these data)."""
    c, y, n, const = _case("lm_x")
    tight = c["tight"]
    df = pd.DataFrame({"y": y, "x": np.array(c["x"])})
    m = bcs.lm("y ~ x", df, family="bcnpower")
    assert m.lmbda == pytest.approx(tight["lambda"], abs=1e-6)
    assert m.power.gamma_status == ("lower bound",)
    assert m.llf + const == pytest.approx(tight["sup_llik"], rel=1e-9)
    assert m.power.test(1).statistic == pytest.approx(tight["lr1"], rel=1e-8)
    assert "error" in c["car"]


@pytest.mark.parametrize("name", ["limit_after_local", "runaway"])
def test_bcnpower_supremum_at_gamma_infinity_gh27(name):
    """The likelihood rises towards Manly's exponential family as gamma -> inf: the limit,
    its supremum and the LR tests against it match R's."""
    c, y, n, const = _case(name)
    tight, lim = c["tight"], c["limit"]
    col = ShiftedColumn(y, qr_design(np.ones((n, 1))))
    opt = col.optimum()
    assert opt.status == "infinite"
    assert opt.kappa == pytest.approx(lim["kappa"], rel=1e-6)  # R's optimize, tol 1e-13
    assert -opt.nll_limit == pytest.approx(tight["sup_llik"], rel=1e-9)
    assert -col.limit()[2] == pytest.approx(lim["llik_untransformed"], rel=1e-12)
    for lam0, key in ((0.0, "lr0"), (1.0, "lr1")):
        assert 2 * (col.gamma_hat(lam0)[1] - opt.nll_limit) == pytest.approx(tight[key],
                                                                             rel=1e-8)
    if tight["locals"]:  # the best finite local maximum (where car's start leads)
        assert opt.lmbda == pytest.approx(tight["locals"][0]["lambda"], abs=1e-6)
        assert -opt.nll == pytest.approx(tight["locals"][0]["llik"], rel=1e-9)


@pytest.mark.parametrize("name", ["limit_after_local", "runaway"])
def test_bcnpower_refuses_a_runaway_estimate_gh27(name):
    """No estimate exists: fit, lm and fit_joint refuse, naming the column, the limit model,
    the supremum and the LR statistics against it, and what to do."""
    c, y, n, const = _case(name)
    tight, lim = c["tight"], c["limit"]
    df = pd.DataFrame({"y": y})
    want = (rf"column 'y': the bcnPower likelihood has no maximum: it rises towards llf = "
            rf"{tight['sup_llf']:.6g} as gamma -> infinity .* kappa = {lim['kappa']:.4g}.*"
            rf"Manly's exponential transformation.*{tight['lr0']:.4g} for lambda = 0 and "
            rf"{tight['lr1']:.4g} for lambda = 1.*family='yeojohnson'")
    with pytest.raises(bcs.BoxCoxError, match=want):
        bcs.fit(df["y"], family="bcnpower")
    with pytest.raises(bcs.BoxCoxError, match="response 'y': the bcnPower likelihood has no"):
        bcs.lm("y ~ 1", df, family="bcnpower")
    with pytest.raises(bcs.BoxCoxError, match=want):
        bcs.fit_joint(df, ["y"], family="bcnpower")


def test_bcnpower_of_huge_positive_data_is_boxcox_and_fast_gh27():
    """Values near 1e300: every gamma below 1e-8 x the smallest value leaves the bases equal
    to the values (the NLL is flat there), so bcnPower is Box-Cox of the data with gamma at
    its lower bound. The gamma grid used to run from 0.1 to 1e303 in steps of 0.5 in log
    (about 1,400 profile points per lambda; fit_joint took minutes); it now starts where the
    NLL stops being flat. lambda equals Box-Cox's to 1e-9 (relative change of the bases
    below 1e-16)."""
    h = np.random.default_rng(1).lognormal(size=30) * 1e300
    r = bcs.fit(h, family="bcnpower")
    assert r.gamma == pytest.approx(0.1)
    assert r.lmbda == pytest.approx(bcs.fit(h, family="boxcox").lmbda, rel=1e-9)
