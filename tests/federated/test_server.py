"""boxcoxstat.federated.server: checks on every client's messages (a bad client stops the fit
naming it, or is dropped and reported), no usable client, pooled checks, clients told apart by
identity."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import boxcoxstat as bcs
from boxcoxstat import BoxCoxError
from boxcoxstat.federated import Client

from .fedutil import fit_full
from .fedutil import rel as _rel
from .fedutil import sites as _sites


class Liar(Client):
    """A client that corrupts its messages."""

    def __init__(self, data, how, **kw):
        super().__init__(data, **kw)
        self.how = how

    def setup(self):
        rep = super().setup()
        if self.how == "negative count":
            return dataclasses.replace(rep, n_pos=-rep.n_pos)
        if self.how == "nan range":
            return dataclasses.replace(rep, pos_range=(np.nan, 1.0))
        return rep

    def respond(self, request):
        rep = super().respond(request)
        if self.how == "nan moments" and 1.0 in request.lmbda:  # the round that asks for 1
            pos = dataclasses.replace(rep.pos, s=(np.nan,) * len(request.lmbda))
            return dataclasses.replace(rep, pos=pos)
        if self.how == "inf mean":
            pos = dataclasses.replace(rep.pos, mean=(np.inf,) * len(request.lmbda))
            return dataclasses.replace(rep, pos=pos)
        if self.how == "wrong count":
            return dataclasses.replace(rep, pos=dataclasses.replace(rep.pos, n=rep.pos.n + 1))
        if self.how == "short":
            return dataclasses.replace(rep, pos=dataclasses.replace(rep.pos, s=()))
        if self.how == "garbage":
            return {"s": 1.0}
        if self.how == "crash":
            raise ConnectionError("site went away")
        return rep


HOWS = ["negative count", "nan range", "nan moments", "inf mean", "wrong count", "short",
        "garbage", "crash"]


@pytest.mark.parametrize("how", HOWS)
def test_bad_client_raises_naming_it(how):
    sites = _sites()
    clients = [Client(s, name=f"site {i}") for i, s in enumerate(sites[:3])]
    clients.append(Liar(sites[3], how, name="rogue"))
    with pytest.raises(BoxCoxError, match="client '#3 rogue'"):
        fit_full(clients)


@pytest.mark.parametrize("how", HOWS)
def test_bad_client_dropped_and_reported(how):
    sites = _sites()
    clients = [Client(s, name=f"site {i}") for i, s in enumerate(sites[:3])]
    clients.append(Liar(sites[3], how, name="rogue"))
    fed = fit_full(clients, on_bad_client="drop")
    assert list(fed.federated["dropped"]) == ["#3 rogue"]
    assert fed.federated["clients"] == 3
    assert "Left out (bad messages): #3 rogue" in str(fed.summary())
    assert _rel(fed.lmbda, bcs.fit(np.concatenate(sites[:3])).lmbda) < 1e-10


def test_no_usable_client_and_constant_data():
    with pytest.raises(BoxCoxError, match="no usable client"):
        fit_full([np.array([]), np.array([])], on_bad_client="drop")
    with pytest.raises(BoxCoxError, match="constant"):
        fit_full([np.full(5, 2.0), np.full(3, 2.0)])
    with pytest.raises(BoxCoxError, match="non-empty list"):
        fit_full([])


def test_clients_with_equal_names_gh5():
    """Clients are told apart by identity, not by name (default names are all 'client')."""
    x = np.log(np.random.default_rng(0).lognormal(size=2000)) * 3
    clients = [Client(p, family="yeojohnson") for p in np.array_split(x, 8)]
    fed = fit_full(clients, family="yeojohnson")
    assert _rel(fed.lmbda, bcs.fit(x, family="yeojohnson").lmbda) < 1e-12
    fed_rounds = fed.federated
    assert fed_rounds["rounds"] - fed_rounds["fit_rounds"] - fed_rounds["screen_rounds"] <= 15


class _Unnamed:
    """A remote proxy whose name is None (as a transport may give)."""

    name = None

    def __init__(self, client):
        self._client = client

    def setup(self):
        return self._client.setup()

    def receive_frame(self, frame):
        self._client.receive_frame(frame)

    def respond(self, request):
        return self._client.respond(request)


def test_every_dropped_client_is_reported_by_its_id_gh27():
    """Two bad clients with the same name were reported as one ('twin'), three unnamed ones
    as one ('None'); the server now names each by its place in the list."""
    sites = _sites()
    rng = np.random.default_rng(8)
    clients = [Client(sites[0], name="site 0"), Client(sites[1], name="site 1"),
               Liar(sites[2], "inf mean", name="twin"), Liar(sites[3], "wrong count",
                                                              name="twin")]
    clients += [_Unnamed(Liar(rng.lognormal(size=30), how))
                for how in ("inf mean", "wrong count", "crash")]
    fed = fit_full(clients, on_bad_client="drop")
    dropped = fed.federated["dropped"]
    assert sorted(dropped) == ["#2 twin", "#3 twin", "#4", "#5", "#6"]
    assert "inconsistent counts" in dropped["#3 twin"] and "site went away" in dropped["#6"]
    assert fed.federated["clients"] == 2
    assert "#2 twin" in str(fed.summary()) and "#6" in str(fed.summary())
    assert _rel(fed.lmbda, bcs.fit(np.concatenate(sites[:2])).lmbda) < 1e-10
    with pytest.raises(BoxCoxError, match="client '#2 twin'"):
        fit_full(clients)


class Vandal(Client):
    """Answers honestly, then changes the messages it was handed: on main the server and the
    other clients shared them, so the next check refused the honest clients."""

    def receive_frame(self, frame):
        super().receive_frame(frame)
        with pytest.raises(dataclasses.FrozenInstanceError):
            frame.ref_pos = 1.0
        object.__setattr__(frame, "ref_pos", frame.ref_pos * 3.0)  # around the freeze

    def respond(self, request):
        rep = super().respond(request)
        with pytest.raises(dataclasses.FrozenInstanceError):
            request.lmbda = (5.0,)
        np.asarray(request.lmbda)[...] = 7.0  # an in-place write (into a copy: harmless)
        object.__setattr__(request, "lmbda", tuple(v + 1.0 for v in request.lmbda))
        object.__setattr__(request, "shift_pos", tuple(v + 2.0 for v in request.shift_pos))
        object.__setattr__(request, "round", request.round + 1)
        return rep


def test_a_client_changing_its_request_changes_nothing_else_gh27():
    sites = _sites()
    clients = [Client(s, name=f"site {i}") for i, s in enumerate(sites[:3])]
    clients.insert(1, Vandal(sites[3], name="vandal"))
    fed = fit_full(clients)  # the default: any refused client would raise
    assert fed.federated["dropped"] == {}
    # its own answers were honest: the fit is the pooled fit of all four (1e-10 as above)
    assert _rel(fed.lmbda, bcs.fit(np.concatenate(sites)).lmbda) < 1e-10
