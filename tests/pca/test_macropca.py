"""MacroPCA (boxcoxstat.pca.macropca, ddc) against cellWise 2.5.3's MacroPCA and DDC.

Reference: ``tests/reference/macropca_reference.json`` (``macropca_reference.R``: R 4.2.2,
cellWise 2.5.3 built from source with svd 0.5.8, rrcov 1.7-2, robustbase 0.95-0), the calls
of the authors' vignette ``transfo_examples.R`` on the DPOSS stars (Raymaekers & Rousseeuw
2021, section 4.3): ``MacroPCA(Y, k = 4)`` of the RewML Yeo-Johnson data and of the raw
variables, and a synthetic set with outlying and missing cells. MacroPCA is deterministic
(DDC, rrcov's direction generator, DetMCD), so the same rows and cells are flagged; the
numbers agree to rounding carried through the iterations. Loadings and scores are compared
up to each component's sign.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import boxcoxstat as bcs
from boxcoxstat.datasets import load
from boxcoxstat.pca.ddc import ddc, loc_scale_1step, unimcd_cw
from boxcoxstat.pca.macropca import macropca
from boxcoxstat.pca.mcd import scale_tau2

REF = json.loads((Path(__file__).parent.parent / "reference" / "macropca_reference.json")
                 .read_text())


def synthetic() -> np.ndarray:
    """The synthetic data of macropca_reference.R, rebuilt from its formulas."""
    n = 1200
    i = np.arange(1, n + 1)
    t1 = stats.norm.ppf((i - 0.5) / n)
    t2 = np.sin(1.3 * i)
    z = np.column_stack([t1, t1 + t2, t2 - 0.5 * t1, 2 * t1 - t2, t1 + 0.5 * t2])
    z = z + 0.1 * np.column_stack([np.cos(2 * i), np.sin(3 * i), np.cos(5 * i),
                                   np.sin(7 * i), np.cos(11 * i)])
    z[[4, 16, 32], 1] += 6
    z[[49, 60], 3] -= 7
    z[[7, 89, 139], 0] = np.nan
    z[[11, 149], 2] = np.nan
    z[1198:1200] += 5
    return z


def _cells(mask: np.ndarray) -> list[int]:
    """R's 1-based column-major cell indices of a boolean (n, d) mask."""
    return (np.flatnonzero(mask.T.ravel()) + 1).tolist()


def _compare(fit, case, rtol):
    n = case["n"]
    rows = np.array(case["rows"]) - 1
    assert fit.h == case["h"]
    assert fit.iterations == case["iterations"]
    np.testing.assert_allclose(fit.scale, case["scaleX"], rtol=rtol)
    np.testing.assert_allclose(fit.eigenvalues, case["eigenvalues"], rtol=rtol)
    ref = np.array(case["loadings"]).T
    sign = np.sign((ref * fit.loadings).sum(axis=0))
    np.testing.assert_allclose(fit.loadings * sign, ref, atol=rtol)
    np.testing.assert_allclose(fit.center, case["center"], rtol=rtol)
    np.testing.assert_allclose(fit.score_distances[rows], case["SD_rows"], rtol=rtol)
    np.testing.assert_allclose(fit.orthogonal_distances[rows], case["OD_rows"], rtol=rtol)
    np.testing.assert_allclose(fit.scores[rows] * sign, np.array(case["scores_rows"]).T,
                               rtol=rtol, atol=rtol)
    assert fit.sd_cutoff == pytest.approx(case["cutoffSD"], rel=1e-14)
    assert fit.od_cutoff == pytest.approx(case["cutoffOD"], rel=rtol)
    # the flagged rows and cells: the same sets
    assert (np.flatnonzero(fit.orthogonal_distances > fit.od_cutoff) + 1).tolist() == \
        case["highOD"]
    assert (np.flatnonzero(fit.score_distances > fit.sd_cutoff) + 1).tolist() == \
        case["highSD"]
    assert _cells(fit.flagged_cells) == case["indcells"]
    np.testing.assert_allclose(fit.resid_scale, case["residScale"], rtol=rtol)
    assert _cells(np.isnan(fit.std_resid)) == case["stdResid_missing"]
    np.testing.assert_allclose(np.nan_to_num(fit.std_resid[rows]),
                               np.array(case["stdResid_rows"]).T, rtol=rtol, atol=rtol)
    assert fit.step6 == case["step6_branch"]
    assert fit.score_distances.size == n


def _compare_ddc(d, case, tol=1e-12):
    # DDC has no iterations: on the same input the same arithmetic up to the order of sums
    # (1e-12); on the transformed DPOSS data our input differs from cellWise's Y by about
    # 1e-11, which the standardization carries to ~1e-9 relative in values near 0 (tol 1e-8)
    np.testing.assert_allclose(d.loc, case["ddc_locX"], rtol=tol, atol=tol)
    np.testing.assert_allclose(d.scale, case["ddc_scaleX"], rtol=tol)
    np.testing.assert_allclose(d.robcors, np.array(case["ddc_robcors"])[:, 1:], atol=tol)
    np.testing.assert_allclose(d.robslopes, np.array(case["ddc_robslopes"])[:, 1:], atol=tol)
    assert (d.ngbrs + 1).tolist() == [row[1:] for row in case["ddc_ngbrs"]]
    np.testing.assert_allclose(d.deshrinkage, case["ddc_deshrinkage"], rtol=tol)
    np.testing.assert_allclose(d.scalestres, case["ddc_scalestres"], rtol=tol)
    assert _cells(d.flagged) == case["ddc_indcells"]
    assert (d.flagged_rows + 1).tolist() == case["ddc_indrows"]
    assert (d.med_ti, d.mad_ti) == pytest.approx((case["ddc_medTi"], case["ddc_madTi"]),
                                                 rel=max(tol, 1e-12))
    rows = np.array(case["rows"]) - 1
    np.testing.assert_allclose(d.row_stat[rows], case["ddc_Ti_rows"], rtol=max(tol, 1e-10),
                               atol=tol)
    np.testing.assert_allclose(d.imputed[rows], np.array(case["ddc_Ximp_rows"]).T,
                               rtol=tol, atol=tol)


def test_synthetic_as_cellwise():
    case = REF["synthetic"]
    x = synthetic()
    _compare_ddc(ddc(x), case)
    fit = macropca(x, 2)
    # a 1200 x 5 problem with cells missing: rounding of ~1e-15 carried through 20
    # imputation steps and the C-steps stays below 1e-9
    _compare(fit, case, 1e-9)
    # the planted cells are flagged (0-based rows 4, 16, 32 in column 1; 49, 60 in column 3)
    assert fit.flagged_cells[[4, 16, 32], 1].all() and fit.flagged_cells[[49, 60], 3].all()
    # missing cells have NaN residuals and imputed values in X.NAimp
    assert np.isnan(fit.std_resid[7, 0]) and np.isfinite(fit.na_imputed[7, 0])


@pytest.fixture(scope="module")
def dposs():
    return load("dposs_j").drop(columns="id")


@pytest.fixture(scope="module")
def dposs_y(dposs):
    y = bcs.fit(dposs, family="yeojohnson", method="rewml").standardized
    # our standardized data are cellWise's transfo()$Y (to about 1e-11, test_estimators)
    rows = np.array(REF["transformed"]["rows"]) - 1
    np.testing.assert_allclose(y.to_numpy()[rows], np.array(REF["Y_rows"]).T, rtol=1e-9,
                               atol=1e-9)
    return y


@pytest.mark.slow
def test_dposs_transformed_as_cellwise(dposs_y):
    case = REF["transformed"]
    x = dposs_y.to_numpy()
    _compare_ddc(ddc(x), case, 1e-8)
    # input equal to ~1e-11; the same two iterations, DetMCD subset and flagged sets
    _compare(macropca(x, 4), case, 1e-8)


@pytest.mark.slow
def test_dposs_raw_as_cellwise(dposs):
    case = REF["raw"]
    x = dposs.to_numpy(dtype=float)
    _compare_ddc(ddc(x), case)
    _compare(macropca(x, 4), case, 1e-8)


@pytest.mark.slow
def test_dposs_explained_variance_and_colours(dposs_y):
    res = bcs.robust_pca(dposs_y, 4, method="macropca")
    scree = REF["scree"]["transformed"]
    np.testing.assert_allclose(res.all_eigenvalues, scree["eigenvalues"], rtol=1e-9)
    np.testing.assert_allclose(res.explained_variance_ratio.cumsum(),
                               scree["cumulativeVar"][:4], rtol=1e-9)
    # the vignette's colour groups (rows by score distance of the transformed fit)
    sd = res.score_distances.to_numpy()
    assert (np.flatnonzero(sd > 25) + 1).tolist() == REF["colours"]["red"]
    blue = (np.flatnonzero((sd > 14) & (sd <= 25)) + 1).tolist()
    assert blue == REF["colours"]["blue"]


def test_univariate_estimators_by_hand():
    # cellWise's 1stepM location and scale of 1..9 and 100: median 5.5, MAD 2.5 * 1.4826;
    # biweight weights at |x - 5.5| / (3.7065 * 3 / 1.4826) = |x - 5.5| / 7.5 (0 for 100)
    x = np.r_[np.arange(1.0, 10.0), 100.0]
    u = (x - 5.5) / 7.5
    w = np.maximum(1 - u**2, 0) ** 2
    loc = (w * x).sum() / w.sum()
    r = x - loc
    s0 = 1.482602218505602 * np.median(np.abs(r))
    rho = np.minimum((r / s0) ** 2, (2.5 * stats.norm.ppf(0.75)) ** 2)
    # cellWise divides rho by its constant 1.688942410165249 (LocScaleEstimators.cpp), which
    # is 2 E[min(Z^2, b^2)] to 4e-6 (quadrature below)
    e = 2 * stats.chi2.expect(lambda t: min(t, (2.5 * stats.norm.ppf(0.75)) ** 2), args=(1,))
    assert e == pytest.approx(1.688942410165249, rel=4e-6)
    want = s0 * np.sqrt(rho.sum() / 1.688942410165249 / (0.5 * x.size))
    got = loc_scale_1step(x[:, None])
    assert got[0][0] == pytest.approx(loc, rel=1e-14)
    assert got[1][0] == pytest.approx(want, rel=1e-14)
    # cellWise's univariate MCD (alpha 0.5 of 10: the 5 consecutive values of least
    # variance, 1..5 first of the ties, mean of the tied windows' means)
    loc, scale, w = unimcd_cw(x, 0.5)
    assert w.tolist() == [True] * 9 + [False]
    assert loc == pytest.approx(5.0, rel=1e-14)
    # reweighted SD of 1..9 times cellWise's factors 1.0835 and, for n = 10 < 16, its
    # table value 1.105
    assert scale == pytest.approx(1.105 * 1.0835 * np.std(np.arange(1.0, 10.0), ddof=1),
                                  rel=1e-14)


def test_scale_tau2_by_hand():
    # robustbase's scaleTau2 of 1..9, 100 (c1 = 4.5, c2 = 3, one step, consistency factor)
    x = np.r_[np.arange(1.0, 10.0), 100.0]
    mu0 = np.median(x)
    s0 = np.median(np.abs(x - mu0))
    w = np.maximum(0, 1 - ((x - mu0) / (s0 * 4.5)) ** 2) ** 2
    mu = (w * x).sum() / w.sum()
    rho = np.minimum(((x - mu) / s0) ** 2, 9.0)
    b = 3 * stats.norm.ppf(0.75)
    es2 = stats.chi2.expect(lambda t: min(t, b * b), args=(1,))
    # E[min(Z^2, b^2)] by quadrature against robustbase's closed form: 1e-9
    assert scale_tau2(x) == pytest.approx(s0 * np.sqrt(rho.sum() / (10 * es2)), rel=1e-9)


def test_result_labels_json_and_maps(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    x = synthetic()
    names = [f"v{j + 1}" for j in range(5)]
    import pandas as pd

    frame = pd.DataFrame(x, columns=names, index=[f"r{i}" for i in range(1200)])
    res = bcs.robust_pca(frame, 2, method="macropca")
    assert res.method.startswith("MacroPCA")
    assert ("r4", "v2") in res.outlying_cells and ("r49", "v4") in res.outlying_cells
    assert "r1199" in res.outliers
    assert res.cell_residuals.loc["r7", "v1"] != res.cell_residuals.loc["r7", "v1"]  # NaN
    # transform: complete rows reproduce their scores; JSON round trip keeps the scales
    back = bcs.RobustPCAResult.from_json(res.to_json())
    np.testing.assert_allclose(back.scale_values, res.scale_values, rtol=0)
    full = frame.dropna()
    np.testing.assert_allclose(back.transform(full), res.scores.loc[full.index], rtol=1e-12)
    assert back.outlying_cells == res.outlying_cells
    with pytest.raises(bcs.BoxCoxError, match="no fitted rows"):
        _ = back.cell_residuals
    ax = res.plot_residual_map(["r4", "r16", "r49", "r1199"])
    assert [t.get_text() for t in ax.get_yticklabels()] == ["r4", "r16", "r49", "r1199"]
    ax = res.plot_outlier_map()
    assert "Outlier map" in ax.get_title()
    assert "MacroPCA" in res.summary().as_text()


def test_robpca_results_have_no_cells_and_old_json_loads():
    rng = np.random.default_rng(0)
    res = bcs.robust_pca(rng.standard_normal((60, 3)), 2)
    assert res.outlying_cells == [] and res.scale_values is None
    with pytest.raises(bcs.BoxCoxError, match="method='macropca'"):
        _ = res.cell_residuals
    doc = json.loads(res.to_json())
    doc["version"] = 1
    del doc["scale_values"]
    old = bcs.RobustPCAResult.from_json(doc)
    assert old.scale_values is None
    np.testing.assert_allclose(old.loadings_matrix, res.loadings_matrix)


def test_bad_input():
    x = synthetic()
    with pytest.raises(bcs.BoxCoxError, match="method must be 'robpca' or 'macropca'"):
        bcs.robust_pca(x, 2, method="macro")
    with pytest.raises(bcs.BoxCoxError, match="at least 1000 rows"):
        bcs.robust_pca(x[:500], 2, method="macropca")
    y = x.copy()
    y[:700, 1] = np.nan
    with pytest.raises(bcs.BoxCoxError, match="column 'x1' is missing in more than half"):
        bcs.robust_pca(y, 2, method="macropca")
    y = x.copy()
    y[3, :3] = np.nan
    with pytest.raises(bcs.BoxCoxError, match="row 3 is missing in more than half"):
        bcs.robust_pca(y, 2, method="macropca")
    before = x.copy()
    bcs.robust_pca(x, 2, method="macropca")
    np.testing.assert_array_equal(np.isnan(x), np.isnan(before))
    np.testing.assert_array_equal(x[np.isfinite(x)], before[np.isfinite(before)])
    with pytest.raises(bcs.BoxCoxError, match="method='macropca'"):
        bcs.robust_pca(x, 2)  # ROBPCA refuses missing cells and points to MacroPCA
