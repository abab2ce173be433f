"""Searches of boxcoxstat.classify.search on functions and data with a known best lambda."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from boxcoxstat import BoxCoxError
from boxcoxstat.classify.criteria import get_criterion
from boxcoxstat.classify.search import (
    coordinate_search,
    default_grid,
    grid_search,
    scalar_search,
)
from tests.classify.synth import italy_corsica


def table(values: dict):
    """A criterion given as a lookup table on integer points (0 elsewhere)."""
    def f(lam):
        return float(values.get(tuple(int(round(v)) for v in lam), 0.0))
    return f


def test_grid_search_finds_global_max_and_counts():
    f = lambda lam: -np.sum((lam - np.array([3.0, -2.0])) ** 2)  # noqa: E731
    out = grid_search(f, 2)
    assert out.lmbda.tolist() == [3.0, -2.0]
    assert len(out.evaluated) == 121 and out.score == 0.0


def test_grid_search_refuses_huge_grids():
    with pytest.raises(BoxCoxError, match="evaluations"):
        grid_search(lambda lam: 0.0, 10)


def test_more_epochs_reach_the_global_optimum():
    """Blum et al., Figure 3a: from G = [1, 1], one epoch stops at [2, 2]; the second
    finds [3, 2]."""
    f = table({(1, 1): 1, (2, 1): 2, (2, 2): 3, (3, 2): 4})
    one = coordinate_search(f, [1, 1], epochs=1)
    two = coordinate_search(f, [1, 1], epochs=2)
    assert one.lmbda.tolist() == [2.0, 2.0]
    assert two.lmbda.tolist() == [3.0, 2.0]
    assert two.trace_scores.tolist() == [3.0, 4.0]


def test_shift_escapes_a_coordinate_trap():
    """Blum et al., Figure 3b: from [1, 1] direction 1 first leads to [2, 1], a coordinate-wise
    optimum; the better [1, 2] is reached after a restart (Shift) for some seed, and a seed
    always gives the same answer."""
    f = table({(1, 1): 1, (2, 1): 3, (1, 2): 5})
    basic = coordinate_search(f, [1, 1], epochs=6)
    assert basic.lmbda.tolist() == [2.0, 1.0]
    restarted = [coordinate_search(f, [1, 1], epochs=6, shift_epoch=1, random_state=s)
                 for s in range(10)]
    assert any(o.lmbda.tolist() == [1.0, 2.0] for o in restarted)
    a = coordinate_search(f, [1, 1], epochs=6, shift_epoch=1, random_state=3)
    b = coordinate_search(f, [1, 1], epochs=6, shift_epoch=1, random_state=3)
    assert a.lmbda.tolist() == b.lmbda.tolist()


def test_shuffle_changes_the_branch_taken():
    """After epoch 1 ([2, 2, 2]) both direction 1 (to 5, a dead end) and direction 2 (to 6)
    improve; the natural order takes the dead end, a shuffled order can take the better one."""
    f = table({(1, 1, 1): 1, (2, 1, 1): 2, (2, 2, 1): 3, (2, 2, 2): 4, (3, 2, 2): 5,
               (2, 3, 2): 6})
    basic = coordinate_search(f, [1, 1, 1], epochs=4)
    assert basic.lmbda.tolist() == [3.0, 2.0, 2.0]
    shuffled = [coordinate_search(f, [1, 1, 1], epochs=4, shuffle_epoch=1, random_state=s)
                for s in range(10)]
    assert any(o.lmbda.tolist() == [2.0, 3.0, 2.0] for o in shuffled)


def test_finer_reaches_off_grid_optimum():
    """Blum et al., Figure 3c: the optimum 2.5 is off the integer grid; Finer finds it."""
    f = lambda lam: -np.sum((lam - np.array([2.5, -0.5])) ** 2)  # noqa: E731
    basic = coordinate_search(f, [1.0, 1.0], epochs=4)
    finer = coordinate_search(f, [1.0, 1.0], epochs=4, finer_epoch=2)
    assert basic.score < 0
    assert finer.lmbda.tolist() == [2.5, -0.5]


def test_candidate_must_strictly_improve():
    out = coordinate_search(lambda lam: 0.0, [1.0, -1.0], epochs=2)
    assert out.lmbda.tolist() == [1.0, -1.0]


def test_parallel_and_progress_give_same_result():
    f = lambda lam: -np.sum((lam - np.array([1.0, 4.0, -3.0])) ** 2)  # noqa: E731
    a = coordinate_search(f, [0.0, 0.0, 0.0], epochs=2)
    b = coordinate_search(f, [0.0, 0.0, 0.0], epochs=2, n_jobs=2, progress=True)
    assert a.lmbda.tolist() == b.lmbda.tolist() == [1.0, 4.0, -3.0]


def test_scalar_search_continuous_and_multimodal():
    f = lambda v: np.exp(-((v + 3.3) ** 2)) + 2 * np.exp(-((v - 2.71) ** 2) / 0.1)  # noqa: E731
    out = scalar_search(f)
    assert out.lmbda[0] == pytest.approx(2.71, abs=1e-3)


def test_searches_find_separating_lambda_on_italy_corsica():
    """Only a large lambda makes the classes linearly separable; every search finds one."""
    X, y = italy_corsica(400)
    crit = get_criterion("train", classifier=LogisticRegression(C=1e4, max_iter=5000))
    assert crit(X, y, [1.0, 1.0]) < 1.0
    grid = default_grid(6, 0.0, 5.0)
    full = grid_search(lambda lam: crit(X, y, lam), 2, grid=grid)
    it = coordinate_search(lambda lam: crit(X, y, lam), [1.0, 1.0], grid=grid, epochs=2)
    sph = scalar_search(lambda v: crit(X, y, [v, v]), bounds=(0.0, 5.0), grid_size=11)
    for out in (full, it, sph):
        assert out.score == 1.0
        assert out.lmbda.max() >= 2.0


def test_bad_options():
    with pytest.raises(BoxCoxError, match="epochs"):
        coordinate_search(lambda lam: 0.0, [1.0], epochs=0)
    with pytest.raises(BoxCoxError, match="bounds"):
        scalar_search(lambda v: 0.0, bounds=(2.0, 1.0))
