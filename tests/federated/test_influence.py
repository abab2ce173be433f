"""boxcoxstat.federated.influence: the influence screen (issue 27, item 4).

A finite, *consistent* liar passes every message check: a client that claims k times its rows
and sends the moments of k copies of its values. Among ten honest clients such a client
moved lambda by 6.9 standard errors (k = 10) and 10.5 (k = 1e6), accepted silently. The
screen measures each client's leave-one-out effect on lambda and reports it, or leaves the
client out. References: ``bcs.fit`` on the concatenated arrays (in memory, itself checked
against mpmath and R elsewhere) -- never the federated code's own output.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import boxcoxstat as bcs
from boxcoxstat import BoxCoxError
from boxcoxstat.federated import Client, Server
from boxcoxstat.federated.influence import _effects

from .fedutil import fit_full
from .fedutil import rel as _rel


def _scaled(st, k):
    """One side's moments as k copies of the same values would give them."""
    return dataclasses.replace(st, n=st.n * k, c=st.c * k, d_sum=tuple(d * k for d in st.d_sum),
                               s=tuple(v * k for v in st.s), c2=tuple(v * k for v in st.c2))


class ClaimsRows(Client):
    """Claims ``k`` times its rows, consistently (counts, sums and sums of squares)."""

    def __init__(self, data, k, **kw):
        super().__init__(data, **kw)
        self.k = k

    def setup(self, column=0):
        rep = super().setup(column)
        return dataclasses.replace(rep, n_pos=rep.n_pos * self.k, n_neg=rep.n_neg * self.k)

    def respond(self, request):
        rep = super().respond(request)
        return dataclasses.replace(
            rep, pos=None if rep.pos is None else _scaled(rep.pos, self.k),
            neg=None if rep.neg is None else _scaled(rep.neg, self.k))

    # the paper's protocol: k copies of its values have k times c, the counts and s
    def counts(self, request):
        rep = super().counts(request)
        return dataclasses.replace(rep, n_pos=rep.n_pos * self.k, n_neg=rep.n_neg * self.k)

    def answer(self, request):
        rep = super().answer(request)
        return dataclasses.replace(
            rep, c=rep.c * self.k, n_pos=rep.n_pos * self.k,
            n_neg=None if rep.n_neg is None else rep.n_neg * self.k,
            s=tuple(v * self.k for v in rep.s))


def _honest():
    rng = np.random.default_rng(1)
    return [rng.lognormal(0.0, 0.5, 100) for _ in range(10)]


def _poison(seed):
    """Values inside the honest range, crowded at its top (a plausible site, wrong shape)."""
    hi = max(h.max() for h in _honest())
    rng = np.random.default_rng(seed)
    return np.exp(rng.uniform(np.log(hi) - 0.3, np.log(hi), 100))


@pytest.mark.parametrize("claims", [(10,), (10**6,), (10, 10**6)])
def test_clients_claiming_rows_are_left_out_gh27(claims):
    honest = _honest()
    clients = [Client(h, name=f"site {i}") for i, h in enumerate(honest)]
    for j, k in enumerate(claims):
        clients.insert(2 + 3 * j, ClaimsRows(_poison(j), k, name=f"claims x{k}"))
    liars = sorted(f"#{2 + 3 * j} claims x{k}" for j, k in enumerate(claims))
    central = bcs.fit(np.concatenate(honest))
    # before (the default report): lambda is moved by many standard errors, and the
    # liars are named with their effects
    seen = fit_full(clients)
    assert abs(seen.lmbda - central.lmbda) > 6 * central.bse.iloc[0]
    assert sorted(seen.federated["influential"]) == liars
    assert all(v > 6 for v in seen.federated["influential"].values())
    assert seen.federated["dropped"] == {}
    fed = fit_full(clients, on_influential="drop")
    assert sorted(fed.federated["dropped"]) == liars
    assert all("influential" in why for why in fed.federated["dropped"].values())
    assert fed.federated["clients"] == 10
    # the score's roots of the same likelihood, merged in another order: the 1e-9
    assert _rel(fed.lmbda, central.lmbda) < 1e-9
    assert _rel(fed.bse.iloc[0], central.bse.iloc[0]) < 1e-9
    text = str(fed.summary())
    assert "Influential" in text and liars[0] in text and "left out" in text


def test_report_keeps_the_flagged_client_gh27():
    """Under "report" the fit is that of all the data as sent: ten copies of the liar's."""
    honest = _honest()
    liar = _poison(0)
    clients = [Client(h) for h in honest] + [ClaimsRows(liar, 10)]
    fed = fit_full(clients)
    assert list(fed.federated["influential"]) == ["#10"]
    assert 6 < fed.federated["influential"]["#10"] < 8  # 6.83 measured
    assert _rel(fed.lmbda, bcs.fit(np.concatenate(honest + [liar] * 10)).lmbda) < 1e-9
    assert "Influential (lambda moves by more than 3 SE without them): #10 (+6.8" in str(
        fed.summary())
    back = type(fed).from_json(fed.to_json())
    assert back.federated["influential"] == fed.federated["influential"]


def test_honest_clients_are_not_flagged():
    fed = fit_full(_honest())
    assert fed.federated["influential"] == {}
    assert fed.federated["screen"] == 3.0
    assert 0 < fed.federated["screen_rounds"] <= 15
    off = fit_full(_honest(), screen=None)
    assert off.federated["screen_rounds"] == 0 and off.federated["screen"] is None
    assert off.federated["rounds"] == fed.federated["rounds"] - fed.federated["screen_rounds"]


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_leave_one_out_fits_equal_the_fits_in_memory(family):
    """Each subset's lambda and standard error, from the moments merged without one client,
    equal bcs.fit of the concatenated arrays without it. For Yeo-Johnson one client holds
    every negative value: leaving it out empties that side."""
    rng = np.random.default_rng(7)
    if family == "boxcox":
        sites = [rng.lognormal(0.0, 0.6, n) for n in (30, 45, 60, 25)]
    else:
        sites = [rng.gamma(2.0, 1.0, n) for n in (30, 45, 60)] + [-rng.gamma(2.0, 1.0, 25)]
    server = Server([Client(s, family=family) for s in sites], family)
    try:
        server.setup()
        members = np.ones((len(sites) + 1, len(sites)), dtype=bool)
        for i in range(len(sites)):
            members[i + 1, i] = False
        fits, rounds = _effects(server, members, (0.0, 1.0))
    finally:
        server.close()
    assert rounds <= 20
    for j in range(members.shape[0]):
        mem = bcs.fit(np.concatenate([s for s, m in zip(sites, members[j], strict=True)
                                      if m]),
                      family=family)
        # lambda: two roots of the same score, merged in another frame; SE: the curvature
        # by differences of the score (1e-8, its accuracy in core/curvature.py is 1e-9)
        assert _rel(fits[j, 0], mem.lmbda) < 1e-9
        assert _rel(fits[j, 1], mem.bse.iloc[0]) < 1e-8


def test_screen_with_the_minimal_protocol_and_two_columns():
    rng = np.random.default_rng(9)
    X = [np.column_stack([rng.lognormal(size=80), rng.gamma(3.0, size=80)]) for _ in range(6)]
    hi = max(x[:, 0].max() for x in X)
    bad = np.column_stack([np.exp(rng.uniform(np.log(hi) - 0.3, np.log(hi), 80)),
                           rng.gamma(3.0, size=80)])
    clients = [Client(x) for x in X] + [ClaimsRows(bad, 100)]
    fed = fit_full(clients, protocol="minimal", on_influential="drop")
    assert list(fed.federated["dropped"]) == ["#6"]
    assert "column 'x0'" in fed.federated["dropped"]["#6"]
    mem = bcs.fit(np.vstack(X))
    # the paper's protocol with its polish: the score's root to about 1e-12 (test_paper.py)
    assert np.max(np.abs(fed.lmbda - mem.lmbda) / np.abs(mem.lmbda)) < 1e-10
    assert fed.federated["screen_rounds"] == 0  # the screen reuses the polish's moments


def test_two_clients_are_not_screened():
    sites = _honest()[:2]
    fed = fit_full(sites)
    assert fed.federated["screen_rounds"] == 0 and fed.federated["influential"] == {}


@pytest.mark.parametrize(("option", "value", "match"), [
    ("screen", -1.0, "screen must be a positive number"),
    ("screen", float("nan"), "screen must be a positive number"),
    ("screen", "3", "screen must be a positive number"),
    ("on_influential", "ignore", "on_influential"),
])
def test_screen_options_are_checked(option, value, match):
    with pytest.raises(BoxCoxError, match=match):
        fit_full(_honest()[:3], **{option: value})


def test_a_subset_that_cannot_be_evaluated_does_not_end_the_fit_gh27():
    """Found by the generated-sample test of tests/test_nested.py: leaving one site out left
    four values whose lambda runs to -73, where the merged statistics leave float64; the
    BoxCoxError of that one subset ended the whole federated fit. That subset's influence is
    now not measurable, and the fit equals the central one (1e-9: the same likelihood)."""
    x = np.array([7.063121755224181, 40.0, 40.0, 40.0, 40.0, 43.9366798753442])
    for fed in (fit_full(np.array_split(x, 3)), bcs.federated.fit(np.array_split(x, 3))):
        np.testing.assert_allclose(fed.lmbda, bcs.fit(x).lmbda, rtol=1e-9)
