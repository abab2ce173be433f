"""The response power of a linear model against R (MASS::boxcox, car::powerTransform).

Reference values: tests/reference/mass_lm_reference.R -> mass_lm_reference.json (R 4.2.2,
MASS 7.3-58, car 3.1-1). "tight" values are the R script's own solution of the same profile
likelihood (uniroot on its analytic derivative); MASS's maximum and interval are found there
with optimize/uniroot on MASS's own profile function.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs
from boxcoxstat.core.design import qr_design
from boxcoxstat.core.response import ResponseProfile
from boxcoxstat.core.solve import solve

REFERENCE = Path(__file__).parent.parent / "reference"
REF = json.loads((REFERENCE / "mass_lm_reference.json").read_text())
MODELS = REF["models"]
CASES = [(name, fam) for name, m in MODELS.items() for fam in ("boxcox", "yeojohnson")
         if fam in m]


def _fit(name: str, fam: str) -> bcs.LmResult:
    m = MODELS[name]
    return bcs.lm(m["py_formula"], pd.DataFrame(m["data"]), family=fam, weights=m["weights"])


@pytest.fixture(scope="module")
def fits():
    return {case: _fit(*case) for case in CASES}


@pytest.mark.parametrize("case", CASES, ids=[f"{a}-{b}" for a, b in CASES])
def test_against_tight_r_values(fits, case):
    m, ref = fits[case], MODELS[case[0]][case[1]]["tight"]
    assert m.lmbda == pytest.approx(ref["lambda"], abs=1e-9)
    assert m.power.bse.iloc[0] == pytest.approx(ref["se"], rel=1e-7)
    lo, hi = m.power.conf_int().iloc[0]
    assert lo == pytest.approx(ref["ci_lower"], abs=1e-9)
    assert hi == pytest.approx(ref["ci_upper"], abs=1e-9)
    assert m.power.test(0).statistic == pytest.approx(ref["lr0"], rel=1e-9, abs=1e-9)
    assert m.power.test(1).statistic == pytest.approx(ref["lr1"], rel=1e-9, abs=1e-9)
    w = MODELS[case[0]]["weights"]
    shift = 0.0 if w is None else 0.5 * np.sum(np.log(MODELS[case[0]]["data"][w]))
    assert m.llf == pytest.approx(ref["llf"] + shift, rel=1e-12)


MASS_CASES = [name for name, m in MODELS.items() if "mass" in m.get("boxcox", {})]


@pytest.mark.parametrize("name", MASS_CASES)
def test_against_mass_boxcox(fits, name):
    """Maximum and 95% interval of MASS::boxcox's profile to 1e-6 (R's optimize/uniroot on
    MASS's own profile function), and the profile's shape on MASS's default grid."""
    m, ref = fits[(name, "boxcox")], MODELS[name]["boxcox"]["mass"]
    if name == "cars_no_intercept":
        # MASS rescales y by its geometric mean before transforming; without an intercept
        # that changes the model, so MASS's maximum is not the profile maximum for y.
        assert abs(m.lmbda - ref["lambda"]) > 0.05
        return
    assert m.lmbda == pytest.approx(ref["lambda"], abs=1e-6)
    lo, hi = m.power.conf_int().iloc[0]
    assert lo == pytest.approx(ref["ci_lower"], abs=1e-6)
    assert hi == pytest.approx(ref["ci_upper"], abs=1e-6)
    grid = np.asarray(ref["grid_lambda"])
    prof = m.profile().set_index("lmbda")["llf"]
    ours = prof.reindex(np.round(grid, 10)).to_numpy()
    theirs = np.asarray(ref["grid_loglik"])
    np.testing.assert_allclose(ours - ours[20], theirs - theirs[20], rtol=1e-8, atol=1e-7)


CAR_CASES = [(n, f) for n, f in CASES if "car" in MODELS[n][f]]


@pytest.mark.parametrize("case", CAR_CASES, ids=[f"{a}-{b}" for a, b in CAR_CASES])
def test_against_car_power_transform(fits, case):
    """car's L-BFGS-B stops about 1e-6 short of the optimum: compare to its tolerance."""
    m, ref = fits[case], MODELS[case[0]][case[1]]["car"]
    assert m.lmbda == pytest.approx(ref["lambda"], abs=1e-5)
    assert m.power.bse.iloc[0] == pytest.approx(ref["se"], rel=2e-5)
    assert m.power.test(0).statistic == pytest.approx(ref["lr0"], abs=1e-7)
    assert m.power.test(1).statistic == pytest.approx(ref["lr1"], abs=1e-7)


def test_aliased_column_is_named_and_dropped(fits):
    m = fits[("mtcars_aliased", "boxcox")]
    assert m.aliased == tuple(MODELS["mtcars_aliased"]["aliased"]) == ("I(disp + hp)",)
    assert list(m.params.index) == ["Intercept", "disp", "hp"]
    # the statsmodels refit keeps the formula's full design, as smf.ols does (and warns as
    # smf.ols warns)
    from statsmodels.tools.sm_exceptions import SingularMatrixWarning

    with pytest.warns(SingularMatrixWarning):
        assert list(m.ols.params.index) == ["Intercept", "disp", "hp", "I(disp + hp)"]
    assert "Aliased" in str(m.summary()) and "I(disp + hp)" in str(m.summary())


def test_ols_at_estimate_matches_r_coefficients():
    """At lambda = 1 the OLS is R's lm on y - 1: the slopes equal R's coefficients."""
    m = _fit("mtcars_aliased", "boxcox")
    fit = m.at(1.0)
    ref = np.asarray(MODELS["mtcars_aliased"]["coef"])
    np.testing.assert_allclose(fit.params.to_numpy()[1:], ref[1:], rtol=1e-10)
    assert fit.params.iloc[0] == pytest.approx(ref[0] - 1.0, rel=1e-10)


def test_large_lambda_does_not_overflow():
    """A response so tightly clustered that lambda is in the thousands: the log-scale RSS
    keeps the likelihood finite and the score root is found; it is invariant to rescaling."""
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 1, 60)
    z = 1 + 0.5 * x + 0.05 * rng.standard_normal(60)
    y = (1 + 2000.0 * z) ** (1 / 2000.0)  # Box-Cox inverse at lambda = 2000
    X = np.column_stack([np.ones(60), x])
    sol = solve(ResponseProfile.build(y, qr_design(X)))
    assert sol.converged[0] and 1000 < sol.lmbda[0] < 4000
    sol2 = solve(ResponseProfile.build(7.5 * y, qr_design(X)))
    assert sol2.lmbda[0] == pytest.approx(sol.lmbda[0], rel=1e-8)


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
@pytest.mark.parametrize("intercept", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_profile_matches_the_textbook_formula(family, intercept, weighted):
    """At moderate lambda the naive formula (transform, least squares, log RSS) is accurate;
    the scaled evaluation must agree with it, with and without an intercept, with weights,
    and for Yeo-Johnson responses of both signs."""
    from boxcoxstat.families import transform

    rng = np.random.default_rng(11)
    n = 80
    x = rng.uniform(0, 3, n)
    y = np.exp(0.5 + 0.4 * x + 0.3 * rng.standard_normal(n))
    if family == "yeojohnson":
        y = y - 2.0  # both signs
    X = np.column_stack([np.ones(n), x]) if intercept else np.column_stack([x, x**2])
    w = rng.uniform(0.5, 2.0, n) if weighted else None
    prof = ResponseProfile.build(y, qr_design(X, w), family, w)
    lams = np.array([-1.5, -0.3, 0.0, 0.4, 1.0, 2.0, 2.7])
    got, score = prof.evaluate(lams)
    sw = np.ones(n) if w is None else np.sqrt(w)
    jac = np.sum(np.log(y)) if family == "boxcox" else np.sum(np.sign(y) * np.log1p(np.abs(y)))
    naive = []
    for lam in lams:
        z = transform(y, lam, family)
        beta = np.linalg.lstsq(X * sw[:, None], z * sw, rcond=None)[0]
        rss = np.sum((sw * (z - X @ beta)) ** 2)
        naive.append((1 - lam) * jac + 0.5 * n * np.log(rss / n))
    np.testing.assert_allclose(got, naive, rtol=1e-10)
    h = 1e-6
    fd = (prof.evaluate(lams + h, score=False)[0] - prof.evaluate(lams - h, score=False)[0])
    np.testing.assert_allclose(score, fd / (2 * h), rtol=1e-5, atol=1e-5)


def test_aliased_design_predicts_new_data(fits):
    m = fits[("mtcars_aliased", "boxcox")]
    new = pd.DataFrame(MODELS["mtcars_aliased"]["data"]).iloc[[2, 5, 11]]
    got = m.predict(new, which="transformed")["fit"].to_numpy()
    np.testing.assert_allclose(got, m.fittedvalues.to_numpy()[[2, 5, 11]], rtol=1e-12)


@pytest.mark.parametrize("c", [1e-3, 7.0, 1e5])
def test_boxcox_response_power_is_scale_invariant_with_an_intercept(c):
    """Box & Cox (1964): with an intercept, rescaling y leaves lambda and the interval alone."""
    m = MODELS["chickweight"]
    df = pd.DataFrame(m["data"])
    base = bcs.lm(m["py_formula"], df)
    scaled = bcs.lm(m["py_formula"], df.assign(weight=c * df["weight"]))
    assert scaled.lmbda == pytest.approx(base.lmbda, abs=1e-10)
    np.testing.assert_allclose(scaled.power.conf_int(), base.power.conf_int(), atol=1e-10)


def _forced_cases():
    from tests import mpref

    out = [pytest.param(np.array(r["data"]), r["family"], id=f"table1-{r['data'][-1]}")
           for r in mpref.table1()]
    out.append(pytest.param(mpref.huge_lambda_case(), "boxcox", id="huge"))
    out.append(pytest.param(mpref.huge_lambda_case(), "yeojohnson", id="huge-yj"))
    out.append(pytest.param(-np.random.default_rng(1).lognormal(size=50), "yeojohnson",
                            id="negative-side"))
    rng = np.random.default_rng(5)
    out.append(pytest.param(rng.normal(0.3, 2.0, 80), "yeojohnson", id="mixed-signs"))
    out.append(pytest.param(np.round(rng.normal(0, 3, 60), 1), "yeojohnson", id="mixed-ties"))
    return out


@pytest.mark.parametrize(("x", "family"), _forced_cases())
def test_intercept_only_design_equals_the_sample(x, family):
    """The regression machinery itself (not the delegation of ``~ 1`` to the sample): with an
    intercept-only design its lambda, interval and LR tests equal the sample's. Lambda and the
    ends to 1e-10 relative; an LR statistic is a difference of two NLLs, so it carries their
    absolute rounding (1e-12 of |NLL| as a floor)."""
    from boxcoxstat.core import inference as inf
    from boxcoxstat.core.profile import SampleProfile

    reg = ResponseProfile.build(x, qr_design(np.ones((len(x), 1))), family)
    smp = SampleProfile.from_array(x, family)
    a, b = solve(reg), solve(smp)
    assert a.converged[0] and b.converged[0]
    assert a.lmbda[0] == pytest.approx(b.lmbda[0], rel=1e-10)
    ia = inf.standard_inference(reg, a.lmbda, a.nll)
    ib = inf.standard_inference(smp, b.lmbda, b.nll)
    floor = 1e-12 * max(1.0, abs(b.nll[0]))
    for key in ("lower", "upper"):
        assert ia[key][0] == pytest.approx(ib[key][0], rel=1e-10)
    for key in ("lr0", "lr1"):
        assert ia[key][0] == pytest.approx(ib[key][0], rel=1e-10, abs=floor)


def _extended_profile(y, X, w, lams, family):
    """NLL (constants dropped) and score of the response power in extended precision
    (np.longdouble): the transform and its lambda-derivative from log(b) in long double,
    least squares refined three times on long-double residuals, sums in long double. An
    independent route to the same numbers (no basis, no moments)."""
    ld = np.longdouble
    if family == "boxcox":
        lb, sgn = np.log(y).astype(ld), np.ones(len(y), dtype=ld)
    else:  # one-signed (y >= 0) Yeo-Johnson: b = 1 + y
        lb, sgn = np.log1p(y).astype(ld), np.ones(len(y), dtype=ld)
    sw = np.ones(len(y), dtype=ld) if w is None else np.sqrt(w).astype(ld)
    Xw = X.astype(ld) * sw[:, None]

    def resid(z):
        beta = np.linalg.lstsq(Xw.astype(float), (sw * z).astype(float), rcond=None)[0]
        beta = beta.astype(ld)
        for _ in range(3):
            r = sw * z - Xw @ beta
            beta += np.linalg.lstsq(Xw.astype(float), r.astype(float), rcond=None)[0]
        return sw * z - Xw @ beta

    jac = np.sum(sgn * lb)
    n = len(y)
    val, score = [], []
    for lam in lams:
        a = ld(lam) * lb
        if lam == 0:
            z, zd = lb, lb * lb / 2
        else:
            z = np.expm1(a) / ld(lam)
            zd = (a * np.exp(a) - np.expm1(a)) / ld(lam) ** 2
        r, rd = resid(z), resid(zd)
        rr = np.sum(r * r)
        val.append((1 - ld(lam)) * jac + ld(n) / 2 * np.log(rr / n))
        score.append(-jac + n * np.sum(r * rd) / rr)
    return np.array(val), np.array(score)


@pytest.mark.parametrize(("family", "weighted", "strong"), [
    ("boxcox", False, False), ("boxcox", True, False), ("boxcox", False, True),
    ("yeojohnson", False, False), ("yeojohnson", True, True)])
def test_long_response_sums_against_extended_precision(family, weighted, strong):
    """A long response (beyond design.LONG_ROWS rows) is evaluated from row blocks' sums
    (``response.residual_sums``: no residual vectors). Its NLL and score against a
    long-double computation of the textbook formula: the NLL to 4e-15 of its size (the
    residual vectors of the previous evaluation erred 1e-14 here), the score to 1e-11 of
    the scale ``n``; ``strong`` predictors (R^2 near 0.99) take the second, corrected pass."""
    from boxcoxstat.core.design import LONG_ROWS

    rng = np.random.default_rng(17)
    n = LONG_ROWS + 4_000
    x = rng.normal(size=(n, 3))
    eta = 0.2 * x @ np.array([0.5, -0.3, 0.8]) * (12.0 if strong else 1.0)
    y = np.exp(0.5 + eta + rng.normal(0, 0.3, n))
    if family == "yeojohnson":
        y = y - y.min() * 0.5  # one-signed, b = 1 + y
    X = np.column_stack([np.ones(n), x])
    w = rng.uniform(0.5, 2.0, n) if weighted else None
    prof = ResponseProfile.build(y, qr_design(X, w), family, w)
    lams = np.array([-0.6, 0.0, 0.004, 0.5, 1.3])
    got, score = prof.evaluate(lams)
    ref_val, ref_score = _extended_profile(y, X, w, lams, family)
    err = np.abs((got - ref_val).astype(float))
    assert np.all(err <= 4e-15 * np.abs(ref_val.astype(float))), err
    np.testing.assert_allclose(score, ref_score.astype(float), rtol=0, atol=1e-11 * n)
