"""The global frame of a sample held in pieces (sites, partitions): what every piece and
the driver that merges their moments agree on, derived from the global range of each side.

Moved here from ``federated/protocol.py`` so that the core can evaluate the profile of a
sample held in partitions (:mod:`boxcoxstat.core.partitioned`) without a family's code:

* the *reference* ``b_ref`` of each side: the geometric midpoint of the global smallest and
  largest base (``x``, ``1 + x`` or ``1 - x``) -- no data are pooled, and ``log(b / b_ref)``
  keeps every digit of clustered data because it is formed from the exact difference
  (``sample.py``);
* the *shift* per lambda: 0 while ``|k| max|v| <= 300``, else the extreme log-ratio, exactly
  as the in-memory code chooses it.

Each piece computes the moments of ``phi = expm1(k (v - shift))/k`` of its own values
(:meth:`SampleFrame.moments` of :func:`local_sides`); the driver merges them side by side in
a queue (:func:`tree_merge`; Chan, Golub & LeVeque 1982; Xu & Cormode 2025, Algorithm 1)
and evaluates the profile NLL and its score from the merged moments
(:func:`global_nll_score`, through :func:`~boxcoxstat.core.likelihood.
nll_score_from_moments`, whose between-sides term is the stable form of the mean correction
of Xu & Cormode's Algorithm 3).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from ..exceptions import BoxCoxError
from .likelihood import (
    SideMoments,
    choose_shift,
    merge_moments,
    nll_score_from_moments,
    side_moments,
)
from .profile import reach_of
from .sample import Side, _make_side, length_unit

__all__ = ["reference", "SideFrame", "SampleFrame", "local_sides", "tree_merge",
           "global_nll_score"]

_F = TypeVar("_F", bound="SampleFrame")


def reference(lo: float, hi: float, kind: str) -> float:
    """The x value whose base is the geometric midpoint of the bases of ``lo`` and ``hi``.

    Examples
    --------
    >>> from boxcoxstat.core.frame import reference
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
class SampleFrame:
    """The frames of a fit of a sample held in pieces: Box-Cox has ``pos`` only; Yeo-Johnson
    ``pos`` and/or ``neg``."""

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
        cls: type[_F],
        family: str,
        pos_range: tuple[float, float] | None,
        neg_range: tuple[float, float] | None,
    ) -> _F:
        """Frames from the global (min, max) of each side."""
        kpos = "bc" if family == "boxcox" else "pos"
        pos = None
        neg = None
        if pos_range is not None:
            pos = SideFrame(kpos, reference(*pos_range, kpos), *pos_range)
        if neg_range is not None:
            neg = SideFrame("neg", reference(*neg_range, "neg"), *neg_range)
        return cls(family, *cls._with_unit(family, pos, neg))

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


def local_sides(x: NDArray[np.float64], frame: SampleFrame,
                w: NDArray[np.float64] | None = None) -> tuple[Side | None, Side | None]:
    """Split local values (finite, 1-D) into sides in the global frame; with case weights
    ``w`` (one per value) each side carries its values' weights, so its moments are the
    weighted ones (frequency-weight moments, merged as the unweighted ones are)."""
    if frame.family == "boxcox":
        side = frame.pos.side(x) if frame.pos is not None and x.size else None
        return _weighed(side, w), None
    xp, xn = x[x >= 0], x[x < 0]
    pos = frame.pos.side(xp) if xp.size and frame.pos is not None else None
    neg = frame.neg.side(xn) if xn.size and frame.neg is not None else None
    if w is None:
        return pos, neg
    return _weighed(pos, w[x >= 0]), _weighed(neg, w[x < 0])


def _weighed(side: Side | None, w: NDArray[np.float64] | None) -> Side | None:
    return side if side is None or w is None else replace(side, w=w.reshape(-1, 1))


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

