"""``fit_joint(..., bounds=)``: the joint maximum on a box and intervals measured from it,
against R (tests/reference/weights_bounds_compare_reference.R: optim L-BFGS-B, uniroot)."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs

REF = json.loads((Path(__file__).resolve().parents[1] / "reference"
                  / "weights_bounds_compare_reference.json").read_text())


def _trees():
    ref = REF["joint"]["trees_bounded"]
    n = len(ref["Y"]) // 2
    Y = np.array(ref["Y"]).reshape(-1, n).T  # R writes a matrix column by column
    return ref, pd.DataFrame(Y, columns=["Volume", "Girth"])


def test_joint_bounds_equal_r():
    ref, df = _trees()
    box = np.column_stack([ref["lo"], ref["hi"]])
    r = bcs.fit_joint(df, bounds=box)
    # R's L-BFGS-B (factr 1, pgtol 0) and the inner maximisations: lambda and the interval
    # ends to about 1e-7; the maximum's value is flat there: llf to 1e-9
    assert r.lmbda.to_numpy() == pytest.approx(ref["lambda"], abs=1e-6)
    assert r.llf == pytest.approx(ref["llf"], abs=1e-9)
    assert r.lmbda_free == pytest.approx(ref["free"], abs=1e-6)
    ci = r.conf_int()
    assert ci["lower"].to_numpy() == pytest.approx(ref["lower"], abs=1e-6)
    assert ci["upper"].to_numpy() == pytest.approx(ref["upper"], abs=1e-6)
    assert r.lmbda["Volume"] == 0.2 and np.isnan(r.bse["Volume"])
    assert np.isfinite(r.bse["Girth"])
    text = str(r.summary())
    assert "bound active for Volume" in text
    with pytest.raises(bcs.BoxCoxError, match="outside the bounds"):
        r.test(0)
    assert r.test([0.5, 0.5]).statistic > 0
    back = bcs.JointTransformResult.from_json(r.to_json())
    assert str(back.summary()) == text


def test_one_column_bounded_is_the_bounded_fit():
    _, df = _trees()
    one = bcs.fit_joint(df, ["Volume"], bounds=(0.2, 2))
    f = bcs.fit(df["Volume"], bounds=(0.2, 2))
    assert one.lmbda.iloc[0] == f.lmbda == 0.2
    assert one.conf_int().to_numpy() == pytest.approx(f.conf_int().to_numpy(), abs=1e-9)


@pytest.mark.slow  # about 9 s: every profile value of the interval is an inner L-BFGS-B
def test_inactive_bounds_give_the_free_fit():
    _, df = _trees()
    free = bcs.fit_joint(df)
    wide = bcs.fit_joint(df, bounds=(-5, 5))
    assert wide.lmbda.to_numpy() == pytest.approx(free.lmbda.to_numpy(), abs=0)
    assert wide.conf_int().to_numpy() == pytest.approx(free.conf_int().to_numpy(), abs=1e-6)


@pytest.mark.parametrize("kw, message", [
    ({"bounds": (2, 1)}, "lower end must be below"),
    ({"bounds": [[0, 1]]}, "one pair per column"),
    ({"bounds": (0, 1), "family": "bcnpower"}, "bcnpower"),
])
def test_bad_joint_bounds(kw, message):
    _, df = _trees()
    with pytest.raises(bcs.BoxCoxError, match=message):
        bcs.fit_joint(df, **kw)
