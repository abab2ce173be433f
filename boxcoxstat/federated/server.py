"""The coordinator: calls the clients, checks their messages, merges them, counts the cost.

One *round* is one broadcast of a :class:`~.messages.Request` (one
lambda, or a batch of lambdas in grid mode and for inference) followed by every client's
reply. The set-up exchange of a column (counts and ranges up, the frame down) is counted as
round 0. Every call to a client runs in a worker thread and is waited for at most
``timeout`` seconds; whatever a client does -- raise, hang, send a malformed or an
inconsistent message (:mod:`~boxcoxstat.federated.checks`) -- ends the fit with a
:class:`~boxcoxstat.BoxCoxError` naming it, or leaves it out under ``on_bad_client="drop"``.

The server names every client itself (:func:`client_label`: ``"#<i>"``, its place in the
list, and its name where it has one), so reports never merge two clients; it hands each
client its own copy of every message and keeps its own copy of every answer, so no client
can change what the others or the server see. :meth:`Server.evaluate_subsets` evaluates
leave-one-out subsets in one round, for the influence screen
(:mod:`~boxcoxstat.federated.influence`). Nothing here depends on the transport: a remote
client is any object with the :class:`ClientLike` methods.
"""

from __future__ import annotations

import math
import queue
import threading
from concurrent.futures import Future, wait
from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from .._validation.columns import BoxCoxError, ColumnReport, check_column, check_option
from ..core.likelihood import SideMoments
from .checks import SideBounds, check_consistent, check_reply, check_setup, check_side
from .messages import Frame, MomentsReply, Request, SetupReport, SideStats
from .protocol import GlobalFrame, global_nll_score, stats_to_moments, tree_merge

__all__ = ["ClientLike", "Server", "ClientDropped", "DEFAULT_TIMEOUT", "PROTOCOLS", "client_label"]

DEFAULT_TIMEOUT = 60.0  # seconds a client may take to answer one call
PROTOCOLS = ("full", "minimal")


class ClientLike(Protocol):
    """What the server needs from a client (a :class:`~.client.Client` or a remote proxy).

    ``setup`` is called without arguments for the first column (a one-column client may
    ignore columns altogether) and with ``column=j`` for the others.
    """

    name: str | None

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


def _describe(err: BaseException) -> str:
    return str(err) if isinstance(err, BoxCoxError) else f"{type(err).__name__}: {err}"


def _name(client: Any) -> str | None:
    """The name a client gives itself (``None``: unnamed)."""
    try:
        name = client.name
    except Exception:  # a proxy whose name itself fails
        return f"<{type(client).__name__} without a name>"
    return None if name is None or name == "" else str(name)


def client_label(index: int, client: Any) -> str:
    """How reports and errors name a client: ``#<index>`` (its place in the list the server
    was given, 0-based) and its name where it has one, e.g. ``"#3 site B"`` or ``"#0"``.

    The index is the server's: two clients with the same name, or none, stay apart.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.federated import Client
    >>> from boxcoxstat.federated.server import client_label
    >>> client_label(3, Client(np.ones(2), name="site B")), client_label(0, Client(np.ones(2)))
    ('#3 site B', '#0')
    """
    name = _name(client)
    return f"#{index}" if name is None else f"#{index} {name}"


def _own_copy(arg: Any) -> Any:
    """What one client is handed: its own copy of a message (a client that changes the
    object it was given, even with ``object.__setattr__``, changes nothing for the server or
    the other clients; the message's fields are tuples of floats, immutable)."""
    if is_dataclass(arg) and not isinstance(arg, type):
        return replace(arg)
    return arg


def _snapshot(rep: Any) -> Any:
    """The server's own copy of a reply, taken when it arrives (a client cannot change it
    afterwards, between its checks and its use); sequences become tuples."""
    def seq(v: Any) -> Any:
        return tuple(v) if isinstance(v, (list, tuple, np.ndarray)) else v

    def side(st: Any) -> Any:
        if not isinstance(st, SideStats):
            return st
        return SideStats(st.n, st.c, *(seq(getattr(st, f)) for f in
                                       ("d_sum", "mean", "s", "mean_chi", "c2")))

    if isinstance(rep, SetupReport):
        return SetupReport(**{f.name: seq(getattr(rep, f.name)) for f in fields(SetupReport)})
    if not isinstance(rep, MomentsReply):
        return rep
    return MomentsReply(rep.client, side(rep.pos), side(rep.neg), rep.column, rep.round)


def _only(m: SideMoments, keep: NDArray[np.bool_]) -> SideMoments:
    """``m`` with its count and sums set to zero where ``keep`` is False (an empty chunk,
    which merges exactly: ``n = 0`` carries no weight in Chan et al.'s formulas)."""
    def z(a: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.where(keep, a, 0.0)

    return replace(m, W=z(m.W), wv=z(m.wv), d_sum=z(m.d_sum), mean_phi=z(m.mean_phi),
                   m2=z(m.m2), mean_chi=z(m.mean_chi), c2=z(m.c2))


class _Worker:
    """One client's daemon thread: runs its calls one at a time, answers into futures."""

    def __init__(self, client: Any):
        self.client = client
        self.queue: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=self._loop, daemon=True, name="boxcoxstat-client").start()

    def _loop(self) -> None:
        while True:
            item = self.queue.get()
            if item is None:
                return
            fut, method, args = item
            try:
                fut.set_result(getattr(self.client, method)(*args))
            except BaseException as err:  # handed to the server, which decides
                fut.set_exception(err)

    def submit(self, method: str, args: tuple) -> Future:
        fut: Future = Future()
        self.queue.put((fut, method, args))
        return fut

    def stop(self) -> None:
        self.queue.put(None)


def _guarded(check: Any, *args: Any) -> str | None:
    """A check that cannot crash the server: a message whose fields fail to read (a
    hostile subclass, a property that raises) is refused like any other bad message."""
    try:
        return check(*args)
    except Exception as err:
        return f"sent a message the server cannot read ({type(err).__name__}: {err})"


def check_timeout(timeout: Any) -> float | None:
    """``None`` (wait) or a positive number of seconds."""
    if timeout is None:
        return None
    if (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
            or not math.isfinite(timeout) or timeout <= 0):
        raise BoxCoxError(f"timeout must be a positive number of seconds or None (wait), got "
                          f"{timeout!r}")
    return float(timeout)


class Server:
    """Runs the protocol with a list of clients.

    Parameters
    ----------
    clients : list of ClientLike
    family : {"boxcox", "yeojohnson"}
        The family of the first column's fit (:meth:`setup` takes another).
    on_bad_client : {"raise", "drop"}, default="raise"
        A client whose message fails the checks, raises, or does not answer in time either
        stops the fit with a :class:`~boxcoxstat.BoxCoxError` naming it, or is left out (and
        listed in the result's ``federated["dropped"]``); a fit in progress then restarts
        without it.
    timeout : float or None, default=60
        Seconds each client may take per call; ``None`` waits for ever.
    protocol : {"full", "minimal"}, default="full"
        ``"minimal"``: requests carry the lambda only and replies ``(n, c, mean, s)`` per side
        (Xu & Cormode 2025, Algorithms 2-3); NLL values only.
    """

    def __init__(self, clients: list[ClientLike], family: str, on_bad_client: str = "raise",
                 *, timeout: float | None = DEFAULT_TIMEOUT, protocol: str = "full"):
        check_option("on_bad_client", on_bad_client, ("raise", "drop"))
        check_option("protocol", protocol, PROTOCOLS)
        self.timeout = check_timeout(timeout)
        self.family = family
        self.on_bad_client = on_bad_client
        self.minimal = protocol == "minimal"
        self.tally = _Tally()
        self.clients: list[ClientLike] = []
        self.labels: dict[int, str] = {}  # by id() of the client: "#<entry> <name>"
        for i, c in enumerate(clients):
            label = client_label(i, c)
            if id(c) in self.labels:  # the same object twice would be merged twice
                why = (f"is the same object as client {self.labels[id(c)]!r}; pass each "
                       "client once")
                if self.on_bad_client == "raise":
                    raise BoxCoxError(f"client {label!r} {why}")
                self.tally.dropped[label] = why
                continue
            self.labels[id(c)] = label
            self.clients.append(c)
        self.active: list[ClientLike] = []
        self.reports: dict[int, SetupReport] = {}  # this column's, by id() of the client
        self.counts: dict[int, tuple[int, int]] = {}
        self.frame: GlobalFrame | None = None
        self.column = 0
        self.n_missing = 0
        self.ncols: int | None = None
        self.names: tuple[str, ...] | None = None
        self.ranges: tuple[tuple[float, float] | None, tuple[float, float] | None] = (None,
                                                                                    None)
        self._dropped_ids: set[int] = set()
        self._c_seen: dict[tuple, float] = {}
        self._bounds: dict[tuple, SideBounds] = {}
        self._round_no = 0
        self._workers: dict[int, _Worker] = {}

    # ------------------------------------------------------------------ calls
    def close(self) -> None:
        """Stop the idle worker threads (a client still busy finishes on its own)."""
        for w in getattr(self, "_workers", {}).values():
            w.stop()
        getattr(self, "_workers", {}).clear()

    def __del__(self) -> None:
        self.close()

    def _call_all(self, clients: list[ClientLike], method: str, *args: Any,
                  what: str) -> list[tuple[ClientLike, Any, str | None]]:
        """Call ``method`` of every client, each in its own worker thread, and wait at most
        ``timeout`` seconds; (client, answer, why-bad) in the clients' order.

        Every client has one daemon worker thread, reused from call to call: a client that
        never returns is abandoned with its thread (it cannot be stopped; it is dropped or
        the fit ends) and keeps neither the fit nor the interpreter's exit waiting.
        """
        futures: list[Future] = []
        for c in clients:
            worker = self._workers.get(id(c))
            if worker is None:
                worker = self._workers[id(c)] = _Worker(c)
            futures.append(worker.submit(method, tuple(_own_copy(a) for a in args)))
        _, pending = wait(futures, timeout=self.timeout)
        out: list[tuple[ClientLike, Any, str | None]] = []
        for c, f in zip(clients, futures, strict=True):
            if f in pending:
                out.append((c, None, f"did not answer within {self.timeout:g} s {what}"))
                continue
            err = f.exception()
            if err is not None:  # a remote client's failure must not crash the server
                out.append((c, None, f"failed {what}: {_describe(err)}"))
            else:
                try:  # the server's own copy: the client cannot change it from now on
                    out.append((c, _snapshot(f.result()), None))
                except Exception as exc:  # fields that fail to read (a hostile subclass)
                    out.append((c, None, "sent a message the server cannot read "
                                         f"({type(exc).__name__}: {exc})"))
        return out

    # ------------------------------------------------------------------ problems
    def label(self, client: ClientLike) -> str:
        """The server's name for ``client`` (see :func:`client_label`)."""
        return self.labels[id(client)]

    def _bad(self, client: ClientLike, why: str) -> None:
        label = self.label(client)
        if self.on_bad_client == "raise":
            raise BoxCoxError(f"client {label!r} {why}; fix it or pass on_bad_client='drop'")
        self.drop(client, why)

    def drop(self, client: ClientLike, why: str) -> None:
        """Leave ``client`` out of this fit from now on, reported with ``why``."""
        self.tally.dropped[self.label(client)] = why
        self._dropped_ids.add(id(client))

    # ------------------------------------------------------------------ round 0
    def _declared(self, reports: list[tuple[ClientLike, SetupReport]]) -> list[tuple]:
        """Clients must agree on the number and names of their columns: the most common
        declaration (the first on a tie) is the reference, set at the first column."""
        if self.ncols is None:
            decl = [(r.ncols, None if r.columns is None else tuple(r.columns))
                    for _, r in reports]
            named = [d for d in decl if d[1] is not None]
            pool = named or decl
            best = max(pool, key=lambda d: (sum(e[0] == d[0] for e in decl), -pool.index(d)))
            self.ncols, self.names = best
        kept = []
        for c, r in reports:
            why = None
            if r.ncols != self.ncols:
                why = f"holds {r.ncols} column(s) where the other clients hold {self.ncols}"
            elif (r.columns is not None and self.names is not None
                  and tuple(r.columns) != tuple(self.names)):
                why = (f"names its columns {list(r.columns)} where the other clients name "
                       f"them {list(self.names)}")
            if why:
                self._bad(c, why)
            else:
                kept.append((c, r))
        return kept

    def setup(self, column: int = 0, family: str | None = None) -> GlobalFrame:
        """Collect the counts and ranges of ``column``, choose its frame and broadcast it."""
        if family is not None:
            self.family = family
        if column == 0:
            self.ncols, self.names = None, None
        self.column = column
        clients = [c for c in self.clients if id(c) not in self._dropped_ids]
        answers = (self._call_all(clients, "setup", what="at set-up") if column == 0 else
                   self._call_all(clients, "setup", column, what="at set-up"))
        reports = []
        for c, rep, why in answers:
            if why is None:
                why = _guarded(check_setup, rep, self.family, column)
            if why:
                self._bad(c, why)
                continue
            reports.append((c, rep))
            self.tally.bytes_up += rep.nbytes
        reports = self._declared(reports) if reports else reports
        if not reports:
            raise BoxCoxError("no usable client: every client was empty or invalid")
        if column > 0 and len(reports) < len(clients):
            raise ClientDropped  # it was in the earlier columns' fits: refit all without it
        self.active = [c for c, _ in reports]
        self.reports = {id(c): r for c, r in reports}
        self.counts = {id(c): (r.n_pos, r.n_neg) for c, r in reports}
        self.n_missing = sum(r.n_missing for _, r in reports)
        pr = [r.pos_range for _, r in reports if r.pos_range is not None]
        nr = [r.neg_range for _, r in reports if r.neg_range is not None]
        prange = (min(a for a, _ in pr), max(b for _, b in pr)) if pr else None
        nrange = (min(a for a, _ in nr), max(b for _, b in nr)) if nr else None
        self.ranges = (prange, nrange)
        lo = nrange[0] if nrange else prange[0]  # type: ignore[index]
        hi = prange[1] if prange else nrange[1]  # type: ignore[index]
        pooled = ColumnReport(n_finite=sum(r.n_pos + r.n_neg for _, r in reports), lo=lo,
                              hi=hi, n_missing=self.n_missing)
        check_column(pooled, self.column_name(column), family=self.family,  # as in memory
                     tiny_scale=True)
        return self.broadcast_frame(self.family)

    def column_name(self, column: int) -> str:
        if self.names is not None:
            return self.names[column]
        return "x" if (self.ncols or 1) == 1 else f"x{column}"

    def broadcast_frame(self, family: str) -> GlobalFrame:
        """Send the frame of the current column for ``family`` to every active client."""
        self.family = family
        self.frame = GlobalFrame.from_ranges(family, *self.ranges)
        self._bounds.clear()  # both depend on the frame's reference
        self._c_seen.clear()
        msg = self.frame.message(self.column, self.minimal)
        for c, _, why in self._call_all(self.active, "receive_frame", msg,
                                        what="to take the frame"):
            self.tally.bytes_down += msg.nbytes
            if why:
                self._bad(c, why)
        if any(id(c) in self._dropped_ids for c in self.active):
            self.frame = None
            raise ClientDropped
        return self.frame

    @property
    def nobs(self) -> int:
        return sum(a + b for a, b in self.counts.values())

    @property
    def global_range(self) -> tuple[float, float]:
        """Smallest and largest value of the current column over the active clients."""
        prange, nrange = self.ranges
        lo = nrange[0] if nrange else prange[0]  # type: ignore[index]
        hi = prange[1] if prange else nrange[1]  # type: ignore[index]
        return float(lo), float(hi)

    # ------------------------------------------------------------------ rounds
    def evaluate(
        self, lmbda: NDArray[np.float64], *, score: bool = True,
        score_unit: NDArray[np.float64] | None = None,
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """One round: NLL and score (NaN unless ``score`` under the full protocol) at every
        lambda in ``lmbda`` (the score in ``lambda * score_unit`` where that is given)."""
        lam, req, parts = self._round(lmbda, score)
        pos = [p for p, _ in parts if p is not None]
        neg = [q for _, q in parts if q is not None]
        return self._nll_score(tree_merge(pos), tree_merge(neg), lam, req, score_unit)

    def evaluate_subsets(
        self, lmbda: NDArray[np.float64], members: NDArray[np.bool_], *, score: bool = True,
        score_unit: NDArray[np.float64] | None = None,
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """One round: the NLL and score of the clients ``members[j]`` (a row of flags over
        :attr:`active`) at ``lmbda[j]``, for every ``j`` (leave-one-out fits; each subset
        must hold values).

        Every client sends its moments at all the lambdas; for each, the server merges the
        moments of the members only (a left-out client's count and sums are set to zero, and
        merging a zero chunk is exact, Chan et al. 1982). The frame is the one of all active
        clients: it is common to every subset, so their moments merge as they are.
        """
        lam, req, parts = self._round(lmbda, score)
        keep = np.asarray(members, dtype=bool).reshape(lam.size, len(parts))
        sides = []
        for s in (0, 1):
            ms = []
            for i, part in enumerate(parts):
                m = part[s]
                if m is not None:
                    ms.append(_only(m, keep[:, i]))
            sides.append(tree_merge(ms))
        return self._nll_score(sides[0], sides[1], lam, req, score_unit)

    def _nll_score(self, pos: SideMoments | None, neg: SideMoments | None,
                   lam: NDArray[np.float64], req: Request,
                   score_unit: NDArray[np.float64] | None,
                   ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        assert self.frame is not None
        val, sc = global_nll_score(pos, neg, lam, self.frame.unit, score_unit)
        if not req.score:
            sc = np.full_like(val, np.nan)
        return val, sc

    def _round(self, lmbda: NDArray[np.float64], score: bool) -> tuple[
            NDArray[np.float64], Request, list[tuple[SideMoments | None, SideMoments | None]]]:
        """Broadcast one request at ``lmbda``, check every reply: the lambdas, the request
        and each active client's moments per side (a refused client ends the round with
        :class:`ClientDropped` under ``on_bad_client="drop"``)."""
        if self.frame is None:
            self.setup(self.column)
        assert self.frame is not None
        lam = np.atleast_1d(np.asarray(lmbda, dtype=np.float64))
        if not np.all(np.isfinite(lam)):
            raise BoxCoxError("the optimiser asked for a non-finite lambda")
        self._round_no += 1
        req = self.frame.request(lam.tolist(), score, column=self.column,
                                 round=self._round_no, minimal=self.minimal)
        self.tally.rounds += 1
        self.tally.evaluations += lam.size
        parts: list[tuple[SideMoments | None, SideMoments | None]] = []
        dropped = False
        answers = self._call_all(self.active, "respond", req, what="to answer")
        self.tally.bytes_down += req.nbytes * len(answers)
        whys = self._check_replies(answers, req)
        for (c, rep, _), why in zip(answers, whys, strict=True):
            if why:
                self._bad(c, why)
                dropped = True
                continue
            self.tally.bytes_up += rep.nbytes
            parts.append((
                None if rep.pos is None or self.frame.pos is None
                else stats_to_moments(rep.pos, self.frame.pos, req),
                None if rep.neg is None or self.frame.neg is None
                else stats_to_moments(rep.neg, self.frame.neg, req)))
        if dropped:
            self.frame = None
            raise ClientDropped
        return lam, req, parts

    def _check_replies(self, answers: list[tuple[ClientLike, Any, str | None]],
                       req: Request) -> list[str | None]:
        """Why each reply of a round is refused (``None``: accepted): its form client by
        client, then the consistency of each side's numbers for all clients at once."""
        assert self.frame is not None
        lam = np.asarray(req.lmbda, dtype=np.float64)
        plabel = "x >= 0" if self.family != "boxcox" else "x > 0"
        whys: list[str | None] = []
        for c, rep, why in answers:
            if why is None:
                why = _guarded(check_reply, rep, req, self.label(c))
            if why is None:
                r = self.reports[id(c)]
                why = _guarded(lambda rep=rep, r=r: (
                    check_side(rep.pos, r.n_pos, req, self.minimal, plabel)
                    or check_side(rep.neg, r.n_neg, req, self.minimal, "x < 0")))
            whys.append(why)
        for side, kappa, label, attr, rattr in (
                (self.frame.pos, lam, plabel, "pos", "pos_range"),
                (self.frame.neg, 2.0 - lam, "x < 0", "neg", "neg_range")):
            if side is None:
                continue
            idx, items = [], []
            for i, ((c, rep, _), why) in enumerate(zip(answers, whys, strict=True)):
                st = None if why else getattr(rep, attr)
                if st is None:
                    continue
                key = (id(c), self.column, self.family, label)
                bounds = self._bounds.get(key)
                if bounds is None:
                    rng = getattr(self.reports[id(c)], rattr)
                    bounds = self._bounds[key] = SideBounds.of(side, rng)
                idx.append(i)
                items.append((st, bounds, self._c_seen.get(key)))
            found = check_consistent(items, req, side.shift(kappa * side.unit), req.score,
                                     label)
            for i, why in zip(idx, found, strict=True):
                if why and whys[i] is None:
                    whys[i] = why
        for (c, rep, _), why in zip(answers, whys, strict=True):
            if why is None:
                for st, label in ((rep.pos, plabel), (rep.neg, "x < 0")):
                    if st is not None:
                        self._c_seen.setdefault((id(c), self.column, self.family, label),
                                                float(st.c))
        return whys

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
