"""boxcoxstat.univariate.results (``PowerTransformResult``): the report, immutability, JSON,
and refusals of its methods (profile, transform, conf_int)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs
from boxcoxstat import BoxCoxError


def test_summary_reports_everything(frame):
    r = bcs.fit(frame)
    text = str(r.summary())
    for token in ("lambda", "std err", "[0.025", "0.975]", "rounded", "LR(l=0)", "LR(l=1)",
                  "llf", "boxcox", "a", "b"):
        assert token in text
    assert f"{r.lmbda['a']:.4f}" in text
    html = r.summary()._repr_html_()
    assert html.count("<table") == 3
    from html.parser import HTMLParser

    HTMLParser().feed(html)


def test_result_is_immutable(frame):
    r = bcs.fit(frame["a"])
    with pytest.raises(AttributeError):
        r._lmbda_used = np.array([1.0])


def test_json_round_trip(frame):
    r = bcs.fit(frame, family="yeojohnson")
    r2 = bcs.PowerTransformResult.from_json(r.to_json())
    pd.testing.assert_series_equal(r2.lmbda, r.lmbda)
    pd.testing.assert_frame_equal(r2.transform(frame), r.transform(frame))
    pd.testing.assert_frame_equal(r2.conf_int(), r.conf_int())
    assert str(r2.summary()) == str(r.summary())
    with pytest.raises(BoxCoxError, match="not available: the result holds no data"):
        r2.conf_int(alpha=0.1)
    json.loads(r.to_json())


def test_unknown_column_and_wrong_shapes(frame):
    r = bcs.fit(frame)
    with pytest.raises(BoxCoxError, match="pass column="):
        r.profile()
    with pytest.raises(BoxCoxError, match="unknown column"):
        r.profile("zzz")
    with pytest.raises(BoxCoxError, match="lack column"):
        r.transform(frame[["a"]])
    with pytest.raises(BoxCoxError, match="interval"):
        r.conf_int(interval="bootstrap")
    with pytest.raises(BoxCoxError, match="alpha"):
        r.conf_int(alpha=1.5)


def test_rounded_power_by_rule_car_is_cars_rounded_pwr():
    # issue 27: car's rule on offer; powerTransform(trees$Girth) prints Rounded Pwr 1, while
    # the profile rule (rounded) gives -1/3 (car_rounding_reference.R)
    import json
    from pathlib import Path

    ref = json.loads((Path(__file__).parents[1] / "reference" / "car_rounding_reference.json")
                     .read_text())["cases"]["girth"]
    r = bcs.fit(bcs.datasets.load("trees")["Girth"])
    assert r.bse.iloc[0] == pytest.approx(ref["se"], rel=1e-3)  # car's numerical Hessian
    assert r.rounded_power(rule="car") == ref["rounded_pwr"]
    assert r.rounded_power() == r.rounded == pytest.approx(-1 / 3)
    assert "rounded_power(rule='car')" in str(r.summary())
    with pytest.raises(bcs.BoxCoxError, match="rule='nearest' is not valid"):
        r.rounded_power(rule="nearest")


def test_pvalues_and_cov_params_from_cars_standard_errors():
    # statsmodels' meaning: pvalues the two-sided Wald p-value of params = 0, cov_params the
    # covariance; the reference z and p are computed here with scipy from car's lambda and
    # se (car_rounding_reference.R, powerTransform(trees$Girth)); 1e-6: on this column car's
    # lambda and se agree with ours to 1e-8 (its numerical Hessian allows 1e-3 in general)
    import json
    from pathlib import Path

    from scipy import stats

    ref = json.loads((Path(__file__).parents[1] / "reference" / "car_rounding_reference.json")
                     .read_text())["cases"]["girth"]
    r = bcs.fit(bcs.datasets.load("trees")["Girth"])
    z = ref["lambda"] / ref["se"]
    want = 2.0 * stats.norm.sf(abs(z))
    assert isinstance(r.pvalues, pd.Series) and list(r.pvalues.index) == list(r.bse.index)
    assert r.pvalues.iloc[0] == pytest.approx(want, rel=1e-6)
    cov = r.cov_params()
    assert list(cov.index) == list(cov.columns) == list(r.params.index)
    assert cov.iloc[0, 0] == pytest.approx(ref["se"] ** 2, rel=1e-6)


def test_cov_params_of_independent_columns_is_diagonal(frame):
    r = bcs.fit(frame)
    cov = r.cov_params()
    bse = r.bse.to_numpy()
    # exact: the same numbers squared, zeros off the diagonal (columns fitted separately)
    np.testing.assert_array_equal(cov.to_numpy(), np.diag(bse**2))
    from scipy import stats

    np.testing.assert_allclose(r.pvalues.to_numpy(),
                               2 * stats.norm.sf(np.abs(r.params.to_numpy() / bse)),
                               rtol=1e-14)  # the same formula, float rounding only


def test_pvalues_and_cov_params_refuse_a_fixed_power(frame):
    fixed = bcs.fit(frame, lmbda=0)
    for name in ("pvalues", "cov_params"):
        with pytest.raises(BoxCoxError, match=f"PowerTransformResult.{name} is not available: "
                                              "the power was fixed"):
            attr = getattr(fixed, name)
            attr() if callable(attr) else None


_BCN_COV = json.loads((Path(__file__).parents[1] / "reference" / "bcnpower_cov_reference.json")
                      .read_text())
_TOOLBOX = json.loads((Path(__file__).parents[1] / "reference" / "car_toolbox_reference.json")
                      .read_text())["bcnpower"]


def test_bcnpower_cov_params_is_cars_inverse_information():
    # bcnpower_cov_reference.R: the inverse of the observed information of car's own
    # log-likelihood at its maximum (optimHess, steps 1e-4); 1e-5 relative as the standard
    # errors in tests/core/test_shifted.py (R's central differences of a numerical gradient)
    y = pd.Series(_TOOLBOX["mroz_lwg"]["y"], name="lwg")
    r = bcs.fit(y, family="bcnpower")
    cov = r.cov_params()
    assert list(cov.index) == list(cov.columns) == ["lwg", "lwg:gamma"]
    np.testing.assert_allclose(cov.to_numpy(), np.array(_BCN_COV["mroz_lwg"]["cov"]),
                               rtol=1e-5)
    # the same through a JSON document; a version-1 document (no covariance) refuses
    back = bcs.PowerTransformResult.from_json(r.to_json())
    pd.testing.assert_frame_equal(back.cov_params(), cov)
    doc = json.loads(r.to_json())
    old = {**{k: v for k, v in doc.items() if k != "gamma_cov"}, "version": 1}
    with pytest.raises(BoxCoxError, match="cov_params is not available: the result was saved "
                                          "before"):
        bcs.PowerTransformResult.from_json(old).cov_params()


def test_bcnpower_cov_params_of_lm_is_cars_inverse_information():
    # the response of lm(lwg ~ k5 + wc + hc + age, Mroz) (bcnpower_cov_reference.R); 1e-5
    # as above
    data = pd.DataFrame(_TOOLBOX["mroz_lwg_lm"]["data"])
    m = bcs.lm("lwg ~ k5 + wc + hc + age", data, family="bcnpower")
    cov = m.power.cov_params()
    np.testing.assert_allclose(cov.to_numpy(), np.array(_BCN_COV["mroz_lwg_lm"]["cov"]),
                               rtol=1e-5)


def test_aic_and_bic_count_the_parameters_compare_counts(frame):
    # AIC = -2 llf + 2k and BIC = -2 llf + k log n (Akaike 1974, Schwarz 1978); k as
    # bcs.compare counts it: mean, variance, lambda
    r = bcs.fit(frame["a"])
    assert r.aic == pytest.approx(-2 * r.llf + 2 * 3, rel=1e-14)
    assert r.bic == pytest.approx(-2 * r.llf + 3 * np.log(r.nobs), rel=1e-14)
    fixed = r.at(0)
    assert fixed.aic == pytest.approx(-2 * fixed.llf + 2 * 2, rel=1e-14)


_VOCABULARY_KEPT = {"lmbda", "params", "bse", "pvalues", "conf_int", "cov_params", "test", "llf",
                    "nobs", "aic", "bic", "summary", "to_json", "from_json", "transform",
                    "inverse_transform", "plot_profile", "qqplot", "profile", "rounded",
                    "rounded_power", "at", "safe", "converged", "n_missing", "gamma", "family",
                    "names", "fixed", "bound_active", "federated", "df_model_llf"}
_STORAGE = {"lmbda_used", "lmbda_mle", "lmbda_free", "llf_values", "nll_mle", "nobs_values",
            "converged_values", "safe_values", "safe_lr", "safe_used", "gamma_values",
            "gamma_bse", "gamma_status", "gamma_min", "lambda_limits", "family_reasons",
            "requested_family", "layout", "families", "column_index", "json_version", "data",
            "weights", "profile_", "profiles_", "fitted_", "stored", "data_range",
            "case_weights", "ymax", "bounds", "weighted", "model"}


def test_a_fit_result_shows_its_vocabulary_not_its_storage():
    # issue 28: 61 public names on d03779f (storage beside the vocabulary); at most 32 now
    r = bcs.fit(bcs.datasets.load("topgear")[["MPG", "Weight"]])
    public = {n for n in dir(r) if not n.startswith("_")}
    assert len(public) <= 32, sorted(public)
    assert public == _VOCABULARY_KEPT
    assert not public & _STORAGE


def test_every_model_builds_its_power_result_through_one_constructor():
    """Issue 28: ``lm`` built its power's result by hand with 16 keywords and placeholder
    arrays (as did lmer, the regressor, fixed powers). Every model now calls
    ``PowerTransformResult._build``; the class itself is called only there."""
    import ast
    from pathlib import Path

    root = Path(bcs.__file__).parent
    calls = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id in ("PowerTransformResult", "RobustTransformResult"):
                calls.append((str(path.relative_to(root)), node.func.id))
    assert calls == [("robust/model.py", "RobustTransformResult")]  # its one model
    builders = sorted({str(p.relative_to(root)) for p in root.rglob("*.py")
                       if "PowerTransformResult._build(" in p.read_text()})
    assert builders == ["mixed/model.py", "regression/model.py", "sklearn/regressor.py",
                        "univariate/model.py"]
    # fits that never pooled their data (federated sites, Dask and Spark partitions): one
    # builder too
    tables = sorted({str(p.relative_to(root)) for p in root.rglob("*.py")
                     if "PowerTransformResult._from_table(" in p.read_text()})
    assert tables == ["federated/daskfit.py", "federated/model.py", "federated/sparkfit.py"]
