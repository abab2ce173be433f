"""R's random numbers (boxcoxstat.robust._rrng) against R itself.

Reference: R 4.2.2, ``set.seed(0); print(runif(5), digits = 17)`` and ``set.seed(123)``;
the subsample positions are checked against cellWise's estLocScale in test_estimators.py
(``cellwise_subsample_reference.json``).
"""

from __future__ import annotations

import numpy as np

from boxcoxstat.robust._rrng import r_sample_no_replace, r_uniforms


def test_runif_after_set_seed_is_r():
    # exact: the same 32-bit words scaled by 2**-32
    want0 = [0.89669720013625920, 0.26550866314209998, 0.37212389963679016,
             0.57285336335189641, 0.90820778999477625]
    assert r_uniforms(5).tolist() == want0
    want123 = [0.28757752012461424, 0.78830513544380665, 0.40897692181169987]
    assert r_uniforms(3, seed=123).tolist() == want123
    # the 625th draw comes from the second block of 624 words
    assert 0 < r_uniforms(700)[-1] < 1


def test_sample_no_replace_is_a_permutation_prefix():
    idx = r_sample_no_replace(1000, 999)
    assert len(set(idx.tolist())) == 999 and idx.min() >= 0 and idx.max() < 1000
    assert not idx.flags.writeable
    np.testing.assert_array_equal(r_sample_no_replace(10, 3), [8, 2, 9])
