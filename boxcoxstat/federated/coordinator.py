"""The server of the paper's protocol, independent of the transport (threads or Flower).

:class:`Coordinator` runs ``protocol="minimal"`` (the default of
:func:`boxcoxstat.federated.fit`) over any :class:`Transport`: the in-process one
(:class:`LocalTransport`, the clients are Python objects called from worker threads) or
Flower's (:mod:`boxcoxstat.federated.flower`, the clients are SuperNodes). Per column it asks
for counts, runs the rounds of :func:`~boxcoxstat.federated.paper.fit_column`, checks every
reply (:func:`~boxcoxstat.federated.paper.check_paper_reply`), screens the clients' influence
on the polish's stored moments, and records every message by round and kind
(:class:`~boxcoxstat.federated.paper.Tally`).

Limits: ``timeout`` seconds per round, ``deadline`` seconds for the whole fit (a
:class:`~boxcoxstat.BoxCoxError` when it passes), and ``max_message_bytes`` per reply on the
wire (a larger reply is refused before it is parsed). A client that fails, is silent past
the timeout or sends a refused message is reported by its id and the reason, and (under
``on_bad_client="drop"``) the fit restarts without it.
"""

from __future__ import annotations

import math
import time
from concurrent.futures import Future, wait
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from .._validation.columns import BoxCoxError
from ..core.likelihood import llf_constant
from ..univariate.model import auto_family
from .messages import CountsReport, CountsRequest, LambdaRequest, message_from_json
from .paper import (
    Evaluation,
    Frame,
    PaperFit,
    SiteView,
    Tally,
    check_paper_reply,
    fit_column,
    llf_of,
    outer_range,
    screen_effects,
    ymax_limits,
)

__all__ = ["Transport", "LocalTransport", "Coordinator", "DEFAULT_MAX_MESSAGE_BYTES",
           "ColumnOutcome"]

DEFAULT_MAX_MESSAGE_BYTES = 65536  # a reply of the paper's protocol is about 200 bytes


class Transport(Protocol):
    """How the coordinator reaches the clients."""

    def labels(self) -> list[str]:
        """The clients' ids (the engine's, e.g. Flower's node ids), in a fixed order."""

    def call(self, labels: list[str], message: Any, timeout: float | None
             ) -> dict[str, tuple[str | None, str | None]]:
        """Send ``message`` to each of ``labels`` and wait at most ``timeout`` seconds;
        per label ``(reply as JSON text, None)`` or ``(None, why it failed)``."""


def _weights_problem(r: CountsReport, family: str) -> str | None:
    """What is wrong with a weighted set-up report (``None``: nothing)."""
    if r.weight_sum is None or r.log_weight_sum is None:
        return "did not send its weight totals to a weighted fit"
    if not (math.isfinite(r.weight_sum) and r.weight_sum > 0
            and math.isfinite(r.log_weight_sum)):
        return "sent weight totals that are not finite and positive"
    one_signed = family == "boxcox" or r.n_neg == 0 or r.n_pos == 0
    fams = ("boxcox", "yeojohnson") if family == "auto" else (family,)
    for f in fams:
        if f == "boxcox" and (r.n_neg or r.n_zero):
            continue
        e = r.ratio_sum_boxcox if f == "boxcox" else r.ratio_sum_yeojohnson
        if one_signed and (e is None or not math.isfinite(e)):
            return f"did not send the sum of its log-ratios ({f}) to a weighted fit"
    return None


def site_view(r: Any, counts: CountsReport, family: str, weighted: bool) -> SiteView:
    """What the server keeps of a client's column: counts and ``c`` from its first reply,
    and under weights its totals from the set-up."""
    if not weighted:
        return SiteView(r.n_pos, r.n_neg or 0, float(r.c))
    e = counts.ratio_sum_boxcox if family == "boxcox" else counts.ratio_sum_yeojohnson
    return SiteView(r.n_pos, r.n_neg or 0, float(r.c), float(counts.weight_sum or 0.0),
                    float(counts.log_weight_sum or 0.0), e)


class _Restart(Exception):
    """Internal: a client was dropped; the fit restarts without it."""


class LocalTransport:
    """In-process clients (:class:`~boxcoxstat.federated.Client` or any object with
    ``counts`` and ``answer``), each called in its own daemon worker thread; replies travel
    as JSON text, as on a wire."""

    def __init__(self, clients: list[Any], labels: list[str]):
        from .server import _Worker

        self._clients = dict(zip(labels, clients, strict=True))
        self._workers = {lab: _Worker(c) for lab, c in self._clients.items()}
        self._labels = list(labels)

    def labels(self) -> list[str]:
        return list(self._labels)

    def call(self, labels: list[str], message: Any, timeout: float | None
             ) -> dict[str, tuple[str | None, str | None]]:
        method = "counts" if isinstance(message, CountsRequest) else "answer"
        futs: dict[str, Future] = {}
        for lab in labels:
            futs[lab] = self._workers[lab].submit(method, (message,))
        _, pending = wait(list(futs.values()), timeout=timeout)
        out: dict[str, tuple[str | None, str | None]] = {}
        for lab, f in futs.items():
            if f in pending:
                out[lab] = (None, f"did not answer within {timeout:g} s")
                continue
            err = f.exception()
            if err is not None:
                why = str(err) if isinstance(err, BoxCoxError) else \
                    f"{type(err).__name__}: {err}"
                out[lab] = (None, f"failed: {why}")
                continue
            try:
                out[lab] = (f.result().to_json(), None)
            except Exception as exc:  # not a message at all
                out[lab] = (None, f"sent something that is not a message "
                                  f"({type(exc).__name__}: {exc})")
        return out

    def close(self) -> None:
        for w in self._workers.values():
            w.stop()


@dataclass
class ColumnOutcome:
    """One column's fit: the family kept, its fit, the reason, lambda used and limits."""

    fit: PaperFit
    family: str
    reason: str
    lmbda_used: float
    llf: float
    limits: tuple[float, float]
    n_missing: int
    range_source: str
    # the values' range the resolution check uses: shared, or the outer range round 1 proves
    value_range: tuple[float, float] = (math.nan, math.nan)
    value_range_source: str = ""


class Coordinator:
    """Runs the paper's protocol over a transport (see the module doc)."""

    def __init__(self, transport: Transport, *, on_bad_client: str = "raise",
                 timeout: float | None = 60.0, deadline: float | None = None,
                 max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
                 share_range: bool = False, weighted: bool = False):
        self.transport = transport
        self.weighted = bool(weighted)
        self.on_bad_client = on_bad_client
        self.timeout = timeout
        self.deadline = deadline
        self.max_bytes = int(max_message_bytes)
        self.share_range = bool(share_range)
        self.tally = Tally()
        self.active = transport.labels()
        self.ncols: int | None = None
        self.names: tuple[str, ...] | None = None
        self._start = time.monotonic()

    # ------------------------------------------------------------ transport
    def _wait(self) -> float | None:
        if self.deadline is None:
            return self.timeout
        left = self.deadline - (time.monotonic() - self._start)
        if left <= 0:
            raise BoxCoxError(f"the fit passed its deadline of {self.deadline:g} s after "
                              f"{self.tally.rounds} rounds; raise deadline= or check the "
                              "clients")
        return left if self.timeout is None else min(left, self.timeout)

    def _bad(self, label: str, why: str) -> None:
        if self.on_bad_client == "raise":
            raise BoxCoxError(f"client {label!r} {why}; fix it or pass on_bad_client='drop'")
        self.tally.dropped[label] = why
        self.active = [a for a in self.active if a != label]

    def _exchange(self, message: Any, what: str) -> dict[str, Any]:
        """One exchange with every active client: the parsed replies of those that gave
        one; the others are reported (and dropped, or the fit stops)."""
        wait_for = self._wait()
        answers = self.transport.call(list(self.active), message, wait_for)
        if self.deadline is not None and time.monotonic() - self._start > self.deadline:
            raise BoxCoxError(f"the fit passed its deadline of {self.deadline:g} s after "
                              f"{self.tally.rounds} rounds; raise deadline= or check the "
                              "clients")
        out: dict[str, Any] = {}
        for lab in list(self.active):
            text, why = answers.get(lab, (None, "sent no reply"))
            if why is None and text is not None and len(text) > self.max_bytes:
                why = (f"sent a message of {len(text)} bytes, more than "
                       f"max_message_bytes={self.max_bytes}")
            if why is None:
                try:
                    out[lab] = message_from_json(text or "")
                except BoxCoxError as err:
                    why = str(err)
            if why is not None:
                self._bad(lab, f"{why} ({what})")
        return out

    # ------------------------------------------------------------ a column
    def _counts(self, column: int, family: str) -> dict[str, CountsReport]:
        req = CountsRequest(family, column, self.share_range, self.weighted)
        reps = self._exchange(req, f"at set-up of column {column}")
        good: dict[str, CountsReport] = {}
        for lab, r in reps.items():
            why = None
            if not isinstance(r, CountsReport):
                why = f"sent {type(r).__name__} instead of a CountsReport"
            elif r.column != column:
                why = f"reported on column {r.column} when column {column} was asked for"
            elif r.n_pos + r.n_neg == 0:
                why = "holds no values (empty client)"
            elif family == "boxcox" and r.n_neg:
                why = "holds values <= 0; Box-Cox needs positive data (use family='yeojohnson')"
            elif self.weighted and (why := _weights_problem(r, family)):
                pass
            elif self.share_range and (r.value_range is None or not all(
                    map(math.isfinite, r.value_range)) or r.value_range[0] > r.value_range[1]):
                why = "did not send a finite range (min <= max) under share_range=True"
            if why is None and column == 0 and self.ncols is None:
                pass
            if why:
                self._bad(lab, why)
            else:
                good[lab] = r
        if column == 0:
            decl = [(r.ncols, r.columns) for r in good.values()]
            if decl:
                best = max(decl, key=lambda d: (sum(e == d for e in decl), -decl.index(d)))
                self.ncols, self.names = best[0], best[1]
        for lab, r in list(good.items()):
            if (r.ncols, r.columns) != (self.ncols, self.names):
                self._bad(lab, f"holds columns {r.columns or r.ncols} where the other clients "
                               f"hold {self.names or self.ncols}")
                good.pop(lab)
        self.tally.rounds += 0
        self.tally.add(column, "counts", 0, {lab: r.nbytes // 8 for lab, r in good.items()})
        if sum(r.n_pos + r.n_neg for r in good.values()) < 3:
            raise BoxCoxError(f"column {self.column_name(column)!r} has fewer than 3 values "
                              "over the usable clients")
        if self.tally.dropped and self.on_bad_client == "drop" and len(good) != len(reps):
            pass
        return good

    def column_name(self, column: int) -> str:
        if self.names is not None:
            return self.names[column]
        return "x" if (self.ncols or 1) == 1 else f"x{column}"

    def _fit_family(self, column: int, family: str, counts: dict[str, CountsReport]
                    ) -> tuple[PaperFit, Evaluation | None]:
        labels = list(counts)
        views: dict[str, SiteView] = {}
        state: dict[str, Any] = {"frame": None}

        def round_fn(lams: list[float], kind: str):
            self.tally.rounds += 1
            req = LambdaRequest(family, tuple(lams), column, self.tally.rounds)
            reps = self._exchange(req, f"in round {self.tally.rounds}")
            dropped = False
            for lab in labels:
                r = reps.get(lab)
                if r is None:
                    dropped = True
                    continue
                why = check_paper_reply(r, req, views.get(lab), counts[lab].n_pos,
                                        counts[lab].n_neg, family, self.weighted)
                if why:
                    self._bad(lab, f"{why} (round {self.tally.rounds})")
                    dropped = True
            if dropped:
                raise _Restart
            self.tally.add(column, kind, len(lams), {lab: reps[lab].nbytes // 8
                                                     for lab in labels})
            if state["frame"] is None:
                for lab in labels:
                    r = reps[lab]
                    views[lab] = site_view(r, counts[lab], family, self.weighted)
                state["frame"] = Frame(family, [views[lab] for lab in labels])
            return [(np.asarray(reps[lab].mean), np.asarray(reps[lab].s)) for lab in labels]

        first = 0.0 if family == "boxcox" else 1.0
        replies = round_fn([first], "search")
        frame: Frame = state["frame"]
        st = [(float(m[0]), float(s[0])) for m, s in replies]
        seen: dict[float, Evaluation] = {}
        if any(math.isnan(m) for m, _ in st):
            seen[first] = Evaluation(first, math.inf, [], 0.0)
        else:
            with np.errstate(all="ignore"):
                parts, shift = frame.convert(first, st)
            seen[first] = Evaluation(first, frame.q(parts, frame.k(first), shift), parts,
                                     shift)
        if seen[first].q == -math.inf:
            raise BoxCoxError(f"column {self.column_name(column)!r}: the pooled values are "
                              "constant, or so close to 0 (below about 1e-150) that the "
                              "squares in the paper's messages underflow; lambda is not "
                              "identified (for data on a tiny scale use protocol='full')")
        fit = fit_column(round_fn, frame, evals=seen)
        fit.fit_rounds += 1
        return fit, seen[first]

    def fit(self, family: str, *, ymax: float | None = None, screen: float | None = 3.0,
            on_influential: str = "report", interval: bool = True
            ) -> tuple[list[ColumnOutcome], dict[str, float]]:
        """Every column (restarting without any client dropped on the way)."""
        flagged: dict[str, float] = {}
        left_out: dict[str, float] = {}
        for _ in range(1000):
            try:
                outs = []
                flagged = dict(left_out)
                column = 0
                while True:
                    outs.append(self._column(column, family, ymax, screen, on_influential,
                                             flagged, left_out, interval))
                    column += 1
                    if column >= (self.ncols or 1):
                        return outs, flagged
            except _Restart:
                if not self.active:
                    raise BoxCoxError("no usable client: every client was dropped") from None
                continue
        raise BoxCoxError("too many restarts")  # pragma: no cover

    def _column(self, column: int, family: str, ymax: float | None, screen: float | None,
                on_influential: str, flagged: dict[str, float], left_out: dict[str, float],
                interval: bool) -> ColumnOutcome:
        check = "yeojohnson" if family == "auto" else family
        before = len(self.active)
        counts = self._counts(column, family if family != "auto" else "auto")
        if len(counts) != len(self.active) or (column > 0 and len(self.active) < before):
            raise _Restart  # a client dropped here was in the earlier columns' fits: refit all
        fams = [check]
        positive = all(r.n_neg == 0 and not r.n_zero for r in counts.values())
        if family == "auto" and positive:
            fams.append("boxcox")
        fits: dict[str, tuple[PaperFit, Evaluation | None]] = {}
        for f in fams:
            fits[f] = self._fit_family(column, f, counts)
        chosen, reason = fams[0], ""
        if family == "auto":
            llf = {f: llf_of(p) for f, (p, _) in fits.items()}
            chosen, reason = auto_family(llf.get("boxcox"), llf["yeojohnson"])
        fit, first = fits[chosen]
        labels = list(counts)
        if screen is not None and len(labels) >= 3 and fit.converged:
            budget = (len(self.transport.labels()) - 1) // 2 - (
                len(left_out) if on_influential == "drop" else 0)
            found = screen_effects(fit, screen, budget, labels)
            if found and on_influential == "drop":
                name = None if (self.ncols or 1) == 1 else self.column_name(column)
                from .influence import describe
                for lab, eff in found.items():
                    left_out[lab] = eff
                    self.tally.dropped[lab] = describe(eff, screen, name)
                    self.active = [a for a in self.active if a != lab]
                raise _Restart
            for lab, eff in found.items():
                if abs(eff) > abs(flagged.get(lab, 0.0)):
                    flagged[lab] = eff
        lam_used, llf_used = fit.lmbda, llf_of(fit)
        limits = (-math.inf, math.inf)
        source = ""
        n_missing = sum(r.n_missing for r in counts.values())
        rng = None
        if self.share_range:
            rng = (min(r.value_range[0] for r in counts.values()),  # type: ignore[index]
                   max(r.value_range[1] for r in counts.values()))  # type: ignore[index]
        try:
            values, values_source = (rng, "shared") if rng is not None else (
                outer_range(fit.frame, first, chosen), "outer")
        except BoxCoxError:
            values, values_source = (math.nan, math.nan), ""
        if ymax is not None:
            limits, source = ymax_limits(fit.frame, first, chosen, ymax, rng)
            clipped = float(np.clip(lam_used, *limits))
            if clipped != lam_used:
                st = self._one(column, chosen, clipped, labels, counts)
                lam_used = clipped
                llf_used = float(-st + llf_constant(fit.nobs))
        return ColumnOutcome(fit, chosen, reason, lam_used, llf_used, limits, n_missing,
                             source, values, values_source)

    def _one(self, column: int, family: str, lam: float, labels: list[str],
             counts: dict[str, CountsReport]) -> float:
        """The NLL at one more lambda (the ymax clip), in one round."""
        self.tally.rounds += 1
        req = LambdaRequest(family, (lam,), column, self.tally.rounds)
        reps = self._exchange(req, f"in round {self.tally.rounds}")
        views = []
        st = []
        for lab in labels:
            r = reps.get(lab)
            why = "sent no reply" if r is None else check_paper_reply(
                r, req, None, counts[lab].n_pos, counts[lab].n_neg, family)
            if why or r is None:
                self._bad(lab, why or "sent no reply")
                raise _Restart
            views.append(SiteView(r.n_pos, r.n_neg or 0, float(r.c)))
            st.append((float(r.mean[0]), float(r.s[0])))
        self.tally.add(column, "bound", 1, {lab: reps[lab].nbytes // 8 for lab in labels})
        frame = Frame(family, views)
        with np.errstate(all="ignore"):
            parts, shift = frame.convert(lam, st)
        return frame.nll(lam, frame.q(parts, frame.k(lam), shift))

    def info(self) -> dict[str, Any]:
        """Cost, membership and what each client revealed."""
        t = self.tally
        up = sum(sum(r["up"].values()) for r in t.rows)
        down = sum(r["down"] * len(r["up"]) for r in t.rows)
        return {
            "clients": len(self.active),
            "dropped": dict(t.dropped),
            "rounds": t.rounds,
            "evaluations": sum(r["down"] for r in t.rows),
            "bytes_up": 8 * up,
            "bytes_down": 8 * down,
            "messages": [dict(r) for r in t.rows],
            "by_kind": t.by_kind(),
            "revealed": t.per_client(),
            "setup": "counts and range (share_range=True)" if self.share_range
            else "counts only",
        }
