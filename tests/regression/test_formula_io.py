"""boxcoxstat.regression.formula_io: a formula's learned design as JSON and back."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import patsy
import pytest

import boxcoxstat as bcs
from boxcoxstat import BoxCoxError, bc, yj  # noqa: F401  (found by the formulas below)
from boxcoxstat.regression.formula import term_inference
from boxcoxstat.regression.formula_io import design_document, design_from_document

K = 3.0  # a plain number from the caller's scope, saved by value


@pytest.fixture(scope="module")
def trees():
    df = bcs.datasets.load("trees")
    return df.assign(g=np.where(df["Height"] > 75, "tall", "short"))


FORMULAS = [
    "Volume ~ bc(Girth) + C(g) * center(Height) + np.log(Height)",
    "Volume ~ yj(Height - 70) + bs(Girth, df=4) + standardize(Girth) + I(Height / K)",
    "Volume ~ bc(Girth, lmbda=0.5) + C(g, Sum) + cr(Height, df=3) - 1",
]


@pytest.mark.parametrize("formula", FORMULAS)
def test_a_loaded_design_builds_the_same_matrix_for_new_data(trees, formula):
    """Every learned state (powers, levels, contrasts, means, spline knots, scope values)
    survives strict JSON: new data give the identical design matrix."""
    _, x = patsy.dmatrices(formula, trees, return_type="dataframe")
    doc = json.loads(json.dumps(design_document(x.design_info), allow_nan=False))
    back = design_from_document(doc)
    new = trees.sample(12, random_state=3)[["g", "Girth", "Height"]]
    (a,) = patsy.build_design_matrices([x.design_info], new, return_type="dataframe")
    (b,) = patsy.build_design_matrices([back], new, return_type="dataframe")
    pd.testing.assert_frame_equal(a, b, rtol=0, atol=0)
    pd.testing.assert_frame_equal(term_inference(x.design_info), term_inference(back))


def test_names_outside_the_grammar_are_not_saved(trees):
    def double(v):
        return 2 * v

    _, x = patsy.dmatrices("Volume ~ double(Girth)", trees)
    with pytest.raises(BoxCoxError, match=r"'double\(Girth\)', which is to be saved, calls "
                                          r"'double'.*cannot be saved"):
        design_document(x.design_info)


def test_a_document_cannot_name_code_to_run(trees):
    """The saved design holds a term's text, its plain values and its transforms' numbers:
    code in the text, an object in a value, or a transform that the text does not call are
    refused before anything is built (the hostile-document suite tries many more)."""
    _, x = patsy.dmatrices("Volume ~ np.log(Girth) + center(Height)", trees)
    good = design_document(x.design_info)
    for path, value, message in [
        (("factors", 0, "code"), "__import__('os').system('true')", r"calls .*__import__"),
        (("factors", 0, "code"), "np.log(Girth).__class__", "Attribute"),
        (("factors", 0, "values"), {"Girth": {"object": "subprocess:run"}}, "plain numbers"),
        (("factors", 1, "transforms"), [{"function": "bs", "state": {}}], "states of"),
        (("factors", 1, "transforms", 0, "state", "_count"), "1", "whole number"),
    ]:
        doc = json.loads(json.dumps(good))
        node = doc
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        with pytest.raises(BoxCoxError, match=message):
            design_from_document(doc)


def test_a_malformed_design_in_a_saved_model_names_the_field(trees):
    m = bcs.lm("Volume ~ bc(Girth)", trees)
    doc = json.loads(m.to_json())
    doc["design_info"]["terms"][1]["factors"] = [7]
    with pytest.raises(BoxCoxError, match="field 'design_info': design_info.terms.1. must be a "
                                          "factor's position"):
        bcs.LmResult.from_json(doc)
