"""``bcs.lmer(..., family="bcnpower")``: car's ``powerTransform(lmer(...), family =
"bcnPower")`` objective, lambda with the shift gamma profiled out by the core's bcnPower
engine (``core.shifted``) on the mixed model's profile.

Reference values: tests/reference/lmer_bcnpower_reference.R (car 3.1-1, lme4 1.1-31) and its
JSON, which carries each case's data (lme4's sleepstudy with the reaction time shifted so
that gamma is estimated inside its range, or sits at its lower bound, or has no maximum).
car maximises by alternating one-dimensional searches until the log-likelihood changes by
less than 1e-3 relative, so its own output is compared to that tolerance; the tight R
optimum of the same objective to 1e-6 in lambda. A fit takes 10-80 s (every likelihood
refits the random effects, and gamma's global search refits them on a grid): slow.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs
from boxcoxstat.core.design import qr_design
from boxcoxstat.mixed.formula import split_random
from boxcoxstat.mixed.profile import MixedShiftedColumn, Structure
from boxcoxstat.mixed.results import RandomDesign

REF = json.loads((Path(__file__).parents[1] / "reference"
                  / "lmer_bcnpower_reference.json").read_text())
CASES = {c["name"]: c for c in REF["cases"]}
RUNAWAY = REF["runaway"][0]


def _frame(case):
    data = dict(case["data"])
    data.pop("_levels")
    return pd.DataFrame(data)


def _column(case):
    """The case's MixedShiftedColumn, built as lmer builds it (intercept + Days)."""
    df = _frame(case)
    y = df[case["formula"].split("~")[0].strip()].to_numpy()
    x = np.column_stack([np.ones(len(y)), df["Days"].to_numpy()])
    _, terms = split_random(case["formula"])
    rd = RandomDesign.build(terms, df, len(y))
    st = Structure.build(list(rd.dims), list(rd.nlevels))
    return MixedShiftedColumn(y, qr_design(x), rd.matrix(), st, x, case["REML"])


@pytest.fixture(scope="module")
def fits():
    cache = {}

    def get(name):
        if name not in cache:
            c = CASES[name]
            cache[name] = bcs.lmer(c["formula"], _frame(c), REML=c["REML"],
                                   family="bcnpower")
        return cache[name]

    return get


@pytest.mark.parametrize("name", list(CASES))
def test_objective_at_rs_optimum_equals_cars_objective(name):
    """No optimiser: the likelihood at R's (lambda, gamma) and its gamma-derivative."""
    case = CASES[name]
    t = case["tight"]
    col = _column(case)
    off = float(-0.5 * col.frac * col.n * (1 + np.log(2 * np.pi)))
    nll, dl, dg = col.nll(t["lmbda"], t["gamma"])
    # R's value: logLik of a tightly converged lmer refit (bobyqa, rhoend 1e-12)
    assert off - nll == pytest.approx(t["llf"], abs=1e-8)
    # the analytic gamma-score against central differences of the same NLL
    h = 1e-4 * t["gamma"]
    num = (col.nll(t["lmbda"], t["gamma"] + h)[0] - col.nll(t["lmbda"], t["gamma"] - h)[0])
    assert dg == pytest.approx(num / (2 * h), rel=1e-5, abs=1e-7)  # O(h^2) and the refits
    if t["status"] == "estimated":  # both scores vanish at an interior optimum
        assert abs(dl) < 1e-5 and abs(dg) < 1e-5  # R's optimum: lambda to ~1e-8


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_bcnpower_equals_a_tight_optimum_of_cars_objective(name, fits):
    t = CASES[name]["tight"]
    m = fits(name)
    p = m.power
    assert m.converged and m.nonconverged.size == 0
    assert p.gamma_status[0] == t["status"]
    # R's nested optimize() on values (tol 1e-10): lambda to about 1e-8
    assert m.lmbda == pytest.approx(t["lmbda"], abs=1e-6)
    assert p.gamma_values[0] == pytest.approx(t["gamma"], rel=1e-5)
    assert m.llf == pytest.approx(t["llf"], abs=1e-8)
    # LR tests with gamma profiled out: R takes the supremum over gamma in [0.1, inf). On
    # R190 at lambda = 1 the gamma profile falls from gamma_min, dips and rises towards the
    # limit gamma -> inf beyond the grid; the test's NLL takes that limit as a candidate
    # (ShiftedProfile.test_values; before: gamma_min, LR 40.97791 vs R's 40.97741)
    assert p.test(0).statistic == pytest.approx(t["lr0"], abs=1e-6)
    assert p.test(1).statistic == pytest.approx(t["lr1"], abs=1e-6)
    # Ridders' curvature of R's profile (nested optimize values): measured within 1e-6
    with warnings.catch_warnings():  # gamma's own se at its bound: NaN, with a warning
        warnings.simplefilter("ignore", RuntimeWarning)
        bse = p.bse.iloc[0]
    if t["status"] == "estimated":
        assert bse == pytest.approx(t["bse"], rel=1e-4)
    else:  # gamma leaves its bound on one side of the estimate: the profile's curvature has
        # a kink there, which R's symmetric Ridders steps straddle (1% off); the estimate's
        # side holds gamma at the bound, as car's se does (optimHess with gamma fixed)
        assert bse == pytest.approx(CASES[name]["car"]["bse"], rel=1e-4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        lo, hi = p.conf_int().iloc[0]
    assert lo < m.lmbda < hi


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_bcnpower_equals_car_to_its_tolerance(name, fits):
    car = CASES[name]["car"]
    m = fits(name)
    assert (m.power.gamma_status[0] == "estimated") == car["gamma_estimated"]
    # car stops when its alternating searches change the log-likelihood by < 1e-3 relative;
    # it never beats the maximum
    assert m.llf >= car["llf"] - 1e-8
    assert (m.llf - car["llf"]) / abs(car["llf"]) < 1e-3
    if not car["gamma_estimated"]:  # gamma at its bound: one optimize() in lambda, eps^0.25
        assert m.lmbda == pytest.approx(car["lmbda"], abs=1e-4)
        with pytest.warns(RuntimeWarning, match="standard error of gamma is not available"):
            bse = m.power.bse.iloc[0]
        assert bse == pytest.approx(car["bse"], rel=2e-3)  # optimHess's difference


@pytest.mark.slow
def test_bcnpower_fit_reports_predicts_and_round_trips(fits):
    m = fits("sleepstudy_r210_intercept_ml")
    text = str(m.summary())
    assert "bcnPower shift" in text and "gamma = 14.6488" in text
    assert m.df_model_llf == 2 + 1 + 1 + 2  # fixed effects, theta, sigma, lambda, gamma
    # predictions undo the transform and the shift: the fitted values' median
    lam, gam = m.lmbda, float(m.power.gamma_values[0])
    eta = m.params["Intercept"] + m.params["Days"] * np.array([0.0, 9.0])
    base = np.exp(np.log1p(lam * eta) / lam)
    want = base - gam ** 2 / (4 * base)
    new = pd.DataFrame({"Days": [0.0, 9.0], "Subject": ["new", "new"]})
    assert m.predict(new).to_numpy() == pytest.approx(want, rel=1e-12)
    back = type(m).from_json(m.to_json())
    assert str(back.summary()) == text
    assert back.predict(new).to_numpy() == pytest.approx(want, rel=1e-12)
    with pytest.raises(bcs.BoxCoxError, match="not available"):
        m.at(0.5)


def test_the_supremum_without_maximum_is_rs_limit():
    """car's answer here is a point of its box gamma <= max(y); the objective keeps rising
    towards Manly's exponential transformation (R: P(gamma) at car's gamma and at 1, 10,
    100 and 1000 max|y|), whose likelihood the engine computes in closed form."""
    prof = RUNAWAY["profile"]
    assert all(a < b for a, b in zip(prof, prof[1:], strict=False))
    col = _column(RUNAWAY)
    off = float(-0.5 * col.frac * col.n * (1 + np.log(2 * np.pi)))
    sup = off - col.limit()[1]
    # above every R value, and R's at gamma = 1000 max|y| is within 1e-5 of it (the profile
    # approaches its limit as 1/gamma: 1.2e-4 at 100 max|y|, 1.2e-6 at 1000 max|y|)
    assert sup > max(prof)
    assert sup - prof[-1] < 1e-5
    assert sup > RUNAWAY["car"]["llf"] + 2.0


@pytest.mark.slow
def test_a_likelihood_without_maximum_is_refused_by_name():
    with pytest.raises(bcs.BoxCoxError, match="response 'R250': the bcnPower likelihood has "
                       "no maximum.*Manly"):
        bcs.lmer(RUNAWAY["formula"], _frame(RUNAWAY), REML=RUNAWAY["REML"],
                 family="bcnpower")


def test_bcnpower_with_zero_random_variance_is_lm_bounded_or_not():
    """The nested case: every group holds the same (x, y) pairs (30 sleepstudy rows, R210,
    three times), so the random intercepts' variance is 0 at every (lambda, gamma) and the
    ML objective is ``bcs.lm(family="bcnpower")``'s, number for number (measured: lambda
    4e-14, gamma 2e-12 relative, interval ends 1e-11, LR 1e-13)."""
    case = CASES["sleepstudy_r210_intercept_ml"]
    sub = _frame(case).iloc[:30]
    df = pd.DataFrame({"y": np.tile(sub["R210"], 3), "x": np.tile(sub["Days"], 3),
                       "g": np.repeat(list("abc"), 30)})
    m = bcs.lm("y ~ x", df, family="bcnpower")
    ml = bcs.lmer("y ~ x + (1 | g)", df, family="bcnpower", REML=False)
    assert ml.variance_components["vcov"].iloc[0] == 0.0
    assert m.power.gamma_status == ml.power.gamma_status == ("estimated",)
    # two evaluations of one likelihood (QR vs the mixed model's penalised system): 1e-10
    assert ml.lmbda == pytest.approx(m.lmbda, abs=1e-10)
    assert ml.power.gamma_values[0] == pytest.approx(m.power.gamma_values[0], rel=1e-10)
    assert ml.llf == pytest.approx(m.llf, abs=1e-9)
    assert ml.power.conf_int().to_numpy() == pytest.approx(m.power.conf_int().to_numpy(),
                                                           abs=1e-9)
    for lam0 in (0, 1):
        assert ml.power.test(lam0).statistic == pytest.approx(m.power.test(lam0).statistic,
                                                              abs=1e-9)
    assert ml.params.to_numpy() == pytest.approx(m.params.to_numpy(), rel=1e-10)
    # bounds= with bcnPower: lm's bounded maximum and interval, gamma profiled at the bound
    mb = bcs.lm("y ~ x", df, family="bcnpower", bounds=(0.2, 1))
    mlb = bcs.lmer("y ~ x + (1 | g)", df, family="bcnpower", REML=False, bounds=(0.2, 1))
    assert mlb.lmbda == mb.lmbda == 0.2
    assert mlb.power.gamma_values[0] == pytest.approx(mb.power.gamma_values[0], rel=1e-10)
    assert mlb.power.conf_int().to_numpy() == pytest.approx(mb.power.conf_int().to_numpy(),
                                                            abs=1e-9)
    assert "Bound active: lambda is the lower bound of [0.2, 1]" in str(mlb.summary())
