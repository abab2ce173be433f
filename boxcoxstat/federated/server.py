"""The coordinator: validates the clients' messages, merges them and counts the cost.

Layer 6 (``federated``). One *round* is one broadcast of a :class:`~.messages.Request` (one
lambda, or a batch of lambdas in grid mode and for inference) followed by every client's
reply. The set-up exchange (counts and ranges up, the frame down) is counted as round 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from .._validation import BoxCoxError, ColumnReport, check_column, check_option
from ..core.likelihood import SideMoments
from .messages import Frame, MomentsReply, Request, SetupReport, SideStats, finite
from .protocol import GlobalFrame, global_nll_score, stats_to_moments, tree_merge

__all__ = ["ClientLike", "Server", "ClientDropped"]


class ClientLike(Protocol):
    """What the server needs from a client (a :class:`~.client.Client` or a remote proxy)."""

    name: str

    def setup(self) -> SetupReport: ...

    def receive_frame(self, frame: Frame) -> None: ...

    def respond(self, request: Request) -> MomentsReply: ...


class ClientDropped(Exception):
    """Internal: a client was dropped mid-fit; the fit restarts without it."""


@dataclass
class _Tally:
    rounds: int = 0
    evaluations: int = 0
    bytes_up: int = 0
    bytes_down: int = 0
    dropped: dict[str, str] = field(default_factory=dict)


def _check_setup(rep: Any, family: str) -> str | None:
    """What is wrong with a setup report (``None`` if nothing)."""
    if not isinstance(rep, SetupReport):
        return f"sent {type(rep).__name__} instead of a SetupReport"
    for name in ("n_pos", "n_neg", "n_missing"):
        v = getattr(rep, name)
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 0:
            return f"reported an invalid count {name}={v!r} (counts must be integers >= 0)"
    if rep.n_pos + rep.n_neg == 0:
        return "holds no values (empty client)"
    for name, n, rng in (("x >= 0", rep.n_pos, rep.pos_range),
                         ("x < 0", rep.n_neg, rep.neg_range)):
        if (n > 0) != (rng is not None):
            return f"reported inconsistent counts and range for the {name} side"
        if rng is None:
            continue
        if len(rng) != 2 or not finite(*rng):
            return f"reported a non-finite range {rng!r} for the {name} side"
        if rng[0] > rng[1]:
            return f"reported min > max ({rng!r}) for the {name} side"
    if rep.pos_range is not None and rep.pos_range[0] < 0:
        return "reported a negative minimum for the x >= 0 side"
    if rep.neg_range is not None and rep.neg_range[1] >= 0:
        return "reported a maximum >= 0 for the x < 0 side"
    if family == "boxcox":
        if rep.n_neg or (rep.pos_range is not None and rep.pos_range[0] <= 0):
            return "holds values <= 0; Box-Cox needs positive data (use family='yeojohnson')"
    return None


def _check_side(st: Any, n: int, L: int, score: bool, label: str) -> str | None:
    if n == 0:
        return None if st is None else f"sent moments for its empty {label} side"
    if not isinstance(st, SideStats):
        return f"sent no moments for its {label} side ({n} values reported)"
    if st.n != n:
        return f"sent inconsistent counts: {st.n} on the {label} side, {n} reported at set-up"
    seqs = [st.d_sum, st.mean, st.s] + ([st.mean_chi, st.c2] if score else [])
    if any(len(q) != L for q in seqs) or not finite(st.c, *seqs):
        return f"sent non-finite or malformed moments on the {label} side"
    if min(st.s) < 0:
        return f"sent a negative sum of squares on the {label} side"
    return None


def _describe(err: Exception) -> str:
    return str(err) if isinstance(err, BoxCoxError) else f"{type(err).__name__}: {err}"


class Server:
    """Runs the protocol with a list of clients.

    Parameters
    ----------
    clients : list of ClientLike
    family : {"boxcox", "yeojohnson"}
    on_bad_client : {"raise", "drop"}, default="raise"
        A client whose message fails the checks either stops the fit with a
        :class:`~boxcoxstat.BoxCoxError` naming it, or is left out (and listed in the
        result's ``federated["dropped"]``); a fit in progress then restarts without it.
    """

    def __init__(self, clients: list[ClientLike], family: str, on_bad_client: str = "raise"):
        check_option("on_bad_client", on_bad_client, ("raise", "drop"))
        self.clients = list(clients)
        self.family = family
        self.on_bad_client = on_bad_client
        self.tally = _Tally()
        self.active: list[ClientLike] = []
        self.counts: dict[int, tuple[int, int]] = {}  # by id() of the client
        self.frame: GlobalFrame | None = None
        self.n_missing = 0
        self._dropped_ids: set[int] = set()

    # ------------------------------------------------------------------ problems
    def _bad(self, client: ClientLike, why: str) -> None:
        name = getattr(client, "name", repr(client))
        if self.on_bad_client == "raise":
            raise BoxCoxError(f"client {name!r} {why}; fix it or pass on_bad_client='drop'")
        self.tally.dropped[str(name)] = why
        self._dropped_ids.add(id(client))

    # ------------------------------------------------------------------ round 0
    def setup(self) -> GlobalFrame:
        """Collect counts and ranges, choose the frame and broadcast it."""
        reports = []
        for c in self.clients:
            if id(c) in self._dropped_ids:
                continue
            try:
                rep = c.setup()
            except Exception as err:  # a remote client's failure must not crash the server
                self._bad(c, f"failed at set-up: {_describe(err)}")
                continue
            why = _check_setup(rep, self.family)
            if why:
                self._bad(c, why)
                continue
            reports.append((c, rep))
            self.tally.bytes_up += rep.nbytes
        if not reports:
            raise BoxCoxError("no usable client: every client was empty or invalid")
        self.active = [c for c, _ in reports]
        self.counts = {id(c): (r.n_pos, r.n_neg) for c, r in reports}
        self.n_missing = sum(r.n_missing for _, r in reports)
        pr = [r.pos_range for _, r in reports if r.pos_range is not None]
        nr = [r.neg_range for _, r in reports if r.neg_range is not None]
        prange = (min(a for a, _ in pr), max(b for _, b in pr)) if pr else None
        nrange = (min(a for a, _ in nr), max(b for _, b in nr)) if nr else None
        lo = nrange[0] if nrange else prange[0]  # type: ignore[index]
        hi = prange[1] if prange else nrange[1]  # type: ignore[index]
        pooled = ColumnReport(n_finite=sum(r.n_pos + r.n_neg for _, r in reports), lo=lo,
                              hi=hi, n_missing=self.n_missing)
        check_column(pooled, "x", family=self.family)  # the pooled column, as in memory
        self.frame = GlobalFrame.from_ranges(self.family, prange, nrange)
        msg = self.frame.message()
        for c in self.active:
            c.receive_frame(msg)
            self.tally.bytes_down += msg.nbytes
        return self.frame

    @property
    def nobs(self) -> int:
        return sum(a + b for a, b in self.counts.values())

    # ------------------------------------------------------------------ rounds
    def evaluate(
        self, lmbda: NDArray[np.float64], *, score: bool = True
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """One round: NLL and score (NaN unless ``score``) at every lambda in ``lmbda``."""
        if self.frame is None:
            self.setup()
        assert self.frame is not None
        lam = np.atleast_1d(np.asarray(lmbda, dtype=np.float64))
        if not np.all(np.isfinite(lam)):
            raise BoxCoxError("the optimiser asked for a non-finite lambda")
        req = self.frame.request(lam.tolist(), score)
        self.tally.rounds += 1
        self.tally.evaluations += lam.size
        pos: list[SideMoments] = []
        neg: list[SideMoments] = []
        dropped = False
        for c in self.active:
            self.tally.bytes_down += req.nbytes
            why = None
            try:
                rep = c.respond(req)
            except Exception as err:  # a remote client's failure must not crash the server
                rep, why = None, f"failed to answer: {_describe(err)}"
            if why is None:
                why = self._check_reply(c, rep, lam.size, score)
            if why:
                self._bad(c, why)
                dropped = True
                continue
            assert rep is not None
            self.tally.bytes_up += rep.nbytes
            if rep.pos is not None and self.frame.pos is not None:
                pos.append(stats_to_moments(rep.pos, self.frame.pos, req))
            if rep.neg is not None and self.frame.neg is not None:
                neg.append(stats_to_moments(rep.neg, self.frame.neg, req))
        if dropped:
            self.frame = None
            raise ClientDropped
        val, sc = global_nll_score(tree_merge(pos), tree_merge(neg), lam)
        if not score:
            sc = np.full_like(val, np.nan)
        return val, sc

    def _check_reply(self, c: ClientLike, rep: Any, L: int, score: bool) -> str | None:
        if not isinstance(rep, MomentsReply):
            return f"sent {type(rep).__name__} instead of a MomentsReply"
        n_pos, n_neg = self.counts[id(c)]
        plabel = "x >= 0" if self.family != "boxcox" else "x > 0"
        return (_check_side(rep.pos, n_pos, L, score, plabel)
                or _check_side(rep.neg, n_neg, L, score, "x < 0"))

    def info(self) -> dict[str, Any]:
        """Cost and membership of the fit so far."""
        t = self.tally
        return {
            "clients": len(self.active),
            "dropped": dict(t.dropped),
            "rounds": t.rounds,
            "evaluations": t.evaluations,
            "bytes_up": t.bytes_up,
            "bytes_down": t.bytes_down,
        }
