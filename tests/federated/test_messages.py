"""boxcoxstat.federated.messages: the protocol's records survive their JSON wire form, and
their byte count is the number of float64 values they carry."""

from __future__ import annotations

import numpy as np

import boxcoxstat as bcs
from boxcoxstat.federated import Client, message_from_json
from boxcoxstat.federated.messages import Request


def test_messages_round_trip_json():
    c = Client(np.array([-1.0, 0.5, 3.0]), family="yeojohnson", name="a")
    rep = c.setup()
    assert message_from_json(rep.to_json()) == rep
    server = bcs.federated.Server([c], "yeojohnson")
    frame = server.setup()
    req = frame.request([0.3, 1.7], True)
    assert message_from_json(req.to_json()) == req
    reply = c.respond(req)
    back = message_from_json(reply.to_json())
    assert back == reply and reply.pos.n == 2 and reply.neg.n == 1
    assert reply.nbytes == 8 * 2 * (2 + 5 * 2)
    assert isinstance(message_from_json(Request((1.0,), (0.0,), (), False).to_json()), Request)
