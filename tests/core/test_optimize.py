"""Tests for boxcoxstat.core.optimize: batched bracketing and Chandrupatla root finding."""

from __future__ import annotations

import numpy as np
import pytest

from boxcoxstat.core.optimize import bracket_increasing, find_root


def _counting(fun):
    calls = []

    def f(x, idx):
        calls.append(idx.copy())
        return fun(x, idx)

    return f, calls


def test_roots_of_many_columns_at_once():
    roots = np.array([-3.3e9, -361.0, 0.0, 1e-7, 2.5, 4.0e5])
    f, calls = _counting(lambda x, idx: np.tanh((x - roots[idx]) / (1 + abs(roots[idx]))))
    p = roots.size
    lo, hi, flo, fhi, ok, nb = bracket_increasing(f, np.zeros(p), np.ones(p))
    assert ok.all() and np.all(lo <= roots) and np.all(roots <= hi)
    res = find_root(f, lo, hi, flo, fhi, xatol=1e-14)
    assert res.converged.all()
    np.testing.assert_allclose(res.x, roots, rtol=1e-12, atol=1e-13)
    # every call evaluates a set of still-active columns, never one column at a time per call
    assert max(len(c) for c in calls) == p
    assert len(calls) < 80


def test_converged_columns_drop_out():
    roots = np.array([0.5, 1e6])
    f, calls = _counting(lambda x, idx: x - roots[idx])
    lo, hi, flo, fhi, ok, _ = bracket_increasing(f, np.zeros(2), np.ones(2))
    res = find_root(f, lo, hi, flo, fhi)
    assert ok.all() and res.converged.all()
    assert any(len(c) == 1 for c in calls)


def test_bracketing_reports_failure_beyond_limit():
    f, _ = _counting(lambda x, idx: np.full_like(x, -1.0))
    *_, ok, _ = bracket_increasing(f, np.zeros(1), np.ones(1), limit=1e6)
    assert not ok[0]


@pytest.mark.parametrize("root", [1e-300, -7.25, 123456.789])
def test_secant_and_interpolation_reach_machine_precision(root):
    f, calls = _counting(lambda x, idx: (x - root) * (1 + (x - root) ** 2))
    lo, hi, flo, fhi, ok, _ = bracket_increasing(f, np.array([-10.0]), np.array([-9.0]))
    res = find_root(f, lo, hi, flo, fhi, xatol=0.0)
    assert res.x[0] == pytest.approx(root, rel=1e-14, abs=1e-300)
