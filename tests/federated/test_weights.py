"""``bcs.federated.fit(..., weights=)``: case weights under the paper's protocol (issue 30).

The weighted profile (``lm(x ~ 1, weights=w)``'s likelihood: moments weighted, Jacobian not,
rows of weight 0 left out) from the clients' weighted moments equals the in-memory weighted
fit to 1e-10 and R's tight maximum (tests/reference/weights_bounds_compare_reference.R: uniroot
of the weighted score, and ``logLik`` of the weighted ``lm`` with the Jacobian)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs
from boxcoxstat import BoxCoxError
from boxcoxstat.federated import Client
from tests import mpref

REF = json.loads((Path(__file__).resolve().parents[1] / "reference"
                  / "weights_bounds_compare_reference.json").read_text())["weighted"]


def _split(a, k):
    return np.array_split(np.asarray(a), k)


@pytest.mark.parametrize("case", ["lognormal_60", "trees_volume_by_height",
                                  "prestige_women_yj"])
def test_weighted_equals_r_and_the_in_memory_fit(case):
    ref = REF[case]
    y, w = np.array(ref["y"]), np.array(ref["w"])
    fed = bcs.federated.fit(_split(y, 3), weights=_split(w, 3), family=ref["family"])
    mem = bcs.fit(y, weights=w, family=ref["family"])
    assert fed.federated["protocol"] == "minimal" and fed.federated["weighted"]
    t = ref["tight"]
    # R's uniroot of the weighted score (tol 1e-12) and logLik: 1e-10 (issue 30)
    assert fed.lmbda == pytest.approx(t["lambda"], abs=1e-10)
    assert float(fed.llf) == pytest.approx(t["llf"], abs=1e-9)
    # the same likelihood along two paths (merged moments vs a QR): 1e-10
    assert fed.lmbda == pytest.approx(mem.lmbda, abs=1e-10)
    assert fed.conf_int().to_numpy() == pytest.approx(mem.conf_int().to_numpy(), abs=1e-10)
    # SE from the polish's stencil (five NLL values): measured 1e-9 relative
    assert float(fed.bse.iloc[0]) == pytest.approx(float(mem.bse.iloc[0]), rel=1e-6)
    for lam0 in (0, 1):
        # a difference of two log-likelihoods: their rounding, 1e-9 absolute
        assert fed.test(lam0).statistic == pytest.approx(mem.test(lam0).statistic, abs=1e-9)
    assert "Case weights" in str(fed.summary())


@pytest.mark.parametrize("kind", ["positive", "mixed", "negative"])
def test_yeojohnson_sides_zero_weights_and_uneven_clients(kind):
    rng = np.random.default_rng(11)
    x = {"positive": rng.lognormal(0.3, 0.8, 400), "mixed": rng.normal(1.0, 3.0, 400),
         "negative": -rng.gamma(2.0, 1.5, 400)}[kind]
    w = rng.uniform(0.2, 3.0, 400)
    w[::37] = 0.0  # left out, as lm(weights=) leaves them out
    cut = [0, 40, 150, 400]
    sites = [x[a:b] for a, b in zip(cut, cut[1:], strict=False)]
    ws = [w[a:b] for a, b in zip(cut, cut[1:], strict=False)]
    fed = bcs.federated.fit(sites, weights=ws, family="yeojohnson")
    mem = bcs.fit(x, weights=w, family="yeojohnson")
    assert fed.lmbda == pytest.approx(mem.lmbda, rel=1e-10)
    assert float(fed.llf) == pytest.approx(float(mem.llf), rel=1e-12)
    assert fed.conf_int().to_numpy() == pytest.approx(mem.conf_int().to_numpy(), rel=1e-10)
    assert int(fed.nobs) == int(mem.nobs) == int((w > 0).sum())
    assert fed.federated["fit_rounds"] <= 30


def test_unit_weights_on_the_hard_case_are_the_unweighted_fit():
    """500 x 2.0 + 3 x 2.0000001 (lambda = -3.35e9): under weights the NLL's linear term
    comes from the sums of log-ratios the clients send at set-up; with unit weights it must
    be the unweighted central fit (itself checked against mpmath, tests/core/)."""
    x = mpref.huge_lambda_case()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bcs.ResolutionWarning)
        fed = bcs.federated.fit(_split(x, 5), weights=[np.ones(len(s)) for s in _split(x, 5)])
        mem = bcs.fit(x)
    assert fed.lmbda == pytest.approx(mem.lmbda, rel=1e-10)
    assert fed.conf_int().to_numpy() == pytest.approx(mem.conf_int().to_numpy(), rel=1e-10)


def test_weights_by_column_name_client_objects_and_auto_family():
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"a": rng.lognormal(size=300), "b": rng.normal(size=300),
                       "w": rng.uniform(0.5, 2.0, 300)})
    df.loc[3:6, "a"] = np.nan
    parts = [df.iloc[i::3] for i in range(3)]
    fed = bcs.federated.fit(parts, weights="w", family="auto")
    mem = bcs.fit(df, weights="w", family="auto")
    assert fed.families == mem.families
    assert fed.lmbda.to_numpy() == pytest.approx(mem.lmbda.to_numpy(), rel=1e-10)
    assert fed.llf.to_numpy() == pytest.approx(mem.llf.to_numpy(), rel=1e-12)
    clients = [Client(p, weights="w", family="auto", name=f"s{i}") for i, p in enumerate(parts)]
    again = bcs.federated.fit(clients, weights=True, family="auto")
    assert again.lmbda.to_numpy() == pytest.approx(fed.lmbda.to_numpy(), rel=1e-12)


def test_the_set_up_carries_the_weight_totals_and_rounds_the_papers_numbers():
    rng = np.random.default_rng(2)
    x, w = rng.lognormal(size=120), rng.uniform(0.5, 2.0, 120)
    fed = bcs.federated.fit(_split(x, 3), weights=_split(w, 3))
    rows = fed.federated["messages"]
    counts = [r for r in rows if r["kind"] == "counts"]
    # counts (3), weight total, sum of log weights, sum of log-ratios (Box-Cox): 6
    assert all(set(r["up"].values()) == {6} for r in counts)
    # each round: (c, n, mean, s) per lambda, as unweighted
    assert {n for r in rows if r["kind"] == "search" for n in r["up"].values()} == {4}


def test_weights_are_never_silently_ignored():
    rng = np.random.default_rng(1)
    x = rng.lognormal(size=90)
    weighted = Client(x[:30], weights=rng.uniform(1, 2, 30), name="w-site")
    others = [Client(x[30:60]), Client(x[60:])]
    with pytest.raises(BoxCoxError, match="w-site.*holds case weights but the fit is "
                                          "unweighted"):
        bcs.federated.fit([weighted, *others])
    with pytest.raises(BoxCoxError, match="full protocol does not take case weights"):
        bcs.federated.fit(_split(x, 3), weights=_split(np.ones(90), 3), protocol="full")
    with pytest.raises(BoxCoxError, match="weights= and ymax= together"):
        bcs.federated.fit(_split(x, 3), weights=_split(np.ones(90), 3), ymax=100.0)


@pytest.mark.parametrize(("w", "message"), [
    (np.r_[np.ones(29), -1.0], "client #2: weights must be finite and >= 0: row 29 has -1.0"),
    (np.r_[np.nan, np.ones(29)], "finite and >= 0: row 0"),
    (np.ones(20), "length 20, but the data have 30 rows"),
])
def test_bad_weights_name_the_client_and_the_row(w, message):
    x = np.random.default_rng(0).lognormal(size=90)
    ws = [np.ones(30), np.ones(30), w]
    with pytest.raises(BoxCoxError, match=message):
        bcs.federated.fit(_split(x, 3), weights=ws)
    with pytest.raises(BoxCoxError, match="one array of weights per site"):
        bcs.federated.fit(_split(x, 3), weights=ws[:2])
