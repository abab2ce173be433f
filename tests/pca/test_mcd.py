"""The reweighted MCD (boxcoxstat.pca.mcd) against robustbase's covMcd.

Reference: ``tests/reference/robpca_reference.json`` (``robpca_reference.R``, R 4.2.2,
robustbase 0.95-0): the consistency and small-sample factors robustbase applied, and the
h-subset of smallest determinant among DetMCD and FastMCD (seeds 1..10) on the classical
scores of the cases.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from boxcoxstat.pca.mcd import h_alpha_n, mcd, mcd_consistency, mcd_small_sample
from boxcoxstat.pca.robpca import class_pc

REF = json.loads((Path(__file__).parent.parent / "reference" / "robpca_reference.json")
                 .read_text())
CASES = {c["label"]: c for c in REF["cases"]}


def synthetic() -> np.ndarray:
    """The synthetic data of robpca_reference.R (scipy's normal quantiles agree with R's to
    an ulp or two)."""
    n = 300
    i = np.arange(1, n + 1)
    t1 = stats.norm.ppf((i - 0.5) / n)
    t2 = np.sin(i)
    z = np.column_stack([3 * t1, t1 + 2 * t2, t1 * t2, 0.1 * np.cos(3 * i),
                         0.05 * np.sin(7 * i)])
    z[:15, 0] += 20
    z[15:25, 3] += 5
    return z


def test_h_alpha_n_is_robustbase():
    # robustbase's integer arithmetic: PcaHubert's h = h.alpha.n(0.75, 11478, kmax = 7)
    # = 8610 on the DPOSS data, and covMcd's own h from alpha = 8610/11478 is 8611
    case = CASES["dposs_transformed"]
    assert h_alpha_n(0.75, 11478, 7) == case["h_robpca"] == 8610
    assert h_alpha_n(8610 / 11478, 11478, 7) == case["quan"] == 8611
    assert h_alpha_n(0.75, 300, 5) == CASES["synthetic_k2"]["h_robpca"]


@pytest.mark.parametrize("label", ["dposs_transformed", "synthetic_k2"])
def test_consistency_factors_are_robustbase(label):
    case = CASES[label]
    n, p, h = case["n"], case["p"], case["h_robpca"]
    alpha = h / n
    quan = case["quan"]
    raw = (mcd_consistency(p, quan / n), mcd_small_sample(p, n, alpha, "raw"))
    # closed forms of chi-square and gamma quantiles and a 2x2 solve: rounding only
    np.testing.assert_allclose(raw, case["mcd_raw_cnp2"], rtol=1e-12)
    assert mcd_small_sample(p, n, alpha, "rew") == pytest.approx(case["mcd_cnp2"][1],
                                                                 rel=1e-12)


def test_finds_the_smallest_determinant_r_found():
    case = CASES["synthetic_k2"]
    x = class_pc(synthetic()).scores
    n, p = x.shape
    alpha = case["h_robpca"] / n
    fit = mcd(x, h_alpha_n(alpha, n, p), alpha)
    np.testing.assert_array_equal(fit.best, np.array(case["mcd_best"]) - 1)
    # log det of a 5 x 5 covariance of 227 rows: rounding only
    assert fit.crit == pytest.approx(case["mcd_crit"], abs=1e-12)
    assert fit.cnp2 == pytest.approx(tuple(case["mcd_cnp2"]), rel=1e-12)
    # the outliers (rows 1-25 of the data) get weight 0 in the reweighting step
    assert fit.weights[:25].sum() == 0


def test_mcd_is_affine_equivariant():
    x = synthetic()[:, :3]
    a = np.array([[2.0, 0.3, 0.0], [0.0, 1.0, -0.5], [0.1, 0.0, 3.0]])
    n = x.shape[0]
    h = h_alpha_n(0.75, n, 3)
    f1, f2 = mcd(x, h, 0.75), mcd(x @ a.T + 5.0, h, 0.75)
    np.testing.assert_array_equal(f1.best, f2.best)
    # the same rows, an affine map of their moments: rounding of a 3 x 3 product
    np.testing.assert_allclose(f2.cov, a @ f1.cov @ a.T, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(f2.center, a @ f1.center + 5.0, rtol=1e-12)
