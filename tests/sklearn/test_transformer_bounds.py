"""``PowerTransformer(bounds=(lo, hi))``: each feature's profile maximum on the interval, the
same numbers as ``bcs.fit(bounds=)`` and R (tests/reference/weights_bounds_compare_reference.R)."""

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sklearn")

import boxcoxstat as bcs  # noqa: E402
from boxcoxstat import PowerTransformer  # noqa: E402

REF = json.loads((Path(__file__).resolve().parents[1] / "reference"
                  / "weights_bounds_compare_reference.json").read_text())["bounded"]


@pytest.mark.parametrize("case", ["trees_volume_above", "trees_volume_below",
                                  "trees_volume_inactive"])
def test_bounds_equal_r(case):
    ref = REF[case]
    X = np.array(ref["y"])[:, None]
    pt = PowerTransformer("box-cox", bounds=(ref["lo"], ref["hi"])).fit(X)
    assert pt.lambdas_[0] == pytest.approx(ref["lambda"], abs=1e-10)  # R: uniroot, 1e-15
    lo, hi = pt.result_.conf_int().iloc[0]
    assert (lo, hi) == pytest.approx((ref["lower"], ref["upper"]), abs=1e-10)


def test_bounds_match_fit_and_survive_json():
    X = np.random.default_rng(3).lognormal(size=(80, 3))
    pt = PowerTransformer("box-cox", bounds=(0.5, 2)).fit(X)
    r = bcs.fit(X, bounds=(0.5, 2))
    assert pt.lambdas_ == pytest.approx(np.asarray(r.lmbda), abs=0)  # one computation
    back = PowerTransformer.from_json(pt.to_json())
    assert back.bounds == (0.5, 2.0)
    assert back.transform(X) == pytest.approx(pt.transform(X), rel=1e-15)
    assert str(back.result_.summary()) == str(pt.result_.summary())


def test_bounds_with_sample_weight_and_yeojohnson():
    X = np.random.default_rng(4).normal(size=(60, 2))
    w = np.random.default_rng(5).uniform(0.5, 2, 60)
    free = PowerTransformer().fit(X, sample_weight=w)
    lo = float(free.lambdas_.max()) + 0.3
    pt = PowerTransformer(bounds=(lo, lo + 1)).fit(X, sample_weight=w)
    assert pt.lambdas_ == pytest.approx([lo, lo])  # both free powers lie below the interval
    assert bool(np.all(pt.result_.bound_active))


@pytest.mark.parametrize("kw, message", [
    ({"bounds": (2, 1)}, "lower end must be below"),
    ({"bounds": (0, 1), "estimator": "rewml"}, "estimator='mle'"),
    ({"bounds": (0, 1), "lmbda": "safe"}, "estimator='mle'"),
])
def test_bad_bounds(kw, message):
    X = np.random.default_rng(3).lognormal(size=(30, 2))
    with pytest.raises(bcs.BoxCoxError, match=message):
        PowerTransformer(**kw).fit(X)
