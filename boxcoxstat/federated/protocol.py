"""The computation both ends of the protocol share: frames, local moments, global NLL.

The clients (or Dask partitions) and the server must agree on one
frame per side so their moments can be merged exactly (Chan, Golub & LeVeque 1982):

* the *reference* ``b_ref`` of each side: the geometric midpoint of the global smallest and
  largest base (``x``, ``1 + x`` or ``1 - x``), computed by the server from the clients'
  min/max reports -- no data are pooled, and ``log(b / b_ref)`` keeps every digit of
  clustered data because it is formed from the exact difference (``sample.py``);
* the *shift* per lambda: 0 while ``|k| max|v| <= 300``, else the extreme log-ratio (the
  server knows it from the same min/max), exactly as the in-memory code chooses it.

Each client then sends the moments of ``phi = expm1(k (v - shift))/k`` of its own values
(:func:`local_moments`); the server merges them side by side in a queue (Xu & Cormode 2025,
Algorithm 1) and evaluates the profile NLL and its score from the merged moments with the
foundation's :func:`~boxcoxstat.core.likelihood.nll_score_from_moments`, whose between-sides term
is the stable form of the mean correction of Xu & Cormode's Algorithm 3 (lines 21-26).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from .._validation.columns import BoxCoxError
from ..core.likelihood import (
    SideMoments,
    choose_shift,
    merge_moments,
    nll_score_from_moments,
    side_moments,
)
from ..core.profile import reach_of
from ..core.sample import Side, _make_side, length_unit
from .messages import Frame, Request, SideStats

__all__ = [
    "reference",
    "SideFrame",
    "GlobalFrame",
    "local_sides",
    "local_moments",
    "stats_to_moments",
    "tree_merge",
]

def reference(lo: float, hi: float, kind: str) -> float:
    """The x value whose base is the geometric midpoint of the bases of ``lo`` and ``hi``.

    Examples
    --------
    >>> from boxcoxstat.federated.protocol import reference
    >>> round(reference(1.0, 100.0, "bc"), 12), round(reference(-15.0, -3.0, "neg"), 12)
    (10.0, -7.0)
    """
    if kind == "bc":
        return float(np.exp(0.5 * (np.log(lo) + np.log(hi))))
    if kind == "pos":
        return float(np.expm1(0.5 * (np.log1p(lo) + np.log1p(hi))))
    return float(-np.expm1(0.5 * (np.log1p(-lo) + np.log1p(-hi))))


@dataclass(frozen=True)
class SideFrame:
    """One side's frame: its kind, reference value, the global range of its values and the
    unit of its lengths (1 except for Yeo-Johnson data on a tiny scale, see
    :meth:`GlobalFrame.unit`)."""

    kind: str  # "bc", "pos" or "neg"
    ref: float
    lo: float  # smallest x on this side (global)
    hi: float  # largest x on this side (global)
    unit: float = 1.0

    def side(self, x: NDArray[np.float64]) -> Side:
        """The side of local values ``x`` (1-D, all on this side) in this frame, its
        log-ratios and reference measured in the frame's unit."""
        side = _make_side(x.reshape(-1, 1), np.array([self.ref]), self.kind, None, None)
        if self.unit == 1.0:
            return side
        return replace(side, v=side.v / self.unit, log_ref=side.log_ref / self.unit)

    def shift(self, kappa: NDArray[np.float64]) -> NDArray[np.float64]:
        """The shift of the frame (in its unit) at exponents ``kappa`` times the unit
        (chosen from the global range)."""
        ends = self.side(np.array([self.lo, self.hi]))
        return choose_shift(ends, np.asarray(kappa, dtype=np.float64))


@dataclass(frozen=True)
class GlobalFrame:
    """The frames of a fit: Box-Cox has ``pos`` only; Yeo-Johnson ``pos`` and/or ``neg``."""

    family: str
    pos: SideFrame | None
    neg: SideFrame | None

    @property
    def unit(self) -> float:
        """The unit every end measures lengths in: 1, or for Yeo-Johnson data on a tiny scale
        (both references within 2**-64 of 1) a power of two of their size, so the moments
        of data near 1e-200 stay of order one (``sample.length_unit``; derived from the
        references alone, so the server and every client agree without another message)."""
        return self.pos.unit if self.pos is not None else (
            self.neg.unit if self.neg is not None else 1.0)

    def reach(self) -> float:
        """How far the server's solver looks for lambda (``profile.reach_of`` the span of the
        log-ratios of the global ranges, as for a sample in memory)."""
        span = 0.0
        for f in (self.pos, self.neg):
            if f is not None:
                v = f.side(np.array([f.lo, f.hi])).v[:, 0] * f.unit
                span = max(span, float(v.max() - v.min()))
        return float(reach_of(span))

    @staticmethod
    def _with_unit(family: str, pos: SideFrame | None, neg: SideFrame | None
                   ) -> tuple[SideFrame | None, SideFrame | None]:
        if family == "boxcox":
            return pos, neg
        size = max([abs(float(np.log1p(f.ref if f.kind == "pos" else -f.ref)))
                    for f in (pos, neg) if f is not None], default=0.0)
        u = float(length_unit(size))
        if u == 1.0:
            return pos, neg
        return (None if pos is None else replace(pos, unit=u),
                None if neg is None else replace(neg, unit=u))

    @classmethod
    def from_ranges(
        cls,
        family: str,
        pos_range: tuple[float, float] | None,
        neg_range: tuple[float, float] | None,
    ) -> GlobalFrame:
        """Frames from the global (min, max) of each side."""
        kpos = "bc" if family == "boxcox" else "pos"
        pos = None
        neg = None
        if pos_range is not None:
            pos = SideFrame(kpos, reference(*pos_range, kpos), *pos_range)
        if neg_range is not None:
            neg = SideFrame("neg", reference(*neg_range, "neg"), *neg_range)
        return cls(family, *cls._with_unit(family, pos, neg))

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

    def shifts(self, lam: NDArray[np.float64]) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """The shift of each side's frame at every lambda (in the frame's unit)."""
        u = self.unit
        sp = () if self.pos is None else tuple(self.pos.shift(lam * u).tolist())
        sn = () if self.neg is None else tuple(self.neg.shift((2.0 - lam) * u).tolist())
        return sp, sn

    def moments(self, sides: tuple[Side | None, Side | None], lam: NDArray[np.float64],
                shift_pos: Iterable[float], shift_neg: Iterable[float], score: bool
                ) -> tuple[SideMoments | None, SideMoments | None]:
        """The moments of local ``sides`` (from :func:`local_sides`) at ``lam``, in the
        frame's shifts and unit (what a client or a Dask partition computes)."""
        u = self.unit
        out: list[SideMoments | None] = []
        for side, kappa, shift in ((sides[0], lam, shift_pos),
                                   (sides[1], 2.0 - lam, shift_neg)):
            if side is None:
                out.append(None)
                continue
            with np.errstate(over="ignore", invalid="ignore"):
                out.append(side_moments(side, kappa * u, shift=np.asarray(list(shift)),
                                        score=score))
        return out[0], out[1]

    def request(self, lmbda: Iterable[float], score: bool, *, column: int = 0,
                round: int = 0, minimal: bool = False) -> Request:
        """The broadcast for one round at ``lmbda`` (the lambdas only under ``minimal``)."""
        lam = np.asarray(list(lmbda), dtype=np.float64)
        sp, sn = ((), ()) if minimal else self.shifts(lam)
        return Request(tuple(lam.tolist()), sp, sn, bool(score) and not minimal, column, round)


def local_sides(x: NDArray[np.float64], frame: GlobalFrame) -> tuple[Side | None, Side | None]:
    """Split local values (finite, 1-D) into sides in the global frame."""
    if frame.family == "boxcox":
        return (frame.pos.side(x) if frame.pos is not None and x.size else None), None
    xp, xn = x[x >= 0], x[x < 0]
    pos = frame.pos.side(xp) if xp.size and frame.pos is not None else None
    neg = frame.neg.side(xn) if xn.size and frame.neg is not None else None
    return pos, neg


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


def tree_merge(parts: list[SideMoments]) -> SideMoments | None:
    """Merge moments pairwise through a queue (Xu & Cormode 2025, Algorithm 1)."""
    queue = deque(parts)
    if not queue:
        return None
    while len(queue) > 1:
        a = queue.popleft()
        b = queue.popleft()
        queue.append(merge_moments(a, b))
    return queue[0]


def global_nll_score(
    pos: SideMoments | None, neg: SideMoments | None, lmbda: NDArray[np.float64],
    unit: float = 1.0, score_unit: NDArray[np.float64] | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Profile NLL and score from the merged moments, computed in the frame's ``unit`` (the
    score is the derivative in ``lambda * score_unit`` where that is given); refuses to
    return non-finite values."""
    u = None if unit == 1.0 else np.full(lmbda.shape, unit)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        val, sc = nll_score_from_moments(pos, neg, lmbda, u, score_unit)
    bad = ~np.isfinite(val)
    if np.any(bad):
        raise BoxCoxError(
            f"the merged statistics give a non-finite NLL at lambda = {lmbda[bad][0]!r}; "
            "the pooled data are constant or too few"
        )
    return val, sc

