"""boxcoxstat.federated.protocol: the frames and the merging of the clients' moments give the
pooled fit whatever the split -- Yeo-Johnson clients holding only negative, only positive or
mixed values, clients of one value, of zeros only or of ties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import boxcoxstat as bcs
from tests import mpref

from .fedutil import fit_full
from .fedutil import rel as _rel

YJ_CASES = [
    pytest.param(arr, id=feat, marks=mpref.data_marks(ds))
    for ds, feat, arr, fams in mpref.unstable_features()
    if "yeojohnson" in fams
]


@pytest.mark.parametrize("x", YJ_CASES)
def test_yeojohnson_positive_negative_and_mixed_clients(x):
    """Centred data split into all-negative, all-positive and mixed clients (up to 100)."""
    y = x - np.mean(x)
    rng = np.random.default_rng(1)
    neg, pos = rng.permutation(y[y < 0]), rng.permutation(y[y >= 0])
    m = max(1, pos.size // 5)  # positives that go to mixed clients
    k = max(1, min(20, neg.size // 2, m))  # mixed clients: one negative each plus positives
    mixed = [np.r_[neg[i], chunk] for i, chunk in enumerate(np.array_split(pos[:m], k))]
    clients = np.array_split(neg[k:], 40) + np.array_split(pos[m:], 40) + mixed
    clients = [c for c in clients if c.size]
    kinds = {(bool((c >= 0).all()), bool((c < 0).all())) for c in clients}
    assert (False, False) in kinds  # mixed clients
    if min((y < 0).sum(), (y >= 0).sum()) >= 2:
        assert kinds == {(True, False), (False, True), (False, False)}
    fed = fit_full(clients, family="yeojohnson")
    mem = bcs.fit(np.concatenate(clients), family="yeojohnson")
    assert _rel(fed.lmbda, mem.lmbda) < 1e-10
    assert fed.federated["fit_rounds"] <= 30


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(6, 120),
    family=st.sampled_from(["boxcox", "yeojohnson"]),
    kind=st.sampled_from(["lognormal", "normal", "ties", "zeros"]),
    k=st.integers(1, 12),
)
def test_random_splits_match_in_memory(seed, n, family, kind, k):
    """Any split (clients of size 1, clients holding only zeros or ties) gives the pooled fit."""
    rng = np.random.default_rng(seed)
    if kind == "lognormal":
        x = rng.lognormal(0, 1.5, n)
    elif kind == "normal":
        x = rng.normal(5, 2, n) if family == "boxcox" else rng.normal(0, 2, n)
    elif kind == "ties":
        x = rng.choice([0.5, 1.0, 3.0], n) * (1 if family == "boxcox" else rng.choice([-1, 1], n))
    else:
        x = np.r_[np.zeros(n // 2), rng.gamma(2.0, size=n - n // 2)] + (family == "boxcox")
    if family == "boxcox":
        x = np.abs(x) + 0.1
    if np.ptp(x) < 1e-6 * np.max(np.abs(x)):
        return
    cuts = np.sort(rng.choice(np.arange(1, n), size=min(k, n - 1) - 1, replace=False))
    clients = np.split(rng.permutation(x), cuts)
    mem = bcs.fit(x, family=family)
    fed = fit_full(clients, family=family)
    assert abs(fed.lmbda - mem.lmbda) <= 1e-9 * max(1.0, abs(mem.lmbda))
    assert np.isfinite(fed.llf)
