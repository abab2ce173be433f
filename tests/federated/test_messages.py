"""boxcoxstat.federated.messages: the protocol's records survive their JSON wire form, and
their byte count is the number of float64 values they carry."""

from __future__ import annotations

import numpy as np
import pytest

import boxcoxstat as bcs
from boxcoxstat import BoxCoxError
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


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("[1,2]", "expected a JSON object, got list"),
        ('{"type":"SetupReport"}', "SetupReport lacks the field 'client'"),
        ('{"type":"Nonsense"}', "field 'type' is 'Nonsense'"),
        ('{"lmbda": [1.0]}', "field 'type' is None"),
        ('{"type":"SideStats","n":1}', "field 'type' is 'SideStats'"),
        ('{"type":"Request","lmbda":["0.5"],"shift_pos":[],"shift_neg":[],"score":true}',
         "field 'lmbda' must be a list of numbers"),
        ('{"type":"Request","lmbda":[0.5],"shift_pos":[],"shift_neg":[],"score":1}',
         "field 'score' must be true or false"),
        ('{"type":"SetupReport","client":"a","n_pos":"3","n_neg":0,"n_missing":0,'
         '"pos_range":[1,2],"neg_range":null}', "field 'n_pos' must be an integer >= 0"),
        ('{"type":"SetupReport","client":"a","n_pos":3,"n_neg":0,"n_missing":0,'
         '"pos_range":1.0,"neg_range":null}', r"field 'pos_range' must be a list of numbers"),
        ('{"type":"SetupReport","client":"a","n_pos":3,"n_neg":0,"n_missing":0,'
         '"pos_range":[1,2,3],"neg_range":null}', r"two numbers \[min, max\]"),
        ('{"type":"SetupReport","client":"a","n_pos":3,"n_neg":0,"n_missing":0,'
         '"pos_range":[1,2],"neg_range":null,"extra":1}', r"unknown field\(s\) \['extra'\]"),
        ('{"type":"MomentsReply","client":"a","pos":{"n":2,"c":1.0,"d_sum":[1],"mean":0.5,'
         '"s":[1],"mean_chi":[1],"c2":[1]},"neg":null}', "field 'pos.mean' must be a list"),
        ('{"type":"MomentsReply","client":"a","pos":[1],"neg":null}',
         "field 'pos' must be an object"),
        ("[" * 100000 + "]" * 100000, "nested deeper than"),
        ('{"type": "Frame", "family": "boxcox", "ref_pos": {"a": {"b": {"c": {}}}}}',
         "nested deeper than"),
        ("{not json", "not valid JSON"),
        (b"\xff\xfe", "not UTF-8"),
        (42, "expected JSON text"),
    ],
)
def test_malformed_json_is_refused_naming_the_field_gh_hardening(text, match):
    """'[1,2]', a missing field, a string for a number and deep nesting raised TypeError,
    AttributeError or RecursionError; every malformed message is now a BoxCoxError."""
    with pytest.raises(BoxCoxError, match=match):
        message_from_json(text)


def test_reply_round_trip_with_columns_and_rounds():
    c = Client(np.column_stack([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]]), name="two")
    rep = c.setup(1)
    assert (rep.column, rep.ncols, rep.columns) == (1, 2, None)
    assert message_from_json(rep.to_json()) == rep
    assert rep.nbytes == 40  # labels (column, ncols, names) are not counted as numbers


def test_request_holds_tuples_gh27():
    """A request built from arrays or lists keeps tuples: no client can write into it."""
    lam = np.array([0.5, 1.0])
    req = Request(lam, [0.0, 0.0], (), True)
    lam[0] = 9.0
    assert req.lmbda == (0.5, 1.0) and req.shift_pos == (0.0, 0.0)
    assert all(isinstance(f, tuple) for f in (req.lmbda, req.shift_pos, req.shift_neg))
