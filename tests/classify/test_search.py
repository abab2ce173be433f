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
    nelder_mead_search,
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


# ------------------------------------------------------------- Blum et al.'s printed rule
def test_paper_rule_does_not_score_the_start():
    """Optimization 2 starts with A = 0: the first candidate always replaces the start, even
    when the (off-grid) start is better; the default rule keeps the better start."""
    f = table({(2, 1): 3})
    def g(lam):
        return 10.0 if lam[0] == 0.5 else f(lam)
    assert coordinate_search(g, [0.5, 1.0], epochs=2).lmbda.tolist() == [0.5, 1.0]
    paper = coordinate_search(g, [0.5, 1.0], epochs=2, rule="paper")
    assert paper.lmbda.tolist() == [2.0, 1.0] and paper.score == 3.0


def test_paper_rule_shift_compares_with_the_global_best():
    """Optimization 2.1: after a restart at G a candidate must beat the best value so far.
    From G, direction 1 offers 6 (below the best, 10) and only from there direction 2 leads
    to 20: the default rule follows the local improvement to 20, the paper's rule does not
    move from G and keeps 10."""
    grid = np.array([-1.0, 0.0, 1.0, 2.0])
    seed = 1
    G = np.random.default_rng(seed).choice(grid, size=2)  # the Shift point of epoch 2
    assert G[0] != 2.0 and G[1] != 2.0
    v = next(x for x in grid if x != G[0])  # the first better point of direction 1
    w = next(x for x in grid if x != G[1])

    def f(lam):
        a, b = lam
        if (a, b) == (2.0, 2.0):
            return 10.0
        if (a, b) == (v, w):
            return 20.0
        if b == G[1] and a != G[0]:
            return 6.0
        return 0.0

    kw = dict(grid=grid, epochs=2, shift_epoch=1, random_state=seed)
    assert coordinate_search(f, [2.0, 2.0], **kw).score == 20.0
    paper = coordinate_search(f, [2.0, 2.0], rule="paper", **kw)
    assert paper.lmbda.tolist() == [2.0, 2.0] and paper.score == 10.0


def test_unmoved_epochs_cost_nothing():
    """Once an epoch moves no direction, later epochs (without Shift or Finer) are skipped:
    50 epochs evaluate exactly what 3 do, and the trace still has one value per epoch."""
    calls = []

    def f(lam):
        calls.append(1)
        return -float(np.sum((lam - np.array([2.0, -3.0, 0.0])) ** 2))

    coordinate_search(f, [0.0, 0.0, 0.0], epochs=3)
    n3 = len(calls)
    out = coordinate_search(f, [0.0, 0.0, 0.0], epochs=50, shuffle_epoch=2, random_state=1)
    assert len(calls) - n3 == n3 and out.trace_scores.size == 50


def test_bad_rule():
    with pytest.raises(BoxCoxError, match="rule"):
        coordinate_search(lambda lam: 0.0, [1.0], rule="global")


# ------------------------------------------------------------- Nelder-Mead (Bicego & Baldo)
def test_nelder_mead_matches_scipy_fmin():
    """The same simplex and tolerances as Matlab's fminsearch, which scipy's fmin also
    defaults to (xtol = ftol = 1e-4, 200 p iterations): the same point to 1e-12."""
    from scipy.optimize import fmin

    def f(lam):
        return -float((lam[0] - 1.5) ** 2 + 3 * (lam[1] + 2.0) ** 2 + lam[0] * lam[1])

    out = nelder_mead_search(f, [1.0, 1.0])
    ref = fmin(lambda v: -f(v), [1.0, 1.0], disp=False)
    np.testing.assert_allclose(out.lmbda, ref, atol=1e-12)
    # by hand: grad = 0 at 2(l0 - 1.5) + l1 = 0, 6(l1 + 2) + l0 = 0 -> (30/11, -27/11)
    np.testing.assert_allclose(out.lmbda, [30 / 11, -27 / 11], atol=1e-3)


def test_nelder_mead_treats_non_finite_as_worst():
    """A criterion that is not finite beyond lambda 3 (BoxCoxError) bounds the search."""
    def f(lam):
        if lam[0] > 3.0:
            raise BoxCoxError("not finite")
        return float(lam[0])

    out = nelder_mead_search(f, [1.0])
    assert 2.9 < out.lmbda[0] <= 3.0
    assert np.all(out.evaluated[:, 0] <= 3.0)
