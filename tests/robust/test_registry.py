"""The estimator registry: one declaration of every method's options and defaults."""

from __future__ import annotations

import numpy as np
import pytest

import boxcoxstat as bcs
from boxcoxstat.core.profile import SampleProfile
from boxcoxstat.core.solve import solve
from boxcoxstat.robust.registry import METHODS, Spec, lambdas, parse_spec, parse_specs


def test_defaults_are_cellwise_2_5_3():
    # RewML_SPEC section 0 and 3: quant 0.99, nbsteps 2, range [-4, 6], tol 2**-13, c 0.5
    o = parse_spec("rewml").options
    assert (o["quant"], o["nbsteps"], o["lmbda_range"], o["tol"], o["c"]) == \
        (0.99, 2, (-4.0, 6.0), 2.0**-13, 0.5)
    assert o["prestandardize"] == "cellwise" and o["rectified"] is True
    assert parse_spec("mtl").options["h"] == 0.95  # the paper's MTL95 by default


def test_each_method_takes_its_own_options():
    assert set(METHODS["mle"].options) == set()
    assert "h" in METHODS["mtl"].options and "h" not in METHODS["rewml"].options
    assert "nbsteps" in METHODS["rewml"].options and "nbsteps" not in METHODS["carroll"].options
    common = {"lmbda_range", "expand", "max_expand", "tol", "prestandardize", "quant", "c"}
    for m in ("rewml", "carroll", "mtl"):
        assert common <= set(METHODS[m].options)


def test_labels_name_the_options_given():
    assert parse_spec("rewml").label == "rewml"
    assert parse_spec(("mtl", {"h": 0.9})).label == "mtl(h=0.9)"
    assert parse_spec("rewml", rectified=False).label == "rewml(rectified=False)"
    # the full option set still carries every default
    assert parse_spec(("mtl", {"h": 0.9})).options["grid"] == 201
    # caller defaults (prestandardize="none" in the curves) do not change the label
    spec = parse_spec("rewml").with_defaults(prestandardize="none")
    assert spec.label == "rewml" and spec.options["prestandardize"] == "none"
    assert parse_spec("mle").with_defaults(prestandardize="none").options == {}
    given = parse_spec("rewml", prestandardize="paper").with_defaults(prestandardize="none")
    assert given.options["prestandardize"] == "paper"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("huber", r"unknown method 'huber'; use one of \['mle', 'rewml', 'carroll', 'mtl'\]"),
        (("mtl", {"k": 3}), r"does not take option\(s\) \['k'\]; its options are \[.*'h'"),
        (("mle", {"tol": 1e-3}), r"method='mle' takes no options"),
        (("mtl", {"h": 0.4}), r"h must lie in \(0.5, 1\]"),
        (("mtl", {"h": "0.9"}), r"h must be a number"),
        (("rewml", {"quant": 1.0}), r"quant must lie in \(0, 1\)"),
        (("rewml", {"nbsteps": 0}), r"nbsteps must be an integer >= 1"),
        (("rewml", {"nbsteps": 1.5}), r"nbsteps must be an integer >= 1"),
        (("rewml", {"rectified": "no"}), r"rectified must be True or False"),
        (("rewml", {"prestandardize": "mad"}), r"prestandardize='mad' is not valid"),
        (("carroll", {"lmbda_range": (1, 6)}), r"lmbda_range must be finite and contain 1"),
        (("carroll", {"lmbda_range": 3}), r"lmbda_range must be a pair"),
        (("rewml", {"tol": -1}), r"tol must lie in \(0, inf\)"),
        (42, r"an estimator is a method name or a \(method, \{options\}\) pair"),
    ],
)
def test_bad_specs_name_the_problem(spec, message):
    with pytest.raises(bcs.BoxCoxError, match=message):
        parse_spec(spec)


def test_spec_lists():
    specs = parse_specs(["mle", ("mtl", {"h": 0.9}), ("mtl", {"h": 0.85})])
    assert [s.label for s in specs] == ["mle", "mtl(h=0.9)", "mtl(h=0.85)"]
    assert [s.label for s in parse_specs(("mtl", {"h": 0.9}))] == ["mtl(h=0.9)"]
    assert isinstance(parse_specs("rewml", nbsteps=3)[0], Spec)
    with pytest.raises(bcs.BoxCoxError, match="more than once"):
        parse_specs(["rewml", ("rewml", {})])
    with pytest.raises(bcs.BoxCoxError, match="at least one"):
        parse_specs([])
    with pytest.raises(bcs.BoxCoxError, match="single estimator"):
        parse_specs(["mle", "rewml"], nbsteps=3)


def test_the_same_estimator_in_fit_and_lambdas():
    rng = np.random.default_rng(4)
    x = np.exp(rng.standard_normal((60, 3)))
    x[:4, 1] = 200.0
    spec = parse_spec("mtl", h=0.9, prestandardize="none")
    fitted = bcs.fit(x, method="mtl", h=0.9, prestandardize="none").lmbda
    np.testing.assert_array_equal(lambdas(x, "boxcox", spec), fitted)
    # "mle" is the core's exact solve
    np.testing.assert_array_equal(lambdas(x, "boxcox", parse_spec("mle")),
                                  solve(SampleProfile.from_array(x, "boxcox")).lmbda)
