"""What the server checks in every client message: types, shapes, finiteness and consistency.

Layer 6 (``federated``). Each check returns ``None`` or the reason the message is refused
(the server names the client). Beyond types and finiteness, every number a client sends must
be possible for *some* data agreeing with what it declared at set-up (its count and the
minimum and maximum of each side):

* a count never changes between rounds, and a side with ``n = 1`` has ``min == max``;
* ``c``, the sum of the log-ratios ``v``, lies in ``[n v(min), n v(max)]`` and is the same in
  every round (it does not depend on lambda); the shifted sum ``d_sum`` equals
  ``c - n shift``;
* ``phi = expm1(k (v - shift))/k`` is increasing in ``v``, so the mean of ``phi`` lies between
  ``phi`` at the two ends, and the sum of squared deviations ``s`` is at most ``n w^2/4`` with
  ``w`` the width of that range (Popoviciu's inequality);
* ``chi = d phi / d k`` is ``>= 0`` with its minimum at ``v = shift``: its mean lies in the
  range of ``chi`` over the declared interval, and the co-moment obeys Cauchy-Schwarz,
  ``|c2| <= sqrt(s) sqrt(n) w_chi / 2``.

Each bound allows for rounding (a relative 1e-9 of the values' magnitude). A client that
lies *consistently* -- moments of a plausible fake dataset within its declared range -- passes
every check; no server can tell it from an honest one.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..core.likelihood import phi_chi
from .messages import MomentsReply, Request, SetupReport, SideStats, finite, numbers
from .protocol import SideFrame

__all__ = ["check_setup", "check_side", "RTOL"]

RTOL = 1e-9  # rounding allowance, relative to the magnitude of the values bounded


def _count(v: Any) -> bool:
    return bool(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
                and v >= 0)


def _range_ok(rng: Any) -> bool:
    return numbers(rng, 2) and finite(*rng)


def check_setup(rep: Any, family: str, column: int) -> str | None:
    """What is wrong with a set-up report for ``column`` (``None`` if nothing)."""
    if not isinstance(rep, SetupReport):
        return f"sent {type(rep).__name__} instead of a SetupReport"
    for name in ("n_pos", "n_neg", "n_missing", "column", "ncols"):
        v = getattr(rep, name)
        if not _count(v):
            return f"reported an invalid {name}={v!r} (it must be an integer >= 0)"
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


def _within(value: NDArray, lo: NDArray, hi: NDArray, slack: NDArray) -> bool:
    return bool(np.all((value >= lo - slack) & (value <= hi + slack)))


def check_side(st: Any, n: int, rng: tuple[float, float] | None, frame: SideFrame | None,
               req: Request, minimal: bool, label: str, c_seen: float | None) -> str | None:
    """What is wrong with one side's statistics in a reply to ``req`` (``None`` if nothing).

    ``n`` and ``rng`` are what the client declared for the side at set-up, ``c_seen`` the
    ``c`` it sent in an earlier round (``None`` in the first).
    """
    if n == 0:
        return None if st is None else f"sent moments for its empty {label} side"
    if not isinstance(st, SideStats):
        return f"sent no moments for its {label} side ({n} values reported)"
    if not _count(st.n) or st.n != n:
        return (f"sent inconsistent counts: {st.n!r} on the {label} side, {n} reported at "
                "set-up")
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
    if frame is None or rng is None:  # pragma: no cover - the server always has both
        return None
    return _consistent(st, n, rng, frame, req, score, label, c_seen)


def _consistent(st: SideStats, n: int, rng: tuple[float, float], frame: SideFrame,
                req: Request, score: bool, label: str, c_seen: float | None) -> str | None:
    """The bounds of the module docstring."""
    lam = np.asarray(req.lmbda, dtype=np.float64)
    kappa = 2.0 - lam if frame.kind == "neg" else lam
    shift = frame.shift(kappa)
    with np.errstate(all="ignore"):
        v = frame.side(np.asarray(rng, dtype=np.float64)).v[:, 0]
    vlo, vhi = float(v.min()), float(v.max())
    vmag = max(abs(vlo), abs(vhi))
    c = float(st.c)
    if not n * vlo - RTOL * n * vmag - 1e-300 <= c <= n * vhi + RTOL * n * vmag + 1e-300:
        return (f"sent a sum of log-ratios c = {c:.6g} on the {label} side that no {n} values "
                f"in its declared range {tuple(rng)} can give")
    if c_seen is not None and abs(c - c_seen) > RTOL * (abs(c_seen) + n * vmag) + 1e-300:
        return f"changed its sum of log-ratios c on the {label} side between rounds"
    if len(st.d_sum):
        d_sum = np.asarray(st.d_sum, dtype=np.float64)
        want = np.where(shift != 0, c - n * shift, c)
        if np.any(np.abs(d_sum - want) > RTOL * (abs(c) + n * (np.abs(shift) + vmag)) + 1e-300):
            return f"sent a shifted sum d_sum on the {label} side inconsistent with c"
    d = np.stack([np.full(lam.shape, vlo), np.full(lam.shape, vhi)]) - shift
    span = np.max(np.abs(d), axis=0)
    with np.errstate(all="ignore"):
        phi, chi = phi_chi(d, kappa, span, score=score)
    if not np.all(np.isfinite(phi)):  # pragma: no cover - the frame keeps the ends finite
        return None
    plo, phi_hi = phi.min(axis=0), phi.max(axis=0)
    mag = np.maximum(np.abs(plo), np.abs(phi_hi))
    slack = RTOL * (mag + (phi_hi - plo)) + 1e-300
    mean = np.asarray(st.mean, dtype=np.float64)
    s = np.asarray(st.s, dtype=np.float64)
    if not _within(mean, plo, phi_hi, slack):
        return (f"sent a mean of the transformed values on the {label} side outside the "
                f"transforms of its declared min and max {tuple(rng)}")
    s_max = n * (0.5 * (phi_hi - plo) + RTOL * mag) ** 2
    if np.any(s < 0) or np.any(s > s_max * (1 + RTOL) + 1e-300):
        return (f"sent a sum of squared deviations on the {label} side that no {n} values in "
                f"its declared range {tuple(rng)} can give (0 <= s <= n (max - min)^2 / 4 on "
                "the transformed scale)")
    if score and chi is not None:
        zero_inside = (d[0] <= 0) & (d[1] >= 0)
        clo = np.where(zero_inside, 0.0, chi.min(axis=0))
        chi_hi = chi.max(axis=0)
        # chi = (e^a (a - 1) + 1)/k^2 (a = k d) is formed with an absolute error of about
        # eps |a| / k^2, which dominates where |a| is huge and chi tends to 1/k^2
        ka = np.abs(kappa)
        noise = np.where(ka > 0, (1.0 + ka * span) / np.where(ka > 0, ka, 1.0) ** 2,
                         span * span) * 1e-12
        cmag = np.maximum(np.abs(clo), np.abs(chi_hi))
        cslack = RTOL * (cmag + (chi_hi - clo)) + noise + 1e-300
        if not _within(np.asarray(st.mean_chi, dtype=np.float64), clo, chi_hi, cslack):
            return f"sent a mean derivative moment on the {label} side outside its range"
        bound = (np.sqrt(np.maximum(s, 0.0)) * math.sqrt(n)
                 * (0.5 * (chi_hi - clo) + RTOL * cmag + noise))
        if np.any(np.abs(np.asarray(st.c2, dtype=np.float64)) > bound * (1 + RTOL) + 1e-300):
            return (f"sent a co-moment c2 on the {label} side larger than Cauchy-Schwarz "
                    "allows")
    return None


def check_reply(rep: Any, req: Request, client: str) -> str | None:
    """The envelope of a reply: its type, and the column and round it answers."""
    if not isinstance(rep, MomentsReply):
        return f"sent {type(rep).__name__} instead of a MomentsReply"
    if rep.column != req.column or rep.round != req.round:
        return (f"answered column {rep.column!r}, round {rep.round!r} when column "
                f"{req.column}, round {req.round} was asked (a stale or replayed reply)")
    return None
