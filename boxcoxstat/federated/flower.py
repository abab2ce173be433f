"""The paper's protocol on Flower: a ``ServerApp`` and a ``ClientApp`` (optional extra
``boxcoxstat[flower]``).

The ServerApp runs the same :class:`~.coordinator.Coordinator` as
the in-process :func:`boxcoxstat.federated.fit` -- the same rounds, messages and checks of bad,
silent and lying clients -- over a :class:`FlowerTransport`: every protocol message travels
as its JSON text in a Flower ``Message`` (a ``ConfigRecord`` under ``"msg"``, message type
``"query"``) through Flower's SuperLink, and clients are named by the engine's node ids
(``"node <id>"``), not by names they choose. A client that fails (Flower's error reply), is
silent past the round's timeout, or sends a refused message is dropped and reported by node
id and reason; the others finish.

The ClientApp reads its site's data from the CSV file named in its node config
(``--node-config 'data="site.csv"'``; a column ``column`` may pick one column, else all
numeric columns) or from a DataFrame registered in-process with :func:`serve`, and answers
with a :class:`~boxcoxstat.federated.Client`. The ServerApp reads its options from the run
config (``family``, ``timeout``, ``deadline``, ``max-message-bytes``, ``out``: where it
writes the result as JSON). ``boxcoxstat federated-demo`` (:mod:`boxcoxstat.cli`) starts a
SuperLink and one SuperNode per client on 127.0.0.1 and runs this app on bundled data.

Examples
--------
>>> import boxcoxstat.federated.flower as fl  # doctest: +SKIP
>>> fl.server_app, fl.client_app  # doctest: +SKIP
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._validation.columns import BoxCoxError
from .client import Client
from .coordinator import DEFAULT_MAX_MESSAGE_BYTES, Coordinator
from .messages import CountsRequest, LambdaRequest, message_from_json

try:
    from flwr.app import ConfigRecord, Context, Message, RecordDict
    from flwr.clientapp import ClientApp
    from flwr.serverapp import Grid, ServerApp
except ImportError as err:  # pragma: no cover - the extra is missing
    raise ImportError("boxcoxstat.federated.flower needs Flower: pip install "
                      "'boxcoxstat[flower]'") from err

__all__ = ["server_app", "client_app", "FlowerTransport", "serve", "MESSAGE_TYPE"]

MESSAGE_TYPE = "query"
_SERVED: dict[str, Any] = {}  # in-process data by key (tests, notebooks)


def serve(key: str, data: Any) -> None:
    """Register ``data`` (a DataFrame, Series or array) for a ClientApp whose node config
    says ``data="mem:<key>"``."""
    _SERVED[key] = data


class FlowerTransport:
    """The coordinator's transport over a Flower ``Grid`` (see the module doc)."""

    def __init__(self, grid: Grid, node_ids: list[int]):
        self.grid = grid
        self.ids = {f"node {nid}": int(nid) for nid in node_ids}

    def labels(self) -> list[str]:
        return list(self.ids)

    def call(self, labels: list[str], message: Any, timeout: float | None
             ) -> dict[str, tuple[str | None, str | None]]:
        text = message.to_json()
        msgs = [Message(content=RecordDict({"msg": ConfigRecord({"json": text})}),
                        dst_node_id=self.ids[lab], message_type=MESSAGE_TYPE)
                for lab in labels]
        t0 = time.monotonic()
        replies = self.grid.send_and_receive(msgs, timeout=timeout)
        out: dict[str, tuple[str | None, str | None]] = {}
        for rep in replies:
            lab = f"node {rep.metadata.src_node_id}"
            if lab not in self.ids:
                continue  # not a node of this run: ignored
            if rep.has_error():
                out[lab] = (None, f"failed on its node: {rep.error.reason}")
                continue
            try:
                body = rep.content["msg"]["json"]
            except Exception:
                out[lab] = (None, "sent a reply without the protocol's message")
                continue
            out[lab] = ((body, None) if isinstance(body, str)
                        else (None, "sent a reply whose message is not text"))
        waited = time.monotonic() - t0
        for lab in labels:
            if lab not in out:
                out[lab] = (None, f"did not answer within {waited:.3g} s")
        return out


# ------------------------------------------------------------------ ServerApp
server_app = ServerApp()


@server_app.main()
def _server_main(grid: Grid, context: Context) -> None:
    cfg = dict(context.run_config)
    want = int(cfg.get("min-nodes", 1))
    t0 = time.monotonic()
    node_ids: list[int] = []
    while time.monotonic() - t0 < float(cfg.get("wait-nodes", 60.0)):
        node_ids = sorted(grid.get_node_ids())
        if len(node_ids) >= want:
            break
        time.sleep(0.5)
    from .model import check_limits, fit_with

    deadline, max_bytes = check_limits(cfg.get("deadline") or None,
                                       int(cfg.get("max-message-bytes",
                                                   DEFAULT_MAX_MESSAGE_BYTES)))
    coord = Coordinator(FlowerTransport(grid, node_ids),
                        on_bad_client=str(cfg.get("on-bad-client", "drop")),
                        timeout=float(cfg.get("timeout", 30.0)), deadline=deadline,
                        max_message_bytes=max_bytes)
    out = str(cfg.get("out", ""))
    try:
        result = fit_with(coord, str(cfg.get("family", "boxcox")), ymax=None,
                          screen=float(cfg["screen"]) if cfg.get("screen") else 3.0,
                          on_influential="report")
        doc = {"ok": True, "result": json.loads(result.to_json())}
    except BoxCoxError as err:
        doc = {"ok": False, "error": str(err), "dropped": dict(coord.tally.dropped)}
    if out:
        Path(out).write_text(json.dumps(doc))


# ------------------------------------------------------------------ ClientApp
client_app = ClientApp()
_CLIENTS: dict[str, Client] = {}


def _site(context: Context) -> Client:
    cfg = dict(context.node_config)
    src = str(cfg.get("data", ""))
    if src in _CLIENTS:
        return _CLIENTS[src]
    if src.startswith("mem:"):
        data = _SERVED[src[4:]]
    else:
        frame = pd.read_csv(src)
        col = cfg.get("column")
        data = frame[str(col)] if col else frame.select_dtypes(include=[np.number])
    family = str(cfg.get("family", "auto"))
    _CLIENTS[src] = Client(data, family=family)
    return _CLIENTS[src]


@client_app.query()
def _client_query(msg: Message, context: Context) -> Message:
    text = msg.content["msg"]["json"]
    cfg = dict(context.node_config)
    fault = str(cfg.get("fault", ""))  # for the demo and tests: a faulty or silent site
    if fault == "silent":
        time.sleep(float(cfg.get("silent-seconds", 3600)))
    req = message_from_json(str(text))
    client = _site(context)
    if isinstance(req, CountsRequest):
        rep: Any = client.counts(req)
    elif isinstance(req, LambdaRequest):
        rep = client.answer(req)
        if fault == "crash" and req.round >= 2:
            raise RuntimeError("this site crashes from round 2 on")
        if fault == "lie":
            rep = type(rep)(rep.client, rep.c, rep.n_pos, rep.n_neg, rep.mean,
                            tuple(-abs(v) - 1.0 for v in rep.s), rep.column, rep.round)
    else:
        raise BoxCoxError(f"unexpected message {type(req).__name__}")
    return Message(RecordDict({"msg": ConfigRecord({"json": rep.to_json()})}), reply_to=msg)
