"""``federated.fit``: the global maximum-likelihood lambda from per-site summaries.

Layer 6 (``federated``).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .._validation import BoxCoxError, check_option, normalize_family
from ..core.inference import standard_inference
from ..core.likelihood import llf_constant
from ..core.profile import CallbackProfile
from ..core.solve import OPTIMIZERS, Solution, solve
from ..univariate.results import PowerTransformResult
from .client import Client
from .server import ClientDropped, ClientLike, Server

__all__ = ["fit", "nll_curve", "build_result"]

MAX_RESTARTS = 1000


def infer(profile: CallbackProfile, sol: Solution) -> dict[str, NDArray[np.float64]]:
    """What the summary shows (SE, 95% interval, tests at 0 and 1) in a few more rounds; NaN
    when lambda did not converge."""
    if not sol.converged.all():
        return {k: np.full(profile.ncols, np.nan) for k in ("bse", "lower", "upper", "lr0",
                                                            "lr1")}
    return standard_inference(profile, sol.lmbda, sol.nll, slope=sol.slope)


def build_result(
    names: Sequence[str],
    layout: str,
    family: str,
    sols: Sequence[Solution],
    infs: Sequence[dict[str, NDArray[np.float64]]],
    nobs: Sequence[int],
    n_missing: Sequence[int],
    info: dict[str, Any],
) -> PowerTransformResult:
    """A :class:`~boxcoxstat.PowerTransformResult` for a fit that never pooled its data."""
    p = len(names)
    lam = np.concatenate([s.lmbda for s in sols])
    nll = np.concatenate([s.nll for s in sols])
    conv = np.concatenate([s.converged for s in sols])
    n = np.asarray(nobs, dtype=np.int64)
    stored = pd.DataFrame({k: np.concatenate([d[k] for d in infs]) for k in infs[0]},
                          index=list(names))
    if not conv.all():
        bad = [names[int(j)] for j in np.flatnonzero(~conv)]
        warnings.warn(f"lambda did not converge for column(s) {bad}", RuntimeWarning,
                      stacklevel=3)
    return PowerTransformResult(
        names=tuple(names),
        layout=layout,
        families=(family,) * p,
        family_reasons=("",) * p,
        requested_family=family,
        lmbda_mle=lam,
        lmbda_used=lam.copy(),
        nll_mle=nll,
        llf_values=-nll + llf_constant(n),
        nobs_values=n,
        n_missing=np.asarray(n_missing, dtype=np.int64),
        converged_values=conv,
        ymax=None,
        lambda_limits=np.tile([-np.inf, np.inf], (p, 1)),
        data=None,
        stored=stored,
        federated=info,
    )


def fit(
    clients: Sequence[Any],
    *,
    family: Literal["boxcox", "yeojohnson"] = "boxcox",
    optimizer: Literal["score", "brent", "grid"] = "score",
    grid: int = 1000,
    on_bad_client: Literal["raise", "drop"] = "raise",
) -> PowerTransformResult:
    """Maximum-likelihood lambda of data split across sites that cannot pool it.

    The server evaluates the *global* profile NLL (and its score) from per-site summaries,
    merged pairwise (Xu & Cormode 2025, Algorithms 1-3); averaging local lambdas would be
    wrong. The result equals ``boxcoxstat.fit`` on the pooled data to about 1e-12 relative.

    Parameters
    ----------
    clients : sequence of array_like or Client
        One entry per site: a 1-D array of its values (wrapped in a
        :class:`~boxcoxstat.federated.Client` named ``"client <i>"``) or any object with the
        client methods (``name``, ``setup``, ``receive_frame``, ``respond``).
    family : {"boxcox", "yeojohnson"}, default="boxcox"
    optimizer : {"score", "brent", "grid"}, default="score"
        ``"score"``: bracketing root finder on the score, one lambda per round;
        ``"brent"``: the paper's Brent minimiser on NLL values (about 1e-8 relative);
        ``"grid"``: ``grid`` lambdas per round (section 7), fewer rounds, larger messages.
    grid : int, default=1000
        Lambdas per round for ``optimizer="grid"``.
    on_bad_client : {"raise", "drop"}, default="raise"
        What to do with an empty client or one whose messages fail the checks (non-finite
        numbers, negative or inconsistent counts): stop with an error naming it, or leave it
        out and list it in ``result.federated["dropped"]``.

    Returns
    -------
    PowerTransformResult
        With the 95% profile interval, standard error and LR tests at 0 and 1 computed in
        extra rounds, and ``federated`` = ``{"clients", "dropped", "rounds", "fit_rounds",
        "evaluations", "bytes_up", "bytes_down", "optimizer", "unit"}`` (shown in the summary).

    Raises
    ------
    BoxCoxError
        For a bad client under ``on_bad_client="raise"`` (the message names it), no usable
        client, fewer than 3 values or constant pooled data.

    Notes
    -----
    What each message reveals is listed in :mod:`boxcoxstat.federated.messages`: counts and
    the min/max of each side once, then per lambda the count, sum of log-ratios and the
    mean and sum of squared deviations of the scaled transform (plus two derivative moments).

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
    """
    fam = normalize_family(family, allow_auto=False)
    check_option("optimizer", optimizer, OPTIMIZERS)
    check_option("on_bad_client", on_bad_client, ("raise", "drop"))
    if isinstance(clients, np.ndarray) or not len(clients):
        raise BoxCoxError("clients must be a non-empty list of arrays or Client objects")
    wrapped: list[ClientLike] = [
        c if hasattr(c, "respond") else Client(c, family=fam, name=f"client {i}")
        for i, c in enumerate(clients)
    ]
    server = Server(wrapped, fam, on_bad_client)

    def rounds(lam: NDArray[np.float64], cols: NDArray[np.intp], score: bool = True):
        return server.evaluate(lam, score=score)  # one column: every pair is column 0

    for _ in range(MAX_RESTARTS):
        try:
            server.setup()
            profile = CallbackProfile(rounds, np.array([float(server.nobs)]))
            sol = solve(profile, optimizer=optimizer, grid=grid)
            fit_rounds = server.tally.rounds
            inf = infer(profile, sol)
            break
        except ClientDropped:
            continue
    info = server.info() | {"fit_rounds": fit_rounds, "optimizer": optimizer,
                            "unit": "clients"}
    return build_result(["x"], "array1d", fam, [sol], [inf], [server.nobs],
                        [server.n_missing], info)


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
    wrapped = [c if hasattr(c, "respond") else Client(c, family=fam, name=f"client {i}")
               for i, c in enumerate(clients)]
    server = Server(wrapped, fam)
    lam = np.asarray(lmbda, dtype=np.float64)
    val, _ = server.evaluate(lam.reshape(-1), score=False)
    return val.reshape(lam.shape)
