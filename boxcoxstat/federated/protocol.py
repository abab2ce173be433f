"""The protocol's side of the shared computation: the frame as a message, a client's local
moments as its reply, the server's view of a reply.

The frame itself (references, shifts, units, the local sides, the merge and the global NLL)
is the core's (:mod:`boxcoxstat.core.frame`), shared with the Dask engine; it is re-exported
here under its old names. The clients and the server must agree on one frame per side so
their moments can be merged exactly (Chan, Golub & LeVeque 1982): each client sends the
moments of ``phi = expm1(k (v - shift))/k`` of its own values (:func:`local_moments`); the
server merges them side by side in a queue (Xu & Cormode 2025, Algorithm 1,
:func:`tree_merge`) and evaluates the profile NLL and its score from the merged moments
(:func:`global_nll_score`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ..core.frame import (
    SampleFrame,
    SideFrame,
    global_nll_score,
    local_sides,
    reference,
    tree_merge,
)
from ..core.likelihood import SideMoments
from ..core.sample import Side
from .messages import Frame, Request, SideStats

__all__ = [
    "reference",
    "SideFrame",
    "GlobalFrame",
    "local_sides",
    "local_moments",
    "stats_to_moments",
    "tree_merge",
    "global_nll_score",
]


@dataclass(frozen=True)
class GlobalFrame(SampleFrame):
    """The core's :class:`~boxcoxstat.core.frame.SampleFrame` with the protocol's messages:
    the frame as sent to the clients, a client's view of it, a round's request."""

    def message(self, column: int = 0, minimal: bool = False) -> Frame:
        """The frame as sent to the clients (with the global ranges under ``minimal``)."""
        def rng(f: SideFrame | None) -> tuple[float, float] | None:
            return None if f is None or not minimal else (f.lo, f.hi)

        return Frame(self.family, None if self.pos is None else self.pos.ref,
                     None if self.neg is None else self.neg.ref, column, rng(self.pos),
                     rng(self.neg))

    @classmethod
    def from_message(cls, msg: Frame) -> GlobalFrame:
        """A client's view of the frame (the ranges, sent under ``protocol="minimal"`` only,
        let it derive each round's shift itself)."""
        kpos = "bc" if msg.family == "boxcox" else "pos"

        def side(kind: str, ref: float | None, rng: tuple[float, float] | None):
            if ref is None:
                return None
            lo, hi = (np.nan, np.nan) if rng is None else rng
            return SideFrame(kind, ref, lo, hi)

        return cls(msg.family, *cls._with_unit(msg.family, side(kpos, msg.ref_pos,
                                                                msg.pos_range),
                                                side("neg", msg.ref_neg, msg.neg_range)))

    def request(self, lmbda: Iterable[float], score: bool, *, column: int = 0,
                round: int = 0, minimal: bool = False) -> Request:
        """The broadcast for one round at ``lmbda`` (the lambdas only under ``minimal``)."""
        lam = np.asarray(list(lmbda), dtype=np.float64)
        sp, sn = ((), ()) if minimal else self.shifts(lam)
        return Request(tuple(lam.tolist()), sp, sn, bool(score) and not minimal, column, round)


def _stats(m: SideMoments, minimal: bool) -> SideStats:
    if minimal:  # the paper's (n, c, mean, s)
        return SideStats(n=int(round(float(m.W[0]))), c=float(m.wv[0]), d_sum=(),
                         mean=tuple(m.mean_phi.tolist()), s=tuple(m.m2.tolist()), mean_chi=(),
                         c2=())
    return SideStats(
        n=int(round(float(m.W[0]))),
        c=float(m.wv[0]),
        d_sum=tuple(m.d_sum.tolist()),
        mean=tuple(m.mean_phi.tolist()),
        s=tuple(m.m2.tolist()),
        mean_chi=tuple(m.mean_chi.tolist()),
        c2=tuple(m.c2.tolist()),
    )


def local_moments(
    sides: tuple[Side | None, Side | None], req: Request, frame: GlobalFrame
) -> tuple[SideStats | None, SideStats | None]:
    """A client's reply to ``req``: the moments of each side it holds, in ``frame``'s unit.

    A request without shifts (``protocol="minimal"``) takes them from ``frame``, which then
    carries the global ranges; the reply holds ``(n, c, mean, s)`` per side.
    """
    lam = np.asarray(req.lmbda, dtype=np.float64)
    minimal = not req.shift_pos and not req.shift_neg
    shift_pos, shift_neg = frame.shifts(lam) if minimal else (req.shift_pos, req.shift_neg)
    pm, nm = frame.moments(sides, lam, shift_pos, shift_neg, req.score)
    return (None if pm is None else _stats(pm, minimal),
            None if nm is None else _stats(nm, minimal))


def stats_to_moments(st: SideStats, side: SideFrame, req: Request) -> SideMoments:
    """Server side: a reply's stats as :class:`SideMoments` in the side's frame."""
    lam = np.asarray(req.lmbda, dtype=np.float64)
    neg = side.kind == "neg"
    kappa = (2.0 - lam if neg else lam) * side.unit
    shift = side.shift(kappa)  # the server's own frame (a minimal request carries none)
    log_ref = side.side(np.array([side.ref])).log_ref
    L = lam.shape[0]
    nan = np.full(L, np.nan)
    return SideMoments(
        W=np.full(L, float(st.n)),
        wv=np.full(L, float(st.c)),
        # c - n shift: what a full reply sends as d_sum (redundant given the frame)
        d_sum=(np.asarray(st.d_sum, dtype=np.float64) if len(st.d_sum)
               else np.where(shift != 0, float(st.c) - float(st.n) * shift, float(st.c))),
        mean_phi=np.asarray(st.mean, dtype=np.float64),
        m2=np.asarray(st.s, dtype=np.float64),
        mean_chi=np.asarray(st.mean_chi, dtype=np.float64) if len(st.mean_chi) else nan,
        c2=np.asarray(st.c2, dtype=np.float64) if len(st.c2) else nan,
        log_ref=np.broadcast_to(log_ref, (L,)),
        shift=shift,
        kappa=kappa,
        negative=neg,
    )
