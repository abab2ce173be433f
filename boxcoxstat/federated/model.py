"""``federated.fit``: the global maximum-likelihood lambda from per-site summaries."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from .._validation.columns import BoxCoxError, check_option, normalize_family
from ..core.bounds import lambda_bounds
from ..core.partitioned import ColumnFit, fit_table
from ..core.partitioned import fit_column as core_fit_column
from ..core.profile import CallbackProfile
from ..core.solve import OPTIMIZERS
from ..exceptions import user_stacklevel
from ..univariate.model import auto_family
from ..univariate.results import PowerTransformResult
from .client import Client
from .coordinator import DEFAULT_MAX_MESSAGE_BYTES, Coordinator, LocalTransport
from .influence import DEFAULT_SCREEN, check_screen, describe, merge_flags, screen_column
from .paper import solution
from .server import DEFAULT_TIMEOUT, PROTOCOLS, ClientDropped, Server, check_timeout, client_label

__all__ = ["fit", "nll_curve", "build_result", "fit_column", "ColumnFit", "check_ymax"]

MAX_RESTARTS = 1000


def fit_column(prepare: Callable[[str], CallbackProfile], family: str,
               value_range: tuple[float, float], nobs: int, **options: Any) -> ColumnFit:
    """The core's :func:`~boxcoxstat.core.partitioned.fit_column` with ``boxcoxstat.fit``'s
    rule for ``family="auto"`` (:func:`~boxcoxstat.univariate.model.auto_family`)."""
    return core_fit_column(prepare, family, value_range, nobs, choose=auto_family, **options)


def build_result(
    names: Sequence[str],
    layout: str,
    family: str,
    fits: Sequence[ColumnFit],
    n_missing: Sequence[int],
    info: dict[str, Any],
    ymax: float | None = None,
    bounds: NDArray[np.float64] | None = None,
) -> PowerTransformResult:
    """A :class:`~boxcoxstat.PowerTransformResult` for a fit that never pooled its data
    (``bounds``: the (p, 2) bounds the fits maximised on)."""
    table = fit_table(fits, names)
    for text, category in table.warnings:
        warnings.warn(text, category, stacklevel=user_stacklevel())
    return PowerTransformResult._from_table(table, names, layout, family, n_missing, info,
                                            ymax=ymax, bounds=bounds)


def held_options(family: str, ymax: Any, missing: str, optimizer: str
                 ) -> tuple[str, float | None]:
    """The options of a direct fit of partitioned data (``fit_dask``, ``fit_spark``) checked
    before its set-up pass: the canonical family and the checked ``ymax``."""
    fam = normalize_family(family)
    checked = check_ymax(ymax)
    check_option("missing", missing, ("drop", "raise"))
    check_option("optimizer", optimizer, OPTIMIZERS)
    return fam, checked


def check_ymax(ymax: Any) -> float | None:
    """``None`` or a positive finite bound (checked before any round is spent)."""
    if ymax is None:
        return None
    if isinstance(ymax, bool) or not isinstance(ymax, (int, float, np.floating, np.integer)):
        raise BoxCoxError(f"ymax must be a positive finite number, got {ymax!r}")
    lambda_bounds(np.array([1.0]), float(ymax))  # the core's own check of the bound
    return float(ymax)


def _wrap(clients: Sequence[Any], family: str, weights: Any = None) -> list[Any]:
    if isinstance(clients, (np.ndarray, str, bytes)) or not isinstance(clients, Sequence) \
            or not len(clients):
        raise BoxCoxError("clients must be a non-empty list of arrays or Client objects")
    per: list[Any] = [None] * len(clients)
    if isinstance(weights, str):
        per = [weights] * len(clients)
    elif weights is not None and weights is not True:
        if isinstance(weights, (np.ndarray, bytes)) or not isinstance(weights, Sequence) \
                or len(weights) != len(clients):
            raise BoxCoxError("weights must be True (the Client objects hold them), a column "
                              "name of every site's DataFrame, or a list with one array of "
                              f"weights per site ({len(clients)} sites)")
        per = list(weights)
    out = []
    for i, (c, w) in enumerate(zip(clients, per, strict=True)):
        if hasattr(c, "respond"):
            if w is not None:
                raise BoxCoxError(f"client #{i} is a Client object: give it its weights "
                                  "(Client(data, weights=...)) and pass weights=True")
            out.append(c)
        else:  # arrays become unnamed clients: the server names each by its place, "#<i>"
            try:
                out.append(Client(c, family=family, weights=w))
            except BoxCoxError as err:
                raise BoxCoxError(str(err).replace("the client", f"client #{i}", 1)) from None
    return out


def fit(
    clients: Sequence[Any],
    *,
    family: Literal["boxcox", "yeojohnson", "auto"] = "boxcox",
    ymax: float | None = None,
    optimizer: Literal["score", "brent", "grid"] | None = None,
    grid: int = 1000,
    on_bad_client: Literal["raise", "drop"] = "raise",
    protocol: Literal["full", "minimal"] = "minimal",
    timeout: float | None = DEFAULT_TIMEOUT,
    screen: float | None = DEFAULT_SCREEN,
    on_influential: Literal["report", "drop"] = "report",
    deadline: float | None = None,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    share_range: bool = False,
    weights: Any = None,
) -> PowerTransformResult:
    """Maximum-likelihood lambda of data split across sites that cannot pool it.

    The server evaluates the *global* profile NLL (and its score) from per-site summaries,
    merged pairwise (Xu & Cormode 2025, Algorithms 1-3); averaging local lambdas would be
    wrong. The result equals ``boxcoxstat.fit`` on the pooled data to about 1e-12 relative,
    one lambda per column.

    Parameters
    ----------
    clients : sequence of array_like or Client
        One entry per site: its values (1-D, or 2-D / a DataFrame for several columns,
        wrapped in a :class:`~boxcoxstat.federated.Client` named ``"client <i>"``) or any
        object with the client methods (``name``, ``setup``, ``receive_frame``,
        ``respond``). Every site must hold the same columns; each object is passed once.
    family : {"boxcox", "yeojohnson", "auto"}, default="boxcox"
        ``"auto"``: per column, Box-Cox where the column is positive and its log-likelihood
        is at least Yeo-Johnson's, as ``boxcoxstat.fit(..., family="auto")`` decides.
    ymax : float, optional
        Bound on the magnitude of the transformed values: lambda is clipped to the interval
        on which every ``|psi(lambda, x)| <= ymax`` (Lambert W inverse of the global min and
        max, Xu & Cormode 2025), as ``boxcoxstat.fit(x, ymax=...)`` does.
    optimizer : {"score", "brent", "grid"}, optional
        ``protocol="full"`` only (the paper's protocol has its own search, see
        :mod:`boxcoxstat.federated.paper`): ``"score"`` (its default), a bracketing root
        finder on the score, one lambda per round; ``"brent"``: the paper's Brent minimiser
        on NLL values (about 1e-8 relative); ``"grid"``: ``grid`` lambdas per round (section
        7), fewer rounds, larger messages.
    grid : int, default=1000
        Lambdas per round for ``optimizer="grid"``.
    on_bad_client : {"raise", "drop"}, default="raise"
        What to do with a client that is empty, raises, does not answer within ``timeout``
        or sends a message failing the checks (types, finiteness, consistency with its
        declared counts and ranges, see :mod:`boxcoxstat.federated.checks`): stop with an
        error naming it, or leave it out and list it in ``result.federated["dropped"]``.
    protocol : {"minimal", "full"}, default="minimal"
        ``"minimal"``: the paper's protocol (Xu & Cormode 2025, Algorithms 2-3; what Flower
        runs): counts only at set-up, then per round lambda alone down and ``(c, n, mean,
        s)`` up (Yeo-Johnson ``(c, n_pos, n_neg, mean, s)``). Lambda equals the central MLE
        to about 1e-11 relative, also on the adversarial data of Xu & Cormode's Table 1, in
        at most about 25 rounds (Brent's search from the data's own scale, then one step on
        the score's quadratic model from five NLL values; see
        :mod:`boxcoxstat.federated.paper`); SE, tests and influence screen in no extra
        round, the interval in 4 to 9 more rounds of two lambdas. ``"full"``: ranges at
        set-up, derivative moments (7 numbers per sign and lambda), the checks against the
        declared ranges and ``optimizer=``; more revealed, the same numbers.
    timeout : float or None, default=60
        Seconds each client may take per call (``None``: wait for ever).
    screen : float or None, default=3.0
        The influence screen (:mod:`boxcoxstat.federated.influence`): a client whose
        leave-one-out effect on lambda (lambda with it minus lambda without it, in standard
        errors of the fit without it) exceeds ``screen`` is flagged, one at a time, the
        others screened again without it; at most ``(k - 1) // 2`` of ``k`` clients, and
        only among three or more. It catches what the message checks cannot: a client whose
        lie is consistent, such as a count ten times its rows with the moments to match.
        It costs about as many rounds as the fit, each with ``k + 1`` lambdas; ``None``
        skips it.
    on_influential : {"report", "drop"}, default="report"
        Flagged clients are listed in ``result.federated["influential"]`` (label -> effect
        in standard errors) and the summary; ``"drop"`` also leaves them out (listed in
        ``"dropped"`` with the effect) and fits the others afresh.
    deadline : float or None, default=None
        Seconds the whole fit may take (then a :class:`~boxcoxstat.BoxCoxError`);
        ``protocol="minimal"``.
    max_message_bytes : int, default=65536
        Largest reply accepted on the wire (JSON bytes); a larger one is refused before it
        is parsed and its client named or dropped. ``protocol="minimal"``.
    share_range : bool, default=False
        ``protocol="minimal"``: ask every client for its minimum and maximum at set-up (an
        opt-in the result reports), so ``ymax`` uses the global range; without it ``ymax``
        uses the outer range that round 1 proves (Samuelson's inequality), a safe, more
        cautious bound.
    weights : str, list of array_like or True, optional
        Case weights (the paper's protocol): the name of a column of every site's DataFrame,
        one array of weights per site, or ``True`` when the clients are
        :class:`~boxcoxstat.federated.Client` objects holding their own
        (``Client(data, weights=...)``). The likelihood is ``lm(x ~ 1, weights=w)``'s, as
        ``bcs.fit(x, weights=w)`` in memory: moments weighted, the Jacobian not, rows of
        weight 0 left out; lambda, the interval, the tests and ``llf`` equal the in-memory
        weighted fit. Each client also sends at set-up its weight total, the sum of the
        logs of its weights (for ``llf``) and, if its values are on one side, the sum of
        its log-ratios (the rounding residue of ``c``). Not with ``ymax=`` or
        ``protocol="full"``.

    Returns
    -------
    PowerTransformResult
        With the 95% profile interval, standard error and LR tests at 0 and 1 computed in
        extra rounds, and ``federated`` = ``{"clients", "dropped", "influential", "screen",
        "rounds", "fit_rounds", "screen_rounds", "evaluations", "bytes_up", "bytes_down",
        "optimizer", "protocol", "unit"}`` (shown in the summary) and, under the paper's
        protocol, ``"messages"`` (every exchange: column, round, kind, numbers down and up by
        client), ``"by_kind"``, ``"revealed"`` (numbers each client sent and received),
        ``"setup"``, ``"interval_rounds"``, ``"ymax_range"``. Clients are named by the
        server: ``"#<i>"``, their place in ``clients`` (from 0), and their name where they
        have one, so equal or missing names never merge.

    Raises
    ------
    BoxCoxError
        For a bad client under ``on_bad_client="raise"`` (the message names it), no usable
        client, fewer than 3 values or constant pooled data, bad options.

    Notes
    -----
    What each message reveals is listed in :mod:`boxcoxstat.federated.messages`. Under the
    paper's protocol (``protocol="minimal"``): counts once, then per lambda Algorithm 2's ``(c, n,
    mean, s)`` or Algorithm 3's ``(c, n_pos, n_neg, mean, s)``; under the full protocol:
    counts and the min/max of each side once, then per lambda and side the count, sum of
    log-ratios, mean and sum of squared deviations of the scaled transform and two
    derivative moments. The same server runs on Flower
    (:mod:`boxcoxstat.federated.flower`).

    Examples
    --------
    >>> import numpy as np, boxcoxstat as bcs
    >>> rng = np.random.default_rng(0)
    >>> sites = [rng.lognormal(size=n) for n in (50, 80, 120)]
    >>> r = bcs.federated.fit(sites)
    >>> bool(abs(r.lmbda - bcs.fit(np.concatenate(sites)).lmbda) < 1e-10)
    True
    >>> r.federated["clients"], r.federated["fit_rounds"] <= 30
    (3, True)
    >>> r.federated["influential"], r.federated["dropped"]  # the screen found no one
    ({}, {})
    """
    fam = normalize_family(family)
    check_option("protocol", protocol, PROTOCOLS)
    check_option("on_bad_client", on_bad_client, ("raise", "drop"))
    check_option("on_influential", on_influential, ("report", "drop"))
    ymax = check_ymax(ymax)
    threshold = check_screen(screen)
    if weights is not None and weights is not False:
        if protocol != "minimal":
            raise BoxCoxError("weights= applies to the paper's protocol (protocol='minimal', "
                              "the default); the full protocol does not take case weights")
        if ymax is not None:
            raise BoxCoxError("weights= and ymax= together are not available federated (the "
                              "outer range round 1 proves assumes unit weights); fit without "
                              "ymax, or with weights in memory (bcs.fit(x, weights=w, "
                              "ymax=...))")
    else:
        weights = None
    if protocol == "minimal":
        if optimizer is not None:
            raise BoxCoxError(f"optimizer={optimizer!r} applies to protocol='full'; the "
                              "paper's protocol (protocol='minimal') has its own search from NLL "
                              "values (see boxcoxstat.federated.paper)")
        return _fit_minimal(clients, fam, ymax=ymax, on_bad_client=on_bad_client,
                            timeout=timeout, screen=threshold, on_influential=on_influential,
                            deadline=deadline, max_message_bytes=max_message_bytes,
                            share_range=share_range, weights=weights)
    if share_range:
        raise BoxCoxError("share_range applies to protocol='minimal' (the full protocol "
                          "always sends the ranges)")
    if optimizer is None:
        optimizer = "score"
    check_option("optimizer", optimizer, OPTIMIZERS)
    server = Server(_wrap(clients, fam), "yeojohnson" if fam == "auto" else fam, on_bad_client,
                    timeout=timeout, protocol=protocol)
    state = _Screening(threshold, on_influential, (len(server.clients) - 1) // 2)
    try:
        for _ in range(MAX_RESTARTS):
            try:
                fits, n_missing, fit_rounds = _fit_all(server, fam, optimizer, grid, ymax,
                                                       state)
                break
            except ClientDropped:
                continue
    finally:
        server.close()
    p = len(fits)
    names = (list(server.names) if server.names is not None
             else ["x"] if p == 1 else [f"x{j}" for j in range(p)])
    # one column gives a scalar lambda, as before columns were named (a Series' name kept)
    layout = ("array1d" if server.names is None else "series") if p == 1 else (
        "array2d" if server.names is None else "frame")
    info = server.info() | {"fit_rounds": fit_rounds, "optimizer": optimizer,
                            "protocol": protocol, "unit": "clients", "screen": threshold,
                            "influential": state.found, "screen_rounds": state.rounds}
    return build_result(names, layout, fam, fits, n_missing, info, ymax)


def check_limits(deadline: Any, max_message_bytes: Any) -> tuple[float | None, int]:
    """``deadline``: ``None`` or positive seconds; ``max_message_bytes``: an integer >= 256."""
    if deadline is not None:
        if (isinstance(deadline, bool) or not isinstance(deadline, (int, float))
                or not np.isfinite(deadline) or deadline <= 0):
            raise BoxCoxError(f"deadline must be a positive number of seconds or None, got "
                              f"{deadline!r}")
        deadline = float(deadline)
    if (isinstance(max_message_bytes, bool) or not isinstance(max_message_bytes,
                                                              (int, np.integer))
            or max_message_bytes < 256):
        raise BoxCoxError(f"max_message_bytes must be an integer >= 256, got "
                          f"{max_message_bytes!r}")
    return deadline, int(max_message_bytes)


def fit_with(coordinator: Coordinator, family: str, *, ymax: float | None,
             screen: float | None, on_influential: str) -> PowerTransformResult:
    """Run the paper's protocol with ``coordinator`` (any transport) and build the result."""
    outs, flagged = coordinator.fit(family, ymax=ymax, screen=screen,
                                    on_influential=on_influential)
    fits = []
    for o in outs:
        f = o.fit
        inf = {k: np.array([getattr(f, k)]) for k in ("bse", "lower", "upper", "lr0", "lr1")}
        fits.append(ColumnFit(solution(f), inf, o.family, o.reason, o.lmbda_used, o.llf,
                              o.limits, f.nobs, f.fit_rounds, o.value_range,
                              o.value_range_source == "outer"))
    p = len(fits)
    names = (list(coordinator.names) if coordinator.names is not None
             else ["x"] if p == 1 else [f"x{j}" for j in range(p)])
    layout = ("array1d" if coordinator.names is None else "series") if p == 1 else (
        "array2d" if coordinator.names is None else "frame")
    info = coordinator.info() | {
        "fit_rounds": sum(o.fit.fit_rounds for o in outs),
        "interval_rounds": sum(o.fit.infer_rounds for o in outs),
        "screen_rounds": 0, "optimizer": "brent+polish", "protocol": "minimal",
        "unit": "clients", "screen": screen, "influential": flagged,
        "ymax_range": sorted({o.range_source for o in outs if o.range_source}),
        "weighted": coordinator.weighted,
    }
    return build_result(names, layout, family, fits, [o.n_missing for o in outs], info, ymax)


def _fit_minimal(clients: Sequence[Any], fam: str, *, ymax: float | None, on_bad_client: str,
                 timeout: Any, screen: float | None, on_influential: str, deadline: Any,
                 max_message_bytes: Any, share_range: bool, weights: Any = None
                 ) -> PowerTransformResult:
    timeout = check_timeout(timeout)
    deadline, max_bytes = check_limits(deadline, max_message_bytes)
    wrapped = _wrap(clients, fam, weights)
    labels, kept = [], []
    seen: dict[int, str] = {}
    dropped: dict[str, str] = {}
    for i, c in enumerate(wrapped):
        lab = client_label(i, c)
        if id(c) in seen:
            why = f"is the same object as client {seen[id(c)]!r}; pass each client once"
            if on_bad_client == "raise":
                raise BoxCoxError(f"client {lab!r} {why}")
            dropped[lab] = why
            continue
        if not (hasattr(c, "counts") and hasattr(c, "answer")):
            raise BoxCoxError(f"client {lab!r} does not speak the paper's protocol (it has no "
                              "counts/answer methods); pass protocol='full'")
        seen[id(c)] = lab
        labels.append(lab)
        kept.append(c)
    transport = LocalTransport(kept, labels)
    coord = Coordinator(transport, on_bad_client=on_bad_client, timeout=timeout,
                        deadline=deadline, max_message_bytes=max_bytes,
                        share_range=bool(share_range), weighted=weights is not None)
    coord.tally.dropped.update(dropped)
    try:
        return fit_with(coord, fam, ymax=ymax, screen=screen, on_influential=on_influential)
    finally:
        transport.close()


@dataclass
class _Screening:
    """The influence screen's settings and what it found (kept across restarts)."""

    threshold: float | None
    action: str
    budget: int  # how many more clients it may flag
    found: dict[str, float] = field(default_factory=dict)  # label -> effect (SEs)
    left_out: dict[str, float] = field(default_factory=dict)  # those dropped
    rounds: int = 0
    cleared: dict[int, frozenset[str]] = field(default_factory=dict)  # column -> clients

    def run(self, server: Server, fit: ColumnFit, column: int) -> None:
        """Screen the column just fitted; under ``"drop"`` leave the flagged clients out
        and restart the fit (:class:`ClientDropped`)."""
        if self.threshold is None or len(server.active) < 3:
            return
        labels = [server.label(c) for c in server.active]
        if self.cleared.get(column) == frozenset(labels):
            return  # the last pass of an earlier screen found none of them influential
        minimal, server.minimal = server.minimal, False  # the screen needs the score
        try:
            budget = self.budget if self.action == "drop" else (len(server.clients) - 1) // 2
            flags, spent = screen_column(server, float(fit.sol.lmbda[0]),
                                         float(fit.inf["bse"][0]), self.threshold, budget)
        finally:
            server.minimal = minimal
        self.rounds += spent
        if self.action == "drop" and flags:
            flagged = {labels[f.index] for f in flags}
            self.cleared[column] = frozenset(x for x in labels if x not in flagged)
            name = None if (server.ncols or 1) == 1 else server.column_name(column)
            merge_flags(self.left_out, labels, flags)
            for f in flags:
                server.drop(server.active[f.index], describe(f.effect, self.threshold, name))
            self.budget -= len(flags)
            server.frame = None
            raise ClientDropped
        merge_flags(self.found, labels, flags)


def _fit_all(server: Server, family: str, optimizer: str, grid: int,
             ymax: float | None, state: _Screening
             ) -> tuple[list[ColumnFit], list[int], int]:
    """Every column in turn (a client dropped in any column restarts the whole fit)."""
    state.found = dict(state.left_out)  # a restart screens the clients kept afresh
    fits: list[ColumnFit] = []
    n_missing: list[int] = []
    fit_rounds = 0
    column = 0
    first = "yeojohnson" if family == "auto" else family
    while True:
        server.setup(column, first)

        def rounds(lam: NDArray[np.float64], cols: NDArray[np.intp], score: bool = True,
                   score_unit: NDArray[np.float64] | None = None):
            # one column: every pair is column 0
            return server.evaluate(lam, score=score, score_unit=score_unit)

        def prepare(f: str, minimal: bool = server.minimal) -> CallbackProfile:
            server.minimal = minimal
            if f != server.family:
                server.broadcast_frame(f)
            frame = server.frame
            return CallbackProfile(rounds, np.array([float(server.nobs)]),
                                   unit=None if frame is None else np.array([frame.unit]),
                                   reach=None if frame is None else np.array([frame.reach()]))

        minimal = server.minimal
        try:
            fits.append(fit_column(
                prepare, family, server.global_range, server.nobs, optimizer=optimizer,
                grid=grid, ymax=ymax,
                # the inference needs the score: full messages even under the minimal protocol
                infer_prepare=(lambda f: prepare(f, False)) if minimal else None))
        finally:
            server.minimal = minimal
        state.run(server, fits[-1], column)
        fit_rounds += fits[-1].rounds
        n_missing.append(server.n_missing)
        column += 1
        if column >= (server.ncols or 1):
            return fits, n_missing, fit_rounds
def nll_curve(
    clients: Sequence[Any], lmbda: Any, *, family: str = "boxcox"
) -> NDArray[np.float64]:
    """The global profile NLL at many lambdas, in one round of the stable protocol.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.federated import nll_curve
    >>> from boxcoxstat.core.likelihood import nll
    >>> x = np.random.default_rng(0).normal(1e4, 1e-3, 100)
    >>> lam = np.linspace(-2e5, 2e5, 5)
    >>> bool(np.allclose(nll_curve(np.array_split(x, 10), lam), nll(x, lam), rtol=1e-12))
    True
    """
    fam = normalize_family(family, allow_auto=False)
    server = Server(_wrap(clients, fam), fam)
    lam = np.asarray(lmbda, dtype=np.float64)
    try:
        val, _ = server.evaluate(lam.reshape(-1), score=False)
    finally:
        server.close()
    return val.reshape(lam.shape)
