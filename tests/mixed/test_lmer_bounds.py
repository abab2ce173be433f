"""``bcs.lmer(..., bounds=(lo, hi))``: car's lmer objective maximised on [lo, hi], with the
bounded inference every other model uses.

Reference values: tests/reference/lmer_bounds_reference.R (lme4 1.1-31; car has no bounds
for lmer models, so the script maximises car's own objective with optimize() on [lo, hi],
tol 1e-10, every refit tightly converged) and its JSON, which carries each case's data.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs

REF = json.loads((Path(__file__).parents[1] / "reference"
                  / "lmer_bounds_reference.json").read_text())
CASES = {c["name"]: c for c in REF["cases"]}


def _frame(case):
    data = dict(case["data"])
    levels = data.pop("_levels")
    df = pd.DataFrame(data)
    for col, lev in (levels or {}).items():
        df[col] = pd.Categorical(df[col], categories=lev)
    return df


@pytest.fixture(scope="module")
def fits():
    cache = {}

    def get(name):
        if name not in cache:
            c = CASES[name]
            cache[name] = bcs.lmer(c["formula"], _frame(c), REML=c["REML"],
                                   bounds=(c["lo"], c["hi"]))
        return cache[name]

    return get


@pytest.mark.parametrize("name", list(CASES))
def test_bounded_lmer_equals_a_tight_bounded_optimum_of_cars_objective(name, fits):
    case = CASES[name]
    m = fits(name)
    p = m.power
    assert m.converged
    if case["at_bound"]:
        assert m.lmbda == case["lambda"]  # the bound itself
        assert np.isnan(p.bse.iloc[0])  # no observed information at a bound
        assert bool(p.bound_active)
    else:
        # R's optimize on likelihood values resolves lambda to about sqrt(eps |llf| / curv)
        assert m.lmbda == pytest.approx(case["lambda"], abs=1e-6)
        assert p.bse.iloc[0] == pytest.approx(case["bse"], rel=5e-5)  # Ridders, measured 2e-5
    # the unconstrained maximum, reported in the summary's note (optimize, tol 1e-10)
    assert p.lmbda_free[0] == pytest.approx(case["free"], abs=1e-6)
    # log-likelihoods: lmer refits with bobyqa's rhoend 1e-12 (as tests/mixed/test_lmer.py)
    assert m.llf == pytest.approx(case["llf"], abs=1e-8)
    # interval ends: the bound, or uniroot (tol 1e-12) on refitted objective values, whose
    # slope there is about 1 (measured within 6e-14)
    lo, hi = p.conf_int().iloc[0]
    assert (lo, hi) == pytest.approx((case["lower"], case["upper"]), abs=1e-9)
    for v, key in ((0.0, "lr0"), (1.0, "lr1")):
        if case[key] is None:
            with pytest.raises(bcs.BoxCoxError, match="outside the bounds"):
                p.test(v)
        else:
            assert p.test(v).statistic == pytest.approx(case[key], abs=1e-7)


def test_summary_says_when_lambda_is_at_a_bound(fits):
    text = str(fits("sleepstudy_intercept_ml_lower").summary())
    assert "Bound active: lambda is the lower bound of [-0.5, 1]" in text
    assert "-0.970293" in text  # the unconstrained maximum
    inactive = fits("sleepstudy_intercept_ml_inactive").summary()
    assert "bounds inactive" in str(inactive)
    assert "No LR test of lambda = 1: outside the bounds" in str(inactive)
    inactive._repr_html_()
    inactive.as_latex()


def test_bounded_lmer_survives_json_and_refits_at_the_bound(fits):
    m = fits("dyestuff_reml_upper")
    back = type(m).from_json(m.to_json())
    assert back.power.bounds.tolist() == [[-1.0, 1.0]]
    assert back.power.conf_int().equals(m.power.conf_int())
    assert str(back.summary()) == str(m.summary())
    # at the bound the model is the fit at that fixed power
    fixed = m.at(1.0)
    assert fixed.llf == pytest.approx(m.llf, abs=1e-9)
    assert fixed.params.to_numpy() == pytest.approx(m.params.to_numpy(), rel=1e-9)


def test_wide_bounds_change_nothing(fits):
    case = CASES["sleepstudy_intercept_ml_inactive"]
    free = bcs.lmer(case["formula"], _frame(case), REML=case["REML"])
    m = fits("sleepstudy_intercept_ml_inactive")
    assert m.lmbda == free.lmbda
    assert m.power.conf_int().iloc[0].tolist() == pytest.approx(
        free.power.conf_int().iloc[0].tolist(), abs=1e-9)  # two root searches, 1e-12 each


def test_bad_bounds_are_refused():
    case = CASES["dyestuff_reml_upper"]
    df = _frame(case)
    with pytest.raises(bcs.BoxCoxError, match="lower end must be below"):
        bcs.lmer(case["formula"], df, bounds=(1, 0))
    with pytest.raises(bcs.BoxCoxError, match="nothing to bound"):
        bcs.lmer(case["formula"], df, lmbda=0.5, bounds=(0, 1))
    with pytest.raises(bcs.BoxCoxError, match="pair of numbers"):
        bcs.lmer(case["formula"], df, bounds="0,1")
