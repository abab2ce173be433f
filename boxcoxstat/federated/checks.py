"""What the server checks in every client message: types, shapes, finiteness and consistency.

Each check returns ``None`` or the reason the message is refused
(the server names the client). Beyond types and finiteness, every number a client sends must
be possible for *some* data agreeing with what it declared at set-up (its count and the
minimum and maximum of each side):

* a count never changes between rounds, and a side with ``n = 1`` has ``min == max``;
* the declared min and max are two of the ``n`` values (an honest client reports its own);
* ``c``, the sum of the log-ratios ``v``, lies in ``[(n - 1) v(min) + v(max), v(min) +
  (n - 1) v(max)]`` and is the same in every round (it does not depend on lambda); the
  shifted sum ``d_sum`` equals ``c - n shift``;
* ``phi = expm1(k (v - shift))/k`` is increasing in ``v``, so the mean of ``phi`` lies between
  ``phi`` at the two ends (``w/n`` inside them, ``w`` the width of that range), and the sum of
  squared deviations ``s`` is at most ``n w^2/4`` (Popoviciu's inequality) and at least
  ``w^2/2`` (the deviations of the two ends alone): a client that declares a range wider
  than its data (which would set the frame, and could make the pooled NLL underflow) fails
  the latter wherever the transform separates the declared ends from its values;
* ``chi = d phi / d k`` is ``>= 0`` with its minimum at ``v = shift``: its mean lies in the
  range of ``chi`` over the declared interval, and the co-moment obeys Cauchy-Schwarz,
  ``|c2| <= sqrt(s) sqrt(n) w_chi / 2``.

Each bound allows for rounding (a relative 1e-9 of the values' magnitude). A client that
lies *consistently* -- moments of a plausible fake dataset within its declared range -- passes
every check; no server can tell it from an honest one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..core.kernel import phi_chi
from .messages import MomentsReply, Request, SetupReport, SideStats, finite, numbers
from .protocol import SideFrame

__all__ = ["check_setup", "check_side", "check_consistent", "check_reply", "SideBounds",
           "RTOL", "MAX_COUNT"]

RTOL = 1e-9  # rounding allowance, relative to the magnitude of the values bounded
MAX_COUNT = 2**53  # the largest count float64 holds exactly (the moments are float64)


def _count(v: Any) -> bool:
    return bool(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
                and 0 <= v <= MAX_COUNT)


def _range_ok(rng: Any) -> bool:
    return numbers(rng, 2) and finite(*rng)


def check_setup(rep: Any, family: str, column: int) -> str | None:
    """What is wrong with a set-up report for ``column`` (``None`` if nothing).

    Examples
    --------
    >>> from boxcoxstat.federated.checks import check_setup
    >>> from boxcoxstat.federated.messages import SetupReport
    >>> check_setup(SetupReport("a", 1, 0, 0, (1.0, 2.0), None), "boxcox", 0)
    'reported one value on the x >= 0 side but min != max ((1.0, 2.0))'
    """
    if not isinstance(rep, SetupReport):
        return f"sent {type(rep).__name__} instead of a SetupReport"
    for name in ("n_pos", "n_neg", "n_missing", "column", "ncols"):
        v = getattr(rep, name)
        if not _count(v):
            return (f"reported an invalid {name}={str(v)[:40]} (it must be an integer from 0 "
                    "to 2**53)")
    if rep.column != column:
        return f"reported on column {rep.column} when column {column} was asked for"
    if rep.ncols < 1:
        return "declared no columns"
    if rep.columns is not None and (not isinstance(rep.columns, (tuple, list))
                                    or len(rep.columns) != rep.ncols
                                    or not all(isinstance(c, str) for c in rep.columns)):
        return f"declared column names {rep.columns!r} that do not match its {rep.ncols} columns"
    if rep.n_pos + rep.n_neg == 0:
        return "holds no values (empty client)"
    for name, n, rng in (("x >= 0", rep.n_pos, rep.pos_range),
                         ("x < 0", rep.n_neg, rep.neg_range)):
        if (n > 0) != (rng is not None):
            return f"reported inconsistent counts and range for the {name} side"
        if rng is None:
            continue
        if not _range_ok(rng):
            return f"reported a malformed or non-finite range {rng!r} for the {name} side"
        if rng[0] > rng[1]:
            return f"reported min > max ({rng!r}) for the {name} side"
        if n == 1 and rng[0] != rng[1]:
            return f"reported one value on the {name} side but min != max ({rng!r})"
    if rep.pos_range is not None and rep.pos_range[0] < 0:
        return "reported a negative minimum for the x >= 0 side"
    if rep.neg_range is not None and rep.neg_range[1] >= 0:
        return "reported a maximum >= 0 for the x < 0 side"
    if family == "boxcox" and (rep.n_neg or (rep.pos_range is not None
                                             and rep.pos_range[0] <= 0)):
        return "holds values <= 0; Box-Cox needs positive data (use family='yeojohnson')"
    return None


@dataclass(frozen=True)
class SideBounds:
    """What the checks of one side need, computed once per client and frame
    (``v`` the log-ratios of the declared min and max) or once per round (``shift``)."""

    frame: SideFrame
    rng: tuple[float, float]
    vlo: float
    vhi: float

    @classmethod
    def of(cls, frame: SideFrame, rng: tuple[float, float]) -> SideBounds:
        with np.errstate(all="ignore"):
            v = frame.side(np.asarray(rng, dtype=np.float64)).v[:, 0]
        return cls(frame, (float(rng[0]), float(rng[1])), float(v.min()), float(v.max()))


def check_side(st: Any, n: int, req: Request, minimal: bool, label: str) -> str | None:
    """What is wrong with the form of one side's statistics in a reply to ``req``: presence,
    count (``n`` as declared at set-up), types, lengths and finiteness (``None`` if nothing).
    """
    if n == 0:
        return None if st is None else f"sent moments for its empty {label} side"
    if not isinstance(st, SideStats):
        return f"sent no moments for its {label} side ({n} values reported)"
    if not _count(st.n) or st.n != n:
        return (f"sent inconsistent counts: {str(st.n)[:40]} on the {label} side, {n} "
                "reported at set-up")
    L = len(req.lmbda)
    score = req.score and not minimal
    main = [st.mean, st.s] + ([] if minimal else [st.d_sum])
    extra = [st.mean_chi, st.c2]
    if not all(numbers(q, L) for q in main) or not finite(st.c, *main):
        return f"sent non-finite or malformed moments on the {label} side"
    if minimal:
        if len(st.d_sum) or len(st.mean_chi) or len(st.c2):
            return f"sent full moments on the {label} side to a minimal request"
    elif not all(numbers(q, L) for q in extra) or (score and not finite(*extra)):
        return f"sent non-finite or malformed derivative moments on the {label} side"
    return None


def check_consistent(
    items: list[tuple[SideStats, SideBounds, float | None]], req: Request,
    shift: NDArray[np.float64], score: bool, label: str,
) -> list[str | None]:
    """The bounds of the module docstring for one side of every reply of a round at once.

    ``items`` holds, per client, its side's statistics (already through
    :func:`check_side`), its declared range and the ``c`` it sent in an earlier round
    (``None`` in the first); ``shift`` is the frame's shift at the round's lambdas. Returns
    the reason each client's statistics are impossible, or ``None``.
    """
    m = len(items)
    if m == 0:
        return []
    lam = np.asarray(req.lmbda, dtype=np.float64)
    L = lam.size
    frame = items[0][1].frame
    kappa = (2.0 - lam if frame.kind == "neg" else lam) * frame.unit  # lengths in its unit
    n = np.array([float(st.n) for st, _, _ in items])[:, None]
    vlo = np.array([b.vlo for _, b, _ in items])[:, None]
    vhi = np.array([b.vhi for _, b, _ in items])[:, None]
    c = np.array([float(st.c) for st, _, _ in items])[:, None]
    seen = np.array([np.nan if cs is None else cs for _, _, cs in items])[:, None]
    vmag = np.maximum(np.abs(vlo), np.abs(vhi))
    why: list[str | None] = [None] * m

    def flag(bad: NDArray[np.bool_], text: Any) -> None:
        for i in np.flatnonzero(np.any(bad, axis=1)):
            if why[i] is None:
                why[i] = text(int(i))

    def rng(i: int) -> tuple[float, float]:
        return items[i][1].rng

    tol_c = RTOL * n * vmag + 1e-300
    # the declared min and max are two of the n values: the other n - 1 lie between them
    c_lo, c_hi = (n - 1) * vlo + vhi, vlo + (n - 1) * vhi
    flag((c < c_lo - tol_c) | (c > c_hi + tol_c), lambda i: (
        f"sent a sum of log-ratios c = {float(c[i, 0]):.6g} on the {label} side that no "
        f"{int(n[i, 0])} values in its declared range {rng(i)} can give"))
    flag(np.abs(c - seen) > RTOL * (np.abs(seen) + n * vmag) + 1e-300, lambda i: (
        f"changed its sum of log-ratios c on the {label} side between rounds"))
    if not score and all(len(st.d_sum) == 0 for st, _, _ in items):
        d_sum = None
    else:
        d_sum = np.array([st.d_sum for st, _, _ in items], dtype=np.float64).reshape(m, L)
    if d_sum is not None:
        want = np.where(shift != 0, c - n * shift, c)
        flag(np.abs(d_sum - want) > RTOL * (np.abs(c) + n * (np.abs(shift) + vmag)) + 1e-300,
             lambda i: f"sent a shifted sum d_sum on the {label} side inconsistent with c")
    d_lo, d_hi = vlo - shift, vhi - shift  # (m, L)
    span = np.maximum(np.abs(d_lo), np.abs(d_hi))
    # one column per (client, lambda): each pair keeps its own regime, as the client's does
    with np.errstate(all="ignore"):
        phi, chi = phi_chi(np.stack([d_lo.ravel(), d_hi.ravel()]), np.tile(kappa, m),
                           span.ravel(), score=score)
    phi_lo = np.minimum(phi[0], phi[1]).reshape(m, L)
    phi_hi = np.maximum(phi[0], phi[1]).reshape(m, L)
    mag = np.maximum(np.abs(phi_lo), np.abs(phi_hi))
    slack = RTOL * (mag + (phi_hi - phi_lo)) + 1e-300
    mean = np.array([st.mean for st, _, _ in items], dtype=np.float64).reshape(m, L)
    s = np.array([st.s for st, _, _ in items], dtype=np.float64).reshape(m, L)
    # the declared ends are among the values: the mean lies between ((n - 1) min + max)/n
    # and (min + (n - 1) max)/n, and s >= (max - min)^2 / 2 (the two ends' deviations alone)
    # on the transformed scale; a range wider than the data fails the latter
    width = phi_hi - phi_lo
    flag((mean < phi_lo + width / n - slack) | (mean > phi_hi - width / n + slack),
         lambda i: (f"sent a mean of the transformed values on the {label} side that no "
                    f"{int(n[i, 0])} values with its declared min and max {rng(i)} can give"))
    s_max = n * (0.5 * width + RTOL * mag) ** 2
    s_min = 0.5 * np.maximum(width - 2.0 * slack, 0.0) ** 2
    flag((s < 0) | (s > s_max * (1 + RTOL) + 1e-300), lambda i: (
        f"sent a sum of squared deviations on the {label} side that no {int(n[i, 0])} values "
        f"in its declared range {rng(i)} can give (0 <= s <= n (max - min)^2 / 4 on the "
        "transformed scale)"))
    flag(s < s_min * (1 - RTOL), lambda i: (
        f"sent a sum of squared deviations on the {label} side too small for values that "
        f"include its declared min and max {rng(i)} (s >= (max - min)^2 / 2 on the "
        "transformed scale): a range wider than its data?"))
    if score and chi is not None:
        c_lo = np.where((d_lo <= 0) & (d_hi >= 0), 0.0,
                        np.minimum(chi[0], chi[1]).reshape(m, L))
        c_hi = np.maximum(chi[0], chi[1]).reshape(m, L)
        # chi = (e^a (a - 1) + 1)/k^2 (a = k d) is formed with an absolute error of about
        # eps |a| / k^2, which dominates where |a| is huge and chi tends to 1/k^2
        # (below |a| = 1, where a series or the closed form is exact to a few eps, span^2)
        ka = np.abs(kappa)
        big = ka * span > 1.0
        noise = np.where(big, (1.0 + ka * span) / np.where(big, ka, 1.0) ** 2,
                         span * span) * 1e-12
        cmag = np.maximum(np.abs(c_lo), np.abs(c_hi))
        cslack = RTOL * (cmag + (c_hi - c_lo)) + noise + 1e-300
        mean_chi = np.array([st.mean_chi for st, _, _ in items], dtype=np.float64).reshape(m, L)
        c2 = np.array([st.c2 for st, _, _ in items], dtype=np.float64).reshape(m, L)
        flag((mean_chi < c_lo - cslack) | (mean_chi > c_hi + cslack), lambda i: (
            f"sent a mean derivative moment on the {label} side outside its range"))
        bound = np.sqrt(np.maximum(s, 0.0) * n) * (0.5 * (c_hi - c_lo) + RTOL * cmag + noise)
        flag(np.abs(c2) > bound * (1 + RTOL) + 1e-300, lambda i: (
            f"sent a co-moment c2 on the {label} side larger than Cauchy-Schwarz allows"))
    return why


def check_reply(rep: Any, req: Request, client: str) -> str | None:
    """The envelope of a reply: its type, and the column and round it answers."""
    if not isinstance(rep, MomentsReply):
        return f"sent {type(rep).__name__} instead of a MomentsReply"
    if rep.column != req.column or rep.round != req.round:
        return (f"answered column {rep.column!r}, round {rep.round!r} when column "
                f"{req.column}, round {req.round} was asked (a stale or replayed reply)")
    return None
