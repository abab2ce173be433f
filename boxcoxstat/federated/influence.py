"""The influence screen: how far each client moves lambda, in standard errors.

The server's checks (:mod:`~boxcoxstat.federated.checks`) refuse
numbers no data could give, but a client that lies *consistently* -- say, claims ten times
its rows and sends the moments of ten copies of its values -- passes them all, and can move
lambda by many standard errors. What the server can measure is each client's *influence*:
the change in lambda when the client is left out, in standard errors of the fit without
it (the leave-one-out statistic of regression diagnostics, DFBETAS, Belsley, Kuh & Welsch
1980, here per client rather than per row; the federated counterpart of the weights that
RewML gives outlying values, Raymaekers & Rousseeuw 2021).

Leave-one-client-out lambdas are cheap with mergeable moments (Xu & Cormode 2025, Algorithm
1; Chan, Golub & LeVeque 1982): in each round every client sends its moments at one lambda
per subset, and the server merges, for each subset, all the clients but one
(:meth:`~boxcoxstat.federated.server.Server.evaluate_subsets`). The package's one solver
and one inference module run on all the subsets at once, so a screen costs about as many
rounds as one fit, with ``k + 1`` lambdas per round for ``k`` clients.

The screen is sequential (backward deletion): of the clients whose effect exceeds the
threshold, the one that moves lambda most is flagged, and the others are screened again
without it. Both matter next to a client claiming a million times its rows: it hides a
second liar until it is set aside (masking), and while it is there every honest client moves
lambda a little, but by many of the tiny standard errors its claimed rows give (swamping);
ordered by the size of the move, the liar goes first and the honest clients are then
screened without it. It flags at most ``(k -
1) // 2`` of ``k`` clients (most clients are assumed honest) and needs three clients in the
set it screens.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._validation.columns import BoxCoxError, ColumnReport, check_column
from ..core.inference import standard_error
from ..core.profile import CallbackProfile
from ..core.solve import solve

__all__ = ["Flag", "check_screen", "screen_column", "describe", "merge_flags",
           "DEFAULT_SCREEN"]

DEFAULT_SCREEN = 3.0  # standard errors


def check_screen(screen: Any) -> float | None:
    """``None`` (no screen) or a positive finite number of standard errors.

    Examples
    --------
    >>> from boxcoxstat.federated.influence import check_screen
    >>> check_screen(3), check_screen(None)
    (3.0, None)
    """
    if screen is None:
        return None
    if (isinstance(screen, bool) or not isinstance(screen, (int, float, np.integer,
                                                            np.floating))
            or not math.isfinite(screen) or screen <= 0):
        raise BoxCoxError(f"screen must be a positive number of standard errors or None (no "
                          f"influence screen), got {screen!r}")
    return float(screen)


@dataclass(frozen=True)
class Flag:
    """A client the screen flagged: its index among the server's active clients, and lambda
    with it minus lambda without it, in standard errors of the fit without it."""

    index: int
    effect: float


def _subset_ok(server: Any, members: NDArray[np.bool_]) -> bool:
    """Whether the clients ``members`` hold enough data for a fit of their own (the pooled
    gate on their declared counts and ranges, as at set-up)."""
    reports = [server.reports[id(c)] for c, m in zip(server.active, members, strict=True)
               if m]
    lo = [r.neg_range[0] if r.neg_range else r.pos_range[0] for r in reports]
    hi = [r.pos_range[1] if r.pos_range else r.neg_range[1] for r in reports]
    pooled = ColumnReport(n_finite=sum(r.n_pos + r.n_neg for r in reports), lo=min(lo),
                          hi=max(hi))
    try:
        check_column(pooled, "subset", family=server.family, tiny_scale=True)
    except BoxCoxError:
        return False
    return True


def _effects(server: Any, members: NDArray[np.bool_], start: tuple[Any, Any]
             ) -> tuple[NDArray[np.float64], int]:
    """Lambda of each subset (row of ``members``) and its standard error, solved together
    from the starting bracket ``start`` (ends per subset, or common); NaN where a fit did not
    converge. A subset whose likelihood cannot be evaluated along the way (a few values
    driving lambda to where the merged statistics leave float64) stops the joint solve; the
    subsets are then solved one at a time and that one gets NaN (its influence is not
    measurable; the fit of all clients is unaffected). Returns the (m, 2) array and the
    rounds spent."""
    try:
        return _effects_together(server, members, start)
    except BoxCoxError:
        m = members.shape[0]
        lo, hi = (np.broadcast_to(np.asarray(e, dtype=np.float64), (m,)) for e in start)
        out, spent = np.full((m, 2), np.nan), 0
        for i in range(m):
            try:
                one, r = _effects_together(server, members[i : i + 1], (lo[i : i + 1],
                                                                         hi[i : i + 1]))
            except BoxCoxError:
                continue
            out[i], spent = one[0], spent + r
        return out, spent


def _effects_together(server: Any, members: NDArray[np.bool_], start: tuple[Any, Any]
                      ) -> tuple[NDArray[np.float64], int]:
    """:func:`_effects` for subsets whose likelihoods all evaluate: one joint solve."""
    frame = server.frame
    m = members.shape[0]
    counts = np.array([sum(server.counts[id(c)]) for c in server.active], dtype=np.float64)

    def rounds(lam: NDArray[np.float64], cols: NDArray[np.intp], score: bool = True,
               score_unit: NDArray[np.float64] | None = None):
        return server.evaluate_subsets(lam, members[cols], score=score, score_unit=score_unit)

    profile = CallbackProfile(rounds, members.astype(np.float64) @ counts,
                              unit=np.full(m, frame.unit), reach=np.full(m, frame.reach()))
    before = server.tally.rounds
    sol = solve(profile, start=(np.broadcast_to(start[0], (m,)), np.broadcast_to(start[1], (m,)),
                                None, None))
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        bse = standard_error(profile, sol.lmbda, sol.slope)
    out = np.column_stack([np.where(sol.converged, sol.lmbda, np.nan), bse])
    return out, server.tally.rounds - before


def screen_column(server: Any, lmbda: float, bse: float, threshold: float, budget: int
                  ) -> tuple[list[Flag], int]:
    """Screen the active clients of the server's current column and frame.

    ``lmbda`` and ``bse`` (the fit of all of them) start every subset's bracket at
    ``lmbda -+ bse`` (later passes start from the previous one's); at most ``budget``
    clients are flagged. Returns the flags in the order found and the rounds spent.

    Examples
    --------
    Four sites of lognormal values and one of 200 values crowded between 5 and 6:

    >>> import numpy as np, boxcoxstat as bcs
    >>> from boxcoxstat.federated import Client, Server
    >>> from boxcoxstat.federated.influence import screen_column
    >>> rng = np.random.default_rng(0)
    >>> sites = [rng.lognormal(size=50) for _ in range(4)] + [rng.uniform(5.0, 6.0, 200)]
    >>> server = Server([Client(s) for s in sites], "boxcox")
    >>> frame = server.setup()
    >>> flags, rounds = screen_column(server, 0.5, 0.1, 3.0, 2)
    >>> [(f.index, round(f.effect, 2)) for f in flags]
    [(4, 8.96)]
    >>> server.close()
    """
    k = len(server.active)
    out: list[Flag] = []
    spent = 0
    left = np.ones(k, dtype=bool)
    width = bse if math.isfinite(bse) and bse > 0 else 1.0
    guess = np.full(k + 1, lmbda)  # per subset: the base (all left), then each left out
    spread = np.full(k + 1, width)
    while len(out) < budget and left.sum() >= 3:
        rest = np.flatnonzero(left)
        rows = [left.copy()]
        for i in rest:
            row = left.copy()
            row[i] = False
            rows.append(row)
        members = np.array(rows)
        usable = np.array([_subset_ok(server, r) for r in members])
        if not usable[0]:
            break
        start = (guess[np.r_[0, rest + 1]] - spread[np.r_[0, rest + 1]],
                 guess[np.r_[0, rest + 1]] + spread[np.r_[0, rest + 1]])
        fits, r = _effects(server, members[usable], (start[0][usable], start[1][usable]))
        spent += r
        est = np.full((members.shape[0], 2), np.nan)
        est[usable] = fits
        move = est[0, 0] - est[1:, 0]
        with np.errstate(invalid="ignore", divide="ignore"):
            effect = move / est[1:, 1]
        over = np.isfinite(effect) & (np.abs(effect) > threshold)
        if not over.any():
            break
        # of the clients over the threshold, the one that moves lambda most (not the largest
        # effect: next to a client claiming 1e6 times its rows, every honest client moves
        # lambda a little, in the tiny standard errors of that client's rows)
        j = int(np.argmax(np.where(over, np.abs(move), -1.0)))
        out.append(Flag(int(rest[j]), float(effect[j])))
        left[rest[j]] = False
        # the next pass starts from this one: its base is this subset without rest[j], and
        # leaving out client i moves lambda about as much again
        ok = np.isfinite(est[1:, 0]) & np.isfinite(est[1:, 1]) & (est[1:, 1] > 0)
        guess[rest + 1] = np.where(ok, est[1 + j, 0] + est[1:, 0] - est[0, 0], est[1 + j, 0])
        spread[rest + 1] = np.where(ok, est[1:, 1], width)
        guess[0], spread[0] = est[1 + j, 0], est[1 + j, 1] if ok[j] else width
    return out, spent


def describe(effect: float, threshold: float, column: str | None) -> str:
    """The reason recorded for a client the screen left out.

    Examples
    --------
    >>> from boxcoxstat.federated.influence import describe
    >>> describe(-6.93, 3.0, None)
    'influential: leaving it out moves lambda by 6.93 standard errors (more than screen=3)'
    """
    where = "" if column is None else f" of column {column!r}"
    return (f"influential: leaving it out moves lambda{where} by {abs(effect):.3g} standard "
            f"errors (more than screen={threshold:g})")


def merge_flags(found: dict[str, float], labels: Sequence[str], flags: list[Flag]) -> None:
    """Record ``flags`` in ``found`` (label -> effect), keeping the largest effect of a
    client flagged in several columns.

    Examples
    --------
    >>> from boxcoxstat.federated.influence import Flag, merge_flags
    >>> found = {"#1": 4.0}
    >>> merge_flags(found, ["#0", "#1"], [Flag(1, -5.0), Flag(0, 3.5)])
    >>> found
    {'#1': -5.0, '#0': 3.5}
    """
    for f in flags:
        label = labels[f.index]
        if label not in found or abs(f.effect) > abs(found[label]):
            found[label] = f.effect
