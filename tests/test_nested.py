"""Models that are special cases of each other give the same numbers (issue: one core).

A sample is a regression on ``~ 1``, a one-column joint fit, a federated fit split across
sites and a Dask fit split across partitions: ``bcs.fit(x)``, ``bcs.lm("y ~ 1")``,
``bcs.fit_joint(one column)``, ``bcs.federated.fit(split)``, ``bcs.fit(dask array)`` and
scikit-learn's drop-in ``bcs.PowerTransformer`` (its ``result_``) must
give the same lambda, 95% profile interval and likelihood-ratio tests at 0 and 1. And a
regression with a real design is the joint fit of one column with that design.

Cases: the 12 adversarial rows of Xu & Cormode (2025, Table 1), the unstable real features of
that paper (Table 3), 500 x 2.0 + 3 x 2.0000001 (lambda* = -3.35e9), the paper's Figure 5
data, Yeo-Johnson data of order 1e-100 (lambda near 1e100), and hypothesis-generated
samples. When a path is added to the package, add it here.

Tolerance. Lambda and the interval's ends agree to 1e-10 relative, or near 0 to 1e-10 of the
interval's width (the score's rounding fixes lambda to a fraction of its uncertainty, not of
its size). An LR statistic is a
difference of two log-likelihoods and carries their absolute rounding (a few units in the
last place of |llf|), so a statistic near 0 is compared with that absolute floor
(``1e-12 * max(1, |llf|)``) next to the 1e-10 relative bound.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import dask
import dask.array as da
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import boxcoxstat as bcs
from tests import mpref

REL = 1e-10


def _cases():
    out = []
    for r in mpref.table1():
        out.append(pytest.param(np.array(r["data"]), r["family"],
                                id=f"table1-{r['family']}-{r['data'][-1]}"))
    for name, col, arr, fams in mpref.unstable_features():
        for f in fams:
            out.append(pytest.param(arr, f, id=f"{name}-{col}-{f}",
                                    marks=mpref.data_marks(name)))
    out.append(pytest.param(mpref.huge_lambda_case(), "boxcox", id="500x2.0+3x2.0000001"))
    out.append(pytest.param(mpref.tight_gaussian_case(), "boxcox", id="figure5-tight"))
    # Yeo-Johnson on a tiny scale: every path works in lambda times a unit (lambda ~ 1e100)
    tiny = np.random.default_rng(3).normal(0.2, 1.0, size=40) * 1e-100
    out.append(pytest.param(tiny, "yeojohnson", id="yeojohnson-1e-100"))
    return out


def _numbers(lmbda, ci, t0, t1, llf):
    return {"lmbda": float(lmbda), "lower": float(ci["lower"].iloc[0]),
            "upper": float(ci["upper"].iloc[0]), "lr0": float(np.ravel(t0.statistic)[0]),
            "lr1": float(np.ravel(t1.statistic)[0]), "llf": float(np.ravel(llf)[0])}


def _of_fit(r):
    return _numbers(np.ravel(r.lmbda)[0], r.conf_int(), r.test(0), r.test(1),
                    np.ravel(r.llf)[0])


def _paths(x, family):
    """The same numbers along every path that reduces to the sample."""
    frame = pd.DataFrame({"y": x})
    m = bcs.lm("y ~ 1", frame, family=family)
    j = bcs.fit_joint(frame, ["y"], family=family)
    sites = np.array_split(x, min(7, max(2, len(x) // 2)))
    with dask.config.set(scheduler="synchronous"):
        dk = bcs.fit(da.from_array(x, chunks=max(2, len(x) // 5)), family=family)
    pt = bcs.PowerTransformer("box-cox" if family == "boxcox" else "yeo-johnson",
                              standardize=False, ymax=None).fit(x[:, None])
    return {
        "lm ~ 1": _numbers(m.lmbda, m.power.conf_int(), m.power.test(0), m.power.test(1),
                           m.llf),
        "PowerTransformer": _of_fit(pt.result_),
        "fit_joint one column": _numbers(j.lmbda.iloc[0], j.conf_int(interval="profile"),
                                         j.test(0), j.test(1), j.llf),
        "federated": _of_fit(bcs.federated.fit(sites, family=family)),
        "dask": _of_fit(dk),
    }


def _assert_same(path, got, want):
    floor = 1e-12 * max(1.0, abs(want["llf"]))
    # lambda is fixed by the score's rounding to a tiny fraction of its interval's width, not
    # of its own size: near 0 (hypothesis: [17.5, 17.75, 10, 10], lambda -0.005, width 9)
    # two exact paths differ by 1.5e-12, 3e-10 relative; 1e-10 of the width bounds that
    width = 1e-10 * (want["upper"] - want["lower"])
    for key in ("lmbda", "lower", "upper"):
        assert got[key] == pytest.approx(want[key], rel=REL, abs=width), f"{path}: {key}"
    assert got["llf"] == pytest.approx(want["llf"], rel=REL), f"{path}: llf"
    for key in ("lr0", "lr1"):
        assert got[key] == pytest.approx(want[key], rel=REL, abs=floor), f"{path}: {key}"


@pytest.mark.parametrize(("x", "family"), _cases())
def test_sample_paths_agree_on_hard_data(x, family):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # the package's deliberate message that the exact power destroys these data in
        # float64 (tests/univariate/test_resolution.py); any other warning is an error
        warnings.simplefilter("ignore", bcs.ResolutionWarning)
        want = _of_fit(bcs.fit(x, family=family))
        for path, got in _paths(x, family).items():
            _assert_same(path, got, want)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.lists(st.floats(-50.0, 50.0, allow_nan=False, allow_infinity=False).filter(
        lambda v: abs(v) > 1e-6), min_size=4, max_size=40),
    family=st.sampled_from(["boxcox", "yeojohnson"]),
    positive=st.booleans(),
)
@example(data=[17.5, 17.75, 10.0, 10.0], family="boxcox", positive=True)  # lambda near 0
def test_sample_paths_agree_on_generated_samples(data, family, positive):
    x = np.abs(np.array(data)) if positive or family == "boxcox" else np.array(data)
    try:
        want = _of_fit(bcs.fit(x, family=family))
    except bcs.BoxCoxError:  # too few distinct values, constant data: refused alike below
        with pytest.raises(bcs.BoxCoxError):
            bcs.lm("y ~ 1", pd.DataFrame({"y": x}), family=family)
        return
    for path, got in _paths(x, family).items():
        _assert_same(path, got, want)


@pytest.mark.parametrize(("family", "scale"), [("boxcox", 1.0), ("yeojohnson", 1.0),
                                               ("yeojohnson", 1e-100)])
def test_regression_is_the_one_column_joint_fit_with_its_design(family, scale):
    """``lm("y ~ x + C(g)")``, ``fit_joint(df, ["y"], design="~ x + C(g)")`` and
    ``BoxCoxRegressor`` on the same design (Yeo-Johnson also on a scale of 1e-100, where
    every path works in lambda times a unit)."""
    rng = np.random.default_rng(8)
    n = 120
    df = pd.DataFrame({"x": rng.uniform(0, 2, n), "g": rng.choice(["a", "b", "c"], n)})
    df["y"] = scale * np.exp(0.5 + 0.7 * df["x"] + 0.3 * (df["g"] == "b")
                             + 0.25 * rng.standard_normal(n))
    m = bcs.lm("y ~ x + C(g)", df, family=family)
    j = bcs.fit_joint(df, ["y"], family=family, design="~ x + C(g)")
    want = _numbers(m.lmbda, m.power.conf_int(), m.power.test(0), m.power.test(1), m.llf)
    got = _numbers(j.lmbda.iloc[0], j.conf_int(interval="profile"), j.test(0), j.test(1),
                   j.llf)
    _assert_same("fit_joint with the design", got, want)
    X = pd.get_dummies(df[["x", "g"]], drop_first=True, dtype=float)
    reg = bcs.BoxCoxRegressor(family=family).fit(X, df["y"])
    got = _numbers(reg.lmbda_, reg.power_.conf_int(), reg.power_.test(0), reg.power_.test(1),
                   reg.power_.llf)
    _assert_same("BoxCoxRegressor with the design", got, want)


def test_bcnpower_paths_agree():
    """bcnPower: ``fit``, ``lm("y ~ 1")`` and a one-column ``fit_joint`` are one computation
    (the shifted profile on the intercept-only design), and a regression is the one-column
    joint fit with its design; gamma and its SE agree too."""
    ref = json.loads((Path(__file__).parent / "reference" / "car_toolbox_reference.json")
                     .read_text())["bcnpower"]["mroz_lwg_lm"]["data"]
    df = pd.DataFrame({"y": ref["lwg"], "x": ref["age"]})  # Mroz: gamma inside its bounds
    f = bcs.fit(df["y"], family="bcnpower")
    assert f._gamma_status == ("estimated",)
    m = bcs.lm("y ~ 1", df, family="bcnpower")
    j = bcs.fit_joint(df, ["y"], family="bcnpower")
    want = _of_fit(f)
    for path, got, gam in (
        ("lm ~ 1", _numbers(m.lmbda, m.power.conf_int(), m.power.test(0), m.power.test(1),
                            m.llf), m.power.gamma),
        ("fit_joint", _numbers(j.lmbda.iloc[0], j.conf_int(), j.test(0), j.test(1), j.llf),
         j.gamma.iloc[0]),
    ):
        _assert_same(path, got, want)
        assert gam == pytest.approx(f.gamma, rel=REL)
    assert j.bse.iloc[1] == pytest.approx(f.bse.iloc[1], rel=1e-8)  # gamma's SE
    m2 = bcs.lm("y ~ x", df, family="bcnpower")
    j2 = bcs.fit_joint(df, ["y"], family="bcnpower", design="~ x")
    _assert_same("fit_joint ~ x", _numbers(j2.lmbda.iloc[0], j2.conf_int(), j2.test(0),
                                           j2.test(1), j2.llf),
                 _numbers(m2.lmbda, m2.power.conf_int(), m2.power.test(0), m2.power.test(1),
                          m2.llf))


@pytest.mark.parametrize(("x", "family"), _cases()[:6] + _cases()[-2:])
def test_fixed_powers_agree_on_every_path(x, family):
    """A fixed power is a setting of the result, not a new model: ``fit(x, lmbda=l)``,
    ``fit(x).at(l)``, ``lm("y ~ 1", lmbda=l)``, ``lm("y ~ 1").at(l)`` and ``bc(y, lmbda=l)``
    on the left give the same log-likelihood, and each equals the estimated fit's profile at
    ``l`` (the LR statistic of ``l`` is twice the difference)."""
    frame = pd.DataFrame({"y": x})
    est = bcs.fit(x, family=family)
    for lam in (0.0, 1.0, float(np.ravel(est.lmbda)[0]) * 0.5):
        want = float(np.ravel(bcs.fit(x, family=family, lmbda=lam).llf)[0])
        fam = "bc" if family == "boxcox" else "yj"
        got = {
            "fit().at": float(np.ravel(est.at(lam).llf)[0]),
            "lm lmbda=": bcs.lm("y ~ 1", frame, family=family, lmbda=lam).llf,
            "lm().at": bcs.lm("y ~ 1", frame, family=family).at(lam).llf,
            "bc(y, lmbda=) ~ 1": bcs.lm(f"{fam}(y, lmbda={lam!r}) ~ 1", frame).llf,
        }
        floor = 1e-12 * max(1.0, abs(want))
        for path, value in got.items():
            assert value == pytest.approx(want, rel=REL, abs=floor), path
        lr = float(np.ravel(est.test(lam).statistic)[0])
        assert 2 * (float(np.ravel(est.llf)[0]) - want) == pytest.approx(lr, rel=1e-8,
                                                                        abs=1e3 * floor)


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_mixed_model_with_zero_random_variance_is_lm(family):
    """``lmer("y ~ x + (1 | g)")`` where every group holds the same (x, y) pairs: the groups'
    mean residuals are equal at every lambda, so the random intercepts' variance is 0 (at
    lme4's bound) and the ML profile is ``lm``'s, value for value. The REML profile is
    ``(n - p)/n`` times ``lm``'s plus a constant: the same lambda, LR statistics scaled by
    ``(n - p)/n``."""
    rng = np.random.default_rng(21)
    x = rng.uniform(0, 2, 9)
    y = np.exp(0.3 + 0.8 * x + 0.3 * rng.standard_normal(9))
    if family == "yeojohnson":
        y = y - 1.5
    df = pd.DataFrame({"y": np.tile(y, 5), "x": np.tile(x, 5),
                       "g": np.repeat(list("abcde"), 9)})
    m = bcs.lm("y ~ x", df, family=family)
    want = _numbers(m.lmbda, m.power.conf_int(), m.power.test(0), m.power.test(1), m.llf)
    ml = bcs.lmer("y ~ x + (1 | g)", df, family=family, REML=False)
    assert ml.variance_components["vcov"].iloc[0] == 0.0
    got = _numbers(ml.lmbda, ml.power.conf_int(), ml.power.test(0), ml.power.test(1), ml.llf)
    _assert_same("lmer (ML) with zero random variance", got, want)
    assert ml.power.bse.iloc[0] == pytest.approx(m.power.bse.iloc[0], rel=1e-8)
    pd.testing.assert_series_equal(ml.params, m.params, rtol=1e-10)
    reml = bcs.lmer("y ~ x + (1 | g)", df, family=family)
    frac = (len(df) - 2) / len(df)
    assert reml.lmbda == pytest.approx(m.lmbda, rel=REL)
    for lam0 in (0, 1):
        assert reml.power.test(lam0).statistic == pytest.approx(
            frac * m.power.test(lam0).statistic, rel=REL, abs=1e-12 * abs(m.llf))
