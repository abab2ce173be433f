"""RobustPCAResult and bcs.robust_pca: labels, new data, reports, JSON, plots, bad input."""

from __future__ import annotations

import json

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs
from tests.pca.test_mcd import synthetic


@pytest.fixture(scope="module")
def frame():
    x = pd.DataFrame(synthetic(), columns=[f"v{j}" for j in range(1, 6)],
                     index=[f"r{i}" for i in range(300)])
    return x, bcs.robust_pca(x, n_components=2)


def test_labels_follow_the_input(frame):
    x, r = frame
    assert list(r.loadings.index) == list(x.columns) and list(r.loadings.columns) == \
        ["PC1", "PC2"]
    assert list(r.scores.index) == list(x.index)
    assert r.score_distances.index.equals(x.index)
    assert r.explained_variance_ratio.index.tolist() == ["PC1", "PC2"]
    assert list(r.cutoffs.index) == ["score distance", "orthogonal distance"]
    # every flagged row is beyond a cut-off, every other row within both
    out = set(r.outliers)
    beyond = (r.score_distances > r.sd_cutoff) | (r.orthogonal_distances > r.od_cutoff)
    assert out == set(x.index[beyond])
    # rows 1-15 (+20 in the plane) and 16-25 (+5 off it) are among them
    assert {f"r{i}" for i in range(25)} <= out
    arr = bcs.robust_pca(x.to_numpy(), n_components=2)
    assert isinstance(arr.scores, np.ndarray) and arr.outliers[:3] == [0, 1, 2]


def test_transform_projects_new_data(frame):
    x, r = frame
    # the fitted rows' scores are their projections (rounding of a 300 x 5 product)
    np.testing.assert_allclose(r.transform(x).to_numpy(), r.scores.to_numpy(), atol=1e-12)
    with pytest.raises(bcs.BoxCoxError):
        r.transform(x.iloc[:, :3])


def test_summary_json_and_loaded_refusals(frame, tmp_path):
    x, r = frame
    text = str(r.summary())
    assert "ROBPCA" in text and "proportion" in text and "Loadings" in text
    assert "r0" in text and "rows beyond a cut-off" in text
    assert "\n" not in repr(r) and "2 of 5 variables" in repr(r)
    doc = r.to_json()
    path = tmp_path / "pca.json"
    path.write_text(doc)
    for source in (doc, json.loads(doc), path):
        back = bcs.RobustPCAResult.from_json(source)
        assert str(back.summary()) == text and back.outliers == r.outliers
        pd.testing.assert_frame_equal(back.loadings, r.loadings)
        np.testing.assert_allclose(back.transform(x.to_numpy()), r.scores.to_numpy(),
                                   atol=1e-12)
    with pytest.raises(bcs.BoxCoxError, match="scores is not available: .*transform"):
        _ = back.scores
    with pytest.raises(bcs.BoxCoxError, match="plot_outlier_map is not available"):
        back.plot_outlier_map()
    bad = json.loads(doc)
    bad["loadings_matrix"] = [row[:1] for row in bad["loadings_matrix"]]
    with pytest.raises(bcs.BoxCoxError, match="loadings_matrix"):
        bcs.RobustPCAResult.from_json(bad)


def test_plots(frame):
    _, r = frame
    ax = r.plot_outlier_map(labels=3)
    assert ax.get_xlabel() == "Score distance" and ax.get_ylabel() == "Orthogonal distance"
    assert len(ax.texts) == 3 and len(ax.lines) == 2  # the two cut-offs
    axes = r.plot_scores(color=np.where(np.arange(300) < 15, "red", "black"))
    assert axes.shape == (2, 2) and axes[1, 0].get_xlabel() == "PC1"
    plt.close("all")


def test_plot_scores_takes_ax_gh28(frame):
    """issue 28: plots take ax= (the pairs plot took axes=); k x k Axes, or an error."""
    _, r = frame
    fig, grid = plt.subplots(2, 2)
    assert r.plot_scores(ax=grid)[0, 1] is grid[0, 1]
    with pytest.raises(bcs.BoxCoxError, match="ax must be 4 matplotlib Axes"):
        r.plot_scores(ax=grid[0])
    plt.close("all")


def test_bad_input():
    x = synthetic()
    with pytest.raises(bcs.BoxCoxError, match="n_components must be a positive integer"):
        bcs.robust_pca(x, n_components=0)
    with pytest.raises(bcs.BoxCoxError, match=r"h must lie in \[0.5, 1\]"):
        bcs.robust_pca(x, h=0.3)
    y = pd.DataFrame(x, columns=list("abcde"))
    y.iloc[7, 2] = np.nan
    with pytest.raises(bcs.BoxCoxError, match="complete rows, but column 'c' is missing at "
                                              "row 7"):
        bcs.robust_pca(y)
    with pytest.raises(bcs.BoxCoxError, match="kmax"):
        bcs.robust_pca(x, kmax=0)
