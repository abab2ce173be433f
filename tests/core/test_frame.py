"""The global frame of a sample held in pieces (``core/frame.py``): references, the merged
NLL from pieces against mpmath's NLL of the pooled values."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from boxcoxstat.core.frame import (
    SampleFrame,
    global_nll_score,
    local_sides,
    reference,
    tree_merge,
)
from boxcoxstat.exceptions import BoxCoxError


def test_reference_is_the_geometric_midpoint_of_the_bases():
    # exact arithmetic: sqrt(2 * 8) = 4; sqrt((1 + 0)(1 + 3)) - 1 = 1; -(sqrt((1 + 3)(1 + 0)) - 1)
    assert reference(2.0, 8.0, "bc") == pytest.approx(4.0, rel=1e-15)  # one exp/log round
    assert reference(0.0, 3.0, "pos") == pytest.approx(1.0, rel=1e-15)
    assert reference(-3.0, 0.0, "neg") == pytest.approx(-1.0, rel=1e-15)


def _mp_nll(x: np.ndarray, lam: float, family: str) -> float:
    """The profile NLL, constants dropped, in 50 digits: (1 - lambda) sum log x + n/2 log
    sigma^2 (Box-Cox); Yeo-Johnson's Jacobian sum sign(x) log(1 + |x|)."""
    mp.mp.dps = 50
    lam_ = mp.mpf(lam)
    vals, jac = [], mp.mpf(0)
    for v in map(mp.mpf, x.tolist()):
        if family == "boxcox":
            vals.append((v**lam_ - 1) / lam_)
            jac += mp.log(v)
        elif v >= 0:
            vals.append(((1 + v) ** lam_ - 1) / lam_)
            jac += mp.log(1 + v)
        else:
            vals.append(-((1 - v) ** (2 - lam_) - 1) / (2 - lam_))
            jac -= mp.log(1 - v)
    n = len(vals)
    mean = sum(vals) / n
    var = sum((v - mean) ** 2 for v in vals) / n
    return float((1 - lam_) * jac + mp.mpf(n) / 2 * mp.log(var))


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_pieces_merged_give_the_pooled_nll(family):
    rng = np.random.default_rng(31)
    x = rng.lognormal(size=90) if family == "boxcox" else rng.normal(0.5, 2.0, 90)
    pieces = np.array_split(x, [10, 45])
    frame = SampleFrame.from_ranges(family, rng_of(x[x >= 0]), rng_of(x[x < 0]))
    lam = np.array([-0.7, 0.4, 1.3])
    sp, sn = frame.shifts(lam)
    parts = [frame.moments(local_sides(p, frame), lam, sp, sn, True) for p in pieces]
    pos = tree_merge([p[0] for p in parts if p[0] is not None])
    neg = tree_merge([p[1] for p in parts if p[1] is not None])
    val, _ = global_nll_score(pos, neg, lam, frame.unit)
    want = [_mp_nll(x, float(v), family) for v in lam]
    np.testing.assert_allclose(val, want, rtol=1e-12)  # a few roundings in the merge


def test_nothing_to_merge_is_none_and_a_non_finite_nll_is_refused():
    assert tree_merge([]) is None
    x = np.full(5, 2.0)  # constant: sigma^2 = 0, log 0
    frame = SampleFrame.from_ranges("boxcox", (2.0, 2.0), None)
    lam = np.array([0.5])
    pm, _ = frame.moments(local_sides(x, frame), lam, *frame.shifts(lam), True)
    with pytest.raises(BoxCoxError, match="non-finite NLL"):
        global_nll_score(pm, None, lam, frame.unit)


def rng_of(v: np.ndarray) -> tuple[float, float] | None:
    """The (min, max) of ``v``, or None when empty."""
    return (float(v.min()), float(v.max())) if v.size else None
