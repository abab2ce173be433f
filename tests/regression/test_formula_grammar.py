"""boxcoxstat.regression.formula_grammar and the formula functions R users write.

References: ``formula_reference.R`` (R 4.2's ``poly``, ``predict.poly``, ``lm`` with ``log``,
``exp``, ``sqrt`` and ``poly``, and the tight maximum of ``MASS::boxcox``'s own profile of a
model with ``poly``), and car's ``boxTidwell`` example with ``other.x = ~ type + poly(women,
2)`` (``car_toolbox_reference.R``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs
from boxcoxstat.regression.formula_grammar import check_formula, check_term

REF_DIR = Path(__file__).parents[1] / "reference"
REF = json.loads((REF_DIR / "formula_reference.json").read_text())
BT = json.loads((REF_DIR / "car_toolbox_reference.json").read_text())["box_tidwell"]


@pytest.fixture(scope="module")
def trees():
    return bcs.datasets.load("trees")


def _new():
    return pd.DataFrame(REF["newdata"])


def test_poly_is_rs_orthogonal_basis_and_predicts_with_the_training_coefs():
    """poly(x, 3) equals R's columns, its coefs (alpha, norm2) and predict(poly, newx).
    Tolerance 1e-12: R uses a QR, we the three-term recurrence; both round differently."""
    from boxcoxstat.regression.formula import _PolyTerm

    case = REF["poly"]
    term = _PolyTerm()
    term.memorize_chunk(np.array(case["x"]), case["degree"])
    term.memorize_finish()
    np.testing.assert_allclose(term.alpha, case["alpha"], rtol=1e-12)
    np.testing.assert_allclose(term.norm2, case["norm2"], rtol=1e-12)
    basis = term.transform(np.array(case["x"]), case["degree"])
    np.testing.assert_allclose(basis, np.array(case["basis"]).T, atol=1e-12)
    new = term.transform(np.array(case["new_x"]), case["degree"])
    np.testing.assert_allclose(new, np.array(case["new_basis"]).T, atol=1e-12)


@pytest.mark.parametrize("key", ["r_names", "sqrt_exp"])
def test_lm_reads_rs_function_names_as_r_does(trees, key):
    """log(), exp(), sqrt() and poly() in a formula, as R's lm: at lambda = 1 the slopes and
    the predictions of new data equal R's (the intercept differs by the Box-Cox -1)."""
    case = REF["lm"][key]
    m = bcs.lm(case["formula"], trees, lmbda=1)
    np.testing.assert_allclose(m.params.to_numpy()[1:], case["coefficients"][1:], rtol=1e-9)
    np.testing.assert_allclose(m.params.iloc[0], case["coefficients"][0] - 1.0, rtol=1e-9)
    pred = m.predict(_new())
    np.testing.assert_allclose(pred["fit"], case["predict_new"], rtol=1e-9)
    back = bcs.LmResult.from_json(m.to_json())  # the saved basis predicts the same
    np.testing.assert_allclose(back.predict(_new())["fit"], pred["fit"], rtol=0, atol=0)


def test_lm_with_poly_finds_mass_boxcox_lambda(trees):
    """MASS::boxcox's profile maximum for a model with poly(); optimize(tol=1e-12) on a
    smooth curve resolves lambda to about 1e-7."""
    case = REF["boxcox_poly"]
    m = bcs.lm(case["formula"], trees)
    assert m.lmbda == pytest.approx(case["lambda"], abs=1e-6)


def test_box_tidwell_takes_poly_in_other_as_car_does():
    """car's own example: boxTidwell(prestige ~ income + education, ~ type + poly(women, 2))."""
    case = BT["prestige_other"]
    r = bcs.box_tidwell("prestige ~ income + education", pd.DataFrame(case["data"]),
                        "~ type + poly(women, 2)")
    np.testing.assert_allclose(r.lmbda, case["tight"]["lambda_with_poly"], atol=1e-6)


def test_random_effect_bars_are_refused_not_read_as_bitwise_or():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.uniform(1, 2, 40), "g": np.repeat([1, 2, 3, 4], 10)})
    df["y"] = np.exp(df["x"] + 0.1 * rng.standard_normal(40))
    for formula in ("y ~ x + (1 | g)", "y ~ x + (1 + x | g)", "y ~ (x || g)"):
        with pytest.raises(bcs.BoxCoxError, match="random effects.*mixed model"):
            bcs.lm(formula, df)


def test_a_session_variable_named_like_a_column_does_not_block_saving(trees):
    """patsy reads the column (data come first); the saved model reads the column too."""
    Girth = np.ones(3)  # noqa: N806, F841 - found by the formula's environment
    Height = 2.0  # noqa: N806, F841 - a number named like a column
    m = bcs.lm("Volume ~ log(Girth) + Height", trees)
    back = bcs.LmResult.from_json(m.to_json())
    new = trees.iloc[:6]
    np.testing.assert_array_equal(back.predict(new)["fit"], m.predict(new)["fit"])
    np.testing.assert_allclose(m.params["Height"], bcs.lm("Volume ~ log(Girth) + Height",
                                                           trees.copy()).params["Height"])


def test_a_session_number_not_in_the_data_is_saved_by_value(trees):
    K = 3.0  # noqa: N806 - found by the formula's environment
    m = bcs.lm("Volume ~ I(Height / K) + Girth", trees)
    doc = json.loads(m.to_json())
    assert {"K": K} in [f["values"] for f in doc["design_info"]["factors"]]
    back = bcs.LmResult.from_json(doc)
    np.testing.assert_array_equal(back.predict(trees)["fit"], m.predict(trees)["fit"])


@pytest.mark.parametrize("code", [
    "np.log(x)", "numpy.exp(x)", "log(x) * 2 - sqrt(z) / 3 ** 2", "I(x ** 2)", "C(g)",
    "C(g, Treatment('b'))", "C(g, Sum, levels=['a', 'b'])", "Q('weird name')",
    "bc(x, lmbda=-0.5)", "yj(x - 70)", "poly(x, 2)", "center(x)", "standardize(x)",
    "bs(x, df=4)", "cr(x, df=3)", "x > 2", "-x", "1",
])
def test_the_grammar_accepts_what_formulas_use(code):
    check_term(code)


@pytest.mark.parametrize("code, message", [
    ("__import__('os')", "__import__"),
    ("x.__class__", "Attribute"),
    ("np.ctypeslib.ctypes.CDLL('c')", "np.ctypeslib"),
    ("getattr(x, 'y')", "'getattr'"),
    ("open('f', 'w')", "'open'"),
    ("(lambda: 1)()", "lambda"),
    ("x[0]", "Subscript"),
    ("_x", "starting with '_'"),
    ("bc(x, lmbda=y)", "not a plain number"),
    ("poly(x, 10 ** 400)", "not a plain number"),
    ("poly(x, 1" + "0" * 30 + ")", "beyond float64"),
    ("C(g, os.system)", "contrast"),
    ("bc(*x)", r"\* or \*\*"),
    ("x | g", "random effects"),
    ("np.log(" * 60 + "x" + ")" * 60, "nests more than"),
    ("x" * 20_000, "over 10000 characters"),
])
def test_the_grammar_refuses_everything_else_naming_the_field(code, message):
    with pytest.raises(bcs.BoxCoxError, match=f"field 'formula'.*{message}"):
        check_term(code)


@pytest.mark.parametrize("formula, message", [
    ("y ~ x + __import__('os').system('true')", "__import__"),
    ("y ~ x; import os", "where the formula should end"),
    ("y ~ (x + z", "not a formula"),
    ("y ~ x ** z", "other than a number"),
    ("y ~ x @ z", "where the formula should end"),
])
def test_a_formula_is_read_by_the_grammar(formula, message):
    with pytest.raises(bcs.BoxCoxError, match=message):
        check_formula(formula)


def test_a_formula_lists_its_factors():
    terms = check_formula("log(y) ~ (a + b):C(g) * poly(x, 2) + I(z ** 2) - 1")
    assert [t.code for t in terms] == ["log(y)", "a", "b", "C(g)", "poly(x, 2)", "I(z ** 2)"]


@pytest.mark.parametrize("loaded", [False, True])
def test_a_term_without_a_value_is_named_not_a_silent_nan(trees, loaded):
    """log() of a negative Height: NaN for that row with one warning naming it and pointing
    at the caller, for the fitted model and for one loaded from JSON (whose interpreter
    must not swallow it); a missing predictor stays NaN in place without a warning."""
    m = bcs.lm("Volume ~ log(Height) + Girth", trees)
    if loaded:
        m = bcs.LmResult.from_json(m.to_json())
    new = trees.iloc[:4].copy()
    new.loc[new.index[1], "Height"] = -5.0
    new.loc[new.index[2], "Girth"] = np.nan
    with pytest.warns(UserWarning, match=r"1 row\(s\) \(1\): a term of the model has no "
                                         r"value") as caught:
        pred = m.predict(new)
    assert len(caught) == 1 and caught[0].filename == __file__
    assert np.isnan(pred["fit"].to_numpy()[[1, 2]]).all()
    assert np.isfinite(pred["fit"].to_numpy()[[0, 3]]).all()
