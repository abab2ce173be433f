"""boxcoxstat.lmer: car::powerTransform of lme4::lmer models, the fit at the power, reports,
predictions, JSON and bad input.

Reference values: tests/reference/lmer_reference.R (car 3.1-1, lme4 1.1-31) and its JSON,
which also carries each case's data (lme4's sleepstudy, Dyestuff, Penicillin, Pastes; MASS's
oats; nlme's Orthodont, Oxboys, Machines and ergoStool; lme4's cake).
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs
from boxcoxstat import BoxCoxError
from boxcoxstat.families import inverse_transform
from boxcoxstat.mixed.formula import split_random

REF = json.loads((Path(__file__).parents[1] / "reference" / "lmer_reference.json").read_text())
CASES = {c["name"]: c for c in REF["cases"]}
SLOW = {"sleepstudy_slope_reml", "sleepstudy_uncorrelated_reml", "penicillin_crossed_reml",
        "pastes_nested_reml", "oxboys_slope_ml", "machines_nested_reml",
        "sleepstudy_yj_slope_ml"}
# car's se is optimHess's second difference (step 1e-3) of its objective; on Oxboys at
# lambda = -2.7 that objective carries car's bcPower rounding (y^lambda ~ 1e-6: ~2e-7 in the
# log-likelihood), which moves the difference by 3% (the tight R curvature agrees to 2e-5);
# on cake (crossed, ML) the difference of car's default-tolerance lmer refits is 1% off
# (the tight R curvature agrees to 1e-7)
CAR_BSE_RTOL = {"oxboys_slope_ml": 0.05, "cake_crossed_ml": 0.02}


def _frame(case):
    data = dict(case["data"])
    levels = data.pop("_levels")
    df = pd.DataFrame(data)
    for col, lev in (levels or {}).items():
        df[col] = pd.Categorical(df[col], categories=lev)
    return df


def _fit(case):
    formula = case["formula"]
    if case["family"] == "yjPower":
        lhs, rhs = formula.split("~", 1)
        formula = f"yj({lhs.strip()}) ~{rhs}"
    return bcs.lmer(formula, _frame(case), REML=case["REML"])


def _r_name(name):
    """patsy's coefficient name in R's spelling: Intercept -> (Intercept), A[T.b] -> Ab."""
    if name == "Intercept":
        return "(Intercept)"
    return re.sub(r"^(.*)\[T\.(.*)\]$", r"\1\2", name)


@pytest.fixture(scope="module")
def fits():
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = _fit(CASES[name])
        return cache[name]

    return get


def _params():
    return [pytest.param(n, marks=pytest.mark.slow if n in SLOW else ()) for n in CASES]


@pytest.mark.parametrize("name", _params())
def test_power_equals_car(name, fits):
    case = CASES[name]
    m = fits(name)
    car = case["car"]
    # car maximises with optimize's default tolerance (eps^0.25, about 1.2e-4)
    assert m.lmbda == pytest.approx(car["lmbda"], abs=2.5e-4)
    # car's se is optimHess's finite difference (step 1e-3) at its own lambda
    assert m.power.bse.iloc[0] == pytest.approx(car["bse"], rel=CAR_BSE_RTOL.get(name, 2e-3))
    assert m.power.rounded_power(rule="car") == car["rounded"]
    # car's maximum lies below the optimum by curvature x (its lambda error)^2 (< 2e-8 here)
    # and its values are default-tolerance lmer refits (up to 1.1e-6 below the optimum in
    # theta, on cake): LR statistics and llf agree to measured 2.2e-6
    assert m.power.test(0).statistic == pytest.approx(car["lr0"], abs=5e-6)
    assert m.power.test(1).statistic == pytest.approx(car["lr1"], abs=5e-6)
    assert m.llf == pytest.approx(car["llf"], abs=5e-6)
    # never below car's maximum, up to the rounding of car's objective (2e-7 on Oxboys)
    assert m.llf >= car["llf"] - 1e-6


@pytest.mark.parametrize("name", _params())
def test_power_equals_a_tight_optimum_of_cars_objective(name, fits):
    tight = CASES[name]["tight"]
    m = fits(name)
    assert m.converged and m.nonconverged.size == 0
    # R's optimize on likelihood values resolves lambda to about sqrt(eps |llf| / curvature)
    assert m.lmbda == pytest.approx(tight["lmbda"], abs=1e-6)
    # log-likelihoods: lmer refits with bobyqa's rhoend 1e-12
    assert m.llf == pytest.approx(tight["llf"], abs=1e-8)
    assert m.power.test(0).statistic == pytest.approx(tight["lr0"], abs=1e-7)
    assert m.power.test(1).statistic == pytest.approx(tight["lr1"], abs=1e-7)
    # R's curvature: Ridders' extrapolation of second differences of the refitted objective
    # (measured within 2e-5)
    assert m.power.bse.iloc[0] == pytest.approx(tight["bse"], rel=5e-5)
    # the profile itself at R's lambda, 0 and 1 (no optimiser involved; measured <= 2e-11)
    prof = m.power.profile(lmbda=[tight["lmbda"], 0.0, 1.0])["llf"].to_numpy()
    np.testing.assert_allclose(prof, [tight["llf"], tight["llf0"], tight["llf1"]],
                               rtol=0, atol=1e-9)
    lo, hi = m.power.conf_int().iloc[0]
    assert lo < m.lmbda < hi


@pytest.mark.parametrize("name", _params())
def test_fit_at_the_power_equals_lmer(name, fits):
    """Fixed effects, their standard errors and the variance components at the power equal
    lmer's on the transformed response (R's lambda differs by < 2e-7: rel 1e-5)."""
    tight = CASES[name]["tight"]
    m = fits(name)
    got = {_r_name(k): v for k, v in m.params.items()}
    got_se = {_r_name(k): v for k, v in m.bse.items()}
    assert set(got) == set(tight["fixef"])
    for k, v in tight["fixef"].items():
        assert got[k] == pytest.approx(v, rel=1e-5, abs=1e-9)
        assert got_se[k] == pytest.approx(tight["fixef_se"][k], rel=1e-5)
    assert m.scale == pytest.approx(tight["sigma2"], rel=1e-5)
    want = np.sort(np.asarray(tight["varcorr"]["vcov"]))
    got_vc = np.sort(m.variance_components["vcov"].to_numpy())
    assert got_vc == pytest.approx(want, rel=1e-5, abs=1e-9 * want.max())


@pytest.mark.parametrize("name", ["sleepstudy_intercept_ml", "oats_nested_ml",
                                  "orthodont_yj_reml", "dyestuff_reml"])
def test_predictions_equal_lmer_back_transformed(name, fits):
    """lme4's predict on the transformed scale (with random effects, a new level at the
    population level; and re.form = NA), back-transformed at R's lambda (rel 1e-5: lambdas
    differ by < 1e-7)."""
    case = CASES[name]
    tight = case["tight"]
    m = fits(name)
    df = _frame(case)
    new = df.iloc[tight["new_rows"]].copy()
    col = tight["new_level_column"]
    new[col] = new[col].astype(str)
    new.iloc[-1, new.columns.get_loc(col)] = "new-level"
    fam = "yeojohnson" if case["family"] == "yjPower" else "boxcox"
    want_re = inverse_transform(np.array(tight["pred_re"]), tight["lmbda"], fam)
    want_pop = inverse_transform(np.array(tight["pred_pop"]), tight["lmbda"], fam)
    got = m.predict(new)
    assert list(got.index) == list(new.index)
    np.testing.assert_allclose(got.to_numpy(), want_re, rtol=1e-5)
    np.testing.assert_allclose(m.predict(new, random=False).to_numpy(), want_pop, rtol=1e-5)


def test_fixed_power_equals_cars_objective_at_that_power(fits):
    case = CASES["oats_nested_ml"]
    m0 = fits("oats_nested_ml").at(0)
    assert m0.power.fixed and m0.lmbda == 0.0
    assert m0.llf == pytest.approx(case["tight"]["llf0"], abs=1e-8)  # lmer refit, rhoend 1e-12
    m1 = bcs.lmer(case["formula"], _frame(case), REML=False, lmbda=1)
    assert m1.llf == pytest.approx(case["tight"]["llf1"], abs=1e-8)
    assert m1.df_model_llf == 4 + 2 + 1  # fixed effects, two variances, residual variance
    assert fits("oats_nested_ml").df_model_llf == 4 + 2 + 1 + 1  # and lambda


def test_json_round_trip_keeps_the_report_and_predictions(fits):
    m = fits("orthodont_yj_reml")
    doc = m.to_json()
    back = bcs.LmerResult.from_json(doc)
    assert back.lmbda == m.lmbda and back.llf == m.llf
    pd.testing.assert_frame_equal(back.coefficients, m.coefficients)
    pd.testing.assert_frame_equal(back.variance_components, m.variance_components)
    new = _frame(CASES["orthodont_yj_reml"]).iloc[:5]
    pd.testing.assert_series_equal(back.predict(new), m.predict(new))
    assert str(back.summary()) == str(m.summary())
    assert back.power.conf_int().equals(m.power.conf_int())
    with pytest.raises(BoxCoxError, match="loaded from JSON"):
        back.at(0)


@pytest.mark.parametrize("field", ["ranef", "variance_components", "theta", "reml"])
def test_a_tampered_document_is_refused_by_field(fits, field):
    doc = json.loads(fits("dyestuff_reml").to_json())
    body = doc["fields"] if "fields" in doc else doc
    body[field] = {"__import__": "os"} if field != "theta" else ["nan"]
    with pytest.raises(BoxCoxError, match=field):
        bcs.LmerResult.from_json(json.dumps(doc))


def test_pickle_round_trip_predicts_and_refits(fits):
    import pickle

    m = fits("orthodont_yj_reml")
    back = pickle.loads(pickle.dumps(m))
    new = _frame(CASES["orthodont_yj_reml"]).iloc[:5]
    pd.testing.assert_series_equal(back.predict(new), m.predict(new))
    assert back.at(1).llf == pytest.approx(CASES["orthodont_yj_reml"]["tight"]["llf1"],
                                           abs=1e-8)  # lmer refit, rhoend 1e-12


def test_summary_renders_and_names_the_parts(fits):
    m = fits("dyestuff_reml")
    text = str(m.summary())
    for part in ("Response power", "Likelihood-ratio tests", "Fixed effects",
                 "Variance components", "REML", "Batch"):
        assert part in text
    assert "<table" in m.summary().as_html()
    assert "tabular" in m.summary().as_latex()
    assert "LmerResult" in repr(m)
    re_ = m.random_effects()
    assert list(re_) == ["(1 | Batch)"] and re_["(1 | Batch)"].shape == (6, 1)
    assert m.conf_int().shape == (1, 2) and m.pvalues.iloc[0] < 1e-10


def test_nonconverged_random_effect_fits_are_reported(monkeypatch):
    """A theta fit that misses its tolerance is reported (warning, field, summary), not
    smoothed over."""
    import boxcoxstat.mixed.profile as mp

    monkeypatch.setattr(mp, "CONVERGED_GRAD", -1.0)  # every fit now counts as failed
    case = CASES["dyestuff_reml"]
    with pytest.warns(RuntimeWarning, match="did not converge"):
        m = bcs.lmer(case["formula"], _frame(case))
    assert m.nonconverged.size > 0 and not m.converged
    assert "did not converge" in str(m.summary())


# ---------------------------------------------------------------------- formulas
@pytest.mark.parametrize(("formula", "fixed", "labels"), [
    ("y ~ x + (1 | g)", "y ~ x", ["(1 | g)"]),
    ("y ~ (1 + x | g) + x", "y ~ x", ["(1 + x | g)"]),
    ("y ~ x + (x || g)", "y ~ x", ["(1 | g)", "(0 + x | g)"]),
    ("y ~ x + (0 + x || g)", "y ~ x", ["(0 + x | g)"]),
    ("y ~ 1 + (1 | a/b/c)", "y ~ 1", ["(1 | a)", "(1 | a:b)", "(1 | a:b:c)"]),
    ("y ~ (1 | a) + (1 | b)", "y ~ 1", ["(1 | a)", "(1 | b)"]),
    ("np.log(y) ~ np.log(x) + (1 | a:b)", "np.log(y) ~ np.log(x)", ["(1 | a:b)"]),
])
def test_random_terms_are_read_as_lme4_reads_them(formula, fixed, labels):
    got_fixed, terms = split_random(formula)
    assert got_fixed == fixed and [t.label for t in terms] == labels


def _toy(seed=2, groups=6, per=5):
    rng = np.random.default_rng(seed)
    g = np.repeat([f"g{k}" for k in range(groups)], per)
    x = np.tile(np.linspace(0, 1, per), groups)
    eff = rng.normal(scale=0.3, size=groups)[np.repeat(np.arange(groups), per)]
    y = np.exp(1 + x + eff + rng.normal(scale=0.2, size=groups * per))
    return pd.DataFrame({"y": y, "x": x, "g": g})


@pytest.mark.parametrize(("formula", "match"), [
    ("y ~ x", "no random-effect term.*bcs.lm"),
    ("y ~ x + (1 | np.log(g))", "grouping factor must be data columns"),
    ("y ~ x + (1 | h)", "'h'.*not a column"),
    ("y ~ x + (1 | one)", "'one'.*one level"),
    ("y ~ x + (1 | row)", "'row'.*levels for 30 observations"),
    ("y ~ x + (1 | g", "unbalanced parentheses"),
])
def test_bad_random_effects_are_refused_by_name(formula, match):
    df = _toy()
    df["one"] = "a"
    df["row"] = np.arange(len(df))
    with pytest.raises(BoxCoxError, match=match):
        bcs.lmer(formula, df)


def test_bad_options_are_refused():
    df = _toy()
    with pytest.raises(BoxCoxError, match="fixed response power is not available with "
                       "family='bcnpower'"):
        bcs.lmer("y ~ x + (1 | g)", df, family="bcnpower", lmbda=0.5)
    with pytest.raises(BoxCoxError, match="REML"):
        bcs.lmer("y ~ x + (1 | g)", df, REML="yes")
    bad = df.assign(y=df["y"] - df["y"].median())
    with pytest.raises(BoxCoxError, match="'y'"):
        bcs.lmer("y ~ x + (1 | g)", bad)


def test_missing_grouping_values_are_dropped_or_refused_and_data_untouched():
    df = _toy()
    df.loc[3, "g"] = None
    before = df.copy()
    m = bcs.lmer("y ~ x + (1 | g)", df)
    assert m.n_dropped == 1 and m.nobs == len(df) - 1
    pd.testing.assert_frame_equal(df, before)
    with pytest.raises(BoxCoxError, match="missing values.*row 3"):
        bcs.lmer("y ~ x + (1 | g)", df, missing="raise")


def test_lm_points_random_effects_at_lmer():
    with pytest.raises(BoxCoxError, match="bcs.lmer"):
        bcs.lm("y ~ x + (1 | g)", _toy())


def test_a_fit_is_quiet_and_recovers_the_log():
    """Simulated on the log scale: the 95% interval holds 0 and car's rounding gives it."""
    rng = np.random.default_rng(11)
    g = np.repeat(np.arange(20), 10)
    x = rng.uniform(0, 2, 200)
    y = np.exp(1 + 0.5 * x + rng.normal(scale=0.4, size=20)[g] + rng.normal(scale=0.2,
                                                                             size=200))
    df = pd.DataFrame({"y": y, "x": x, "g": g})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = bcs.lmer("y ~ x + (1 | g)", df, REML=False)
    lo, hi = m.power.conf_int().iloc[0]
    assert lo < 0 < hi and m.power.rounded == 0.0
