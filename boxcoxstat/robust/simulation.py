"""The simulation design of Raymaekers & Rousseeuw (2021), section 3.2: bias and MSE of
lambda estimators on clean and contaminated data.

For each true lambda, contamination fraction ``epsilon`` and position ``k``: draw
``m`` standard normal samples of size ``n``, replace a fraction ``epsilon`` of each by ``k``
(``lambda <= 1``) or ``-k`` (``lambda > 1``), apply the inverse transform, and estimate lambda
by every estimator. All ``m`` samples of a setting are fitted at once as the columns of one
matrix; settings run in parallel with joblib (``n_jobs``) behind a tqdm progress bar. Each
setting draws from its own stream spawned from ``random_state``, so the numbers do not depend
on ``n_jobs``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from .. import families as fam
from .._validation.columns import BoxCoxError, normalize_family
from ..base import jsonio
from ..base.jsonio import saved
from ..base.results import LIKELIHOOD, UNCERTAINTY, ResultBase, refusals
from ..base.summary import Summary
from .registry import EstimatorLike, Spec, lambdas, parse_specs
from .sensitivity import check_specs, describe_specs

__all__ = ["SimulationResult", "simulate", "PAPER_ESTIMATORS"]

SETTING = ["lmbda", "epsilon", "k"]
# the estimators of the paper's section 3.1 (MTL95/90/85 and RewMLnr as registry specs)
PAPER_ESTIMATORS = ("mle", "carroll", ("mtl", {"h": 0.95}), ("mtl", {"h": 0.9}),
                    ("mtl", {"h": 0.85}), "rewml", ("rewml", {"rectified": False}))


_NOT_A_LIKELIHOOD_FIT = (
    "a simulation study's estimates are rows of its table (one per replication and "
    "estimator)"
)


@dataclass(frozen=True, repr=False, eq=False)
class SimulationResult(ResultBase):
    """Bias and MSE by setting and estimator (build with :func:`boxcoxstat.simulate`).

    Attributes
    ----------
    table : DataFrame
        ``bias`` and ``mse``, indexed by (``lmbda``, ``epsilon``, ``k``, ``estimator``).
    estimates : DataFrame
        Every replication's lambda (column ``estimate``), indexed by (``lmbda``,
        ``epsilon``, ``k``, ``estimator``, ``replication``).
    estimators : dict
        Each estimator's label, method and the options given (others at their defaults).

    Examples
    --------
    >>> import boxcoxstat as bcs
    >>> sim = bcs.simulate("yeojohnson", lmbda=1.0, epsilon=0.1, k=10,
    ...                    estimators=["mle", "rewml"], m=5, random_state=1, progress=False)
    >>> back = bcs.SimulationResult.from_json(sim.to_json())
    >>> back.table.equals(sim.table), back.bias().columns.tolist()
    (True, ['mle', 'rewml'])
    """

    _vocabulary_why: ClassVar[dict[str, str]] = refusals(
        _NOT_A_LIKELIHOOD_FIT, "lmbda", "params", "nobs", *UNCERTAINTY, *LIKELIHOOD)

    table: pd.DataFrame = saved(jsonio.Frame())
    estimates: pd.DataFrame = saved(jsonio.Frame())
    family: str = saved(jsonio.Str(choices=("boxcox", "yeojohnson")))
    n: int = saved(jsonio.Int(minimum=10))
    m: int = saved(jsonio.Int(minimum=1))
    estimators: dict[str, Any] = saved(jsonio.Mapping_())
    random_state: int | None = saved(jsonio.Int(optional=True), default=None)

    @staticmethod
    def _check_loaded(values: dict[str, Any]) -> None:
        for name, index, columns in (("table", SETTING + ["estimator"], ["bias", "mse"]),
                                     ("estimates", SETTING + ["estimator", "replication"],
                                      ["estimate"])):
            frame = values[name]
            if list(frame.index.names) != index or list(frame.columns) != columns:
                raise jsonio._Bad(f"field {name!r} must be indexed by {index} with columns "
                                  f"{columns}")
            for level in SETTING + index[len(SETTING) + 1:]:  # the settings are numbers
                if not all(isinstance(v, (int, float, np.number)) and not isinstance(v, bool)
                           and -1e300 < v < 1e300
                           for v in frame.index.get_level_values(level)):
                    raise jsonio._Bad(f"field {name!r}: the index level {level!r} must hold "
                                      "finite numbers")
            if not all(isinstance(v, str) for v in frame.index.get_level_values("estimator")):
                raise jsonio._Bad(f"field {name!r}: the index level 'estimator' must hold "
                                  "names")
        labels = list(dict.fromkeys(values["table"].index.get_level_values("estimator")))
        check_specs(values["estimators"], labels)

    def _wide(self, stat: str) -> pd.DataFrame:
        long = self.table[stat].reset_index()
        out = long.pivot_table(index=SETTING, columns="estimator", values=stat, sort=False)
        out.columns.name = "estimator"
        return out[list(self.estimators)]

    def bias(self) -> pd.DataFrame:
        """Bias in wide form: rows (lmbda, epsilon, k), one column per estimator."""
        return self._wide("bias")

    def mse(self) -> pd.DataFrame:
        """MSE in wide form: rows (lmbda, epsilon, k), one column per estimator."""
        return self._wide("mse")

    def summary(self) -> Summary:
        """Bias and MSE of every estimator in every setting."""
        label = "Box-Cox" if self.family == "boxcox" else "Yeo-Johnson"
        notes = [
            f"{self.m} samples of n = {self.n} per setting: standard normal draws, a fraction "
            "epsilon of them replaced by k (by -k when lambda > 1), then the inverse "
            f"{label} transform at lambda (Raymaekers & Rousseeuw 2021, section 3).",
        ]
        if self.family == "boxcox" and 1.0 in set(self.table.index.get_level_values("lmbda")):
            notes.append("Box-Cox lambda = 1: the normal draws are N(0, (1/3)^2) truncated to "
                         "[-0.99, 0.99] (x = 1 + y in [0.01, 1.99]; section 3.4).")
        notes += [
            "Robust estimators run without prestandardization unless their options say so.",
        ]
        if self.random_state is not None:
            notes.append(f"random_state = {self.random_state}")
        bias, mse = self.bias(), self.mse()
        for frame in (bias, mse):
            frame.index = [", ".join(f"{k}={v:g}" for k, v in zip(SETTING, i, strict=True))
                           for i in frame.index]
        return Summary(f"Simulation: bias and MSE of lambda estimators ({label})",
                       [("Bias", bias), ("MSE", mse)], notes, {})

    def __repr__(self) -> str:
        settings = self.table.index.droplevel("estimator").unique().size
        return (f"<SimulationResult {self.family}: {settings} settings x {self.m} samples of "
                f"n {self.n}; {', '.join(self.estimators)}>")


TRUNCATED_SD = 1.0 / 3.0  # the Box-Cox lambda = 1 design: N(1, (1/3)^2) on [0.01, 1.99]
TRUNCATED_HALF_WIDTH = 0.99


def _truncated_normal(rng: np.random.Generator, n: int, m: int) -> np.ndarray:
    """``n x m`` draws of N(0, (1/3)^2) truncated to [-0.99, 0.99], by rejection (each draw
    outside is redrawn, so every column keeps ``n`` points, as the paper says)."""
    y = rng.standard_normal((n, m)) * TRUNCATED_SD
    bad = np.abs(y) > TRUNCATED_HALF_WIDTH
    while bad.any():
        y[bad] = rng.standard_normal(int(bad.sum())) * TRUNCATED_SD
        bad = np.abs(y) > TRUNCATED_HALF_WIDTH
    return y


def _one_setting(family: str, lam: float, eps: float, k: float, n: int, m: int,
                 specs: list[Spec], seed: Any) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    if family == "boxcox" and lam == 1.0:
        y = _truncated_normal(rng, n, m)
    else:
        y = rng.standard_normal((n, m))
    n_out = int(round(eps * n))
    y[:n_out] = k if lam <= 1 else -k
    x = fam.inverse_transform(y, lam, family)
    return {s.label: lambdas(x, family, s.with_defaults(prestandardize="none")) for s in specs}


def simulate(
    family: str = "yeojohnson",
    *,
    lmbda: float | Sequence[float] = (0.5, 1.0, 1.5),
    epsilon: float | Sequence[float] = (0.0, 0.05, 0.1, 0.15),
    k: float | Sequence[float] = 10,
    estimators: Sequence[EstimatorLike] = PAPER_ESTIMATORS,
    n: int = 100,
    m: int = 100,
    random_state: int | None = None,
    n_jobs: int = 1,
    progress: bool = True,
) -> SimulationResult:
    """Bias and MSE of lambda estimators under the paper's contamination design.

    Parameters
    ----------
    family : {"yeojohnson", "boxcox"}
        Box-Cox takes lambda = 0 (lognormal data: the inverse transform of normal data) and
        lambda = 1, the paper's design for a transform whose range is not the whole line
        (section 3.4, Fig. 8 bottom): N(1, (1/3)^2) truncated to [0.01, 1.99] by rejection
        (n points kept), i.e. the inverse transform at lambda = 1 of N(0, (1/3)^2) on
        [-0.99, 0.99]; the outliers replace a fraction epsilon of those normal values by
        ``k`` before the inverse transform, so they lie at x = 1 + k.
    lmbda, epsilon, k : float or sequence
        True lambdas, contamination fractions and outlier positions (all combinations).
    estimators : sequence of str or (str, dict)
        Estimators of :mod:`boxcoxstat.robust.registry`, each a method name or a
        ``(method, {options})`` pair; default: the paper's ML, Carroll, MTL95/90/85 (``("mtl",
        {"h": 0.95})``...), RewML and RewMLnr (``("rewml", {"rectified": False})``). Their
        labels (``"mtl(h=0.95)"``) name them in the tables. Robust estimators run without
        prestandardization unless their options say otherwise, so their lambda refers to the
        data as generated.
    n, m : int
        Sample size and number of replications (the paper: 100 and 100).
    random_state : int, optional
        Seed; each setting gets its own spawned stream.
    n_jobs : int, default=1
        Parallel workers (joblib, from the ``robust`` extra); ``-1`` for all cores.
    progress : bool, default=True
        Show a tqdm progress bar over the settings (if tqdm is installed).

    Returns
    -------
    SimulationResult

    Examples
    --------
    >>> import boxcoxstat as bcs
    >>> sim = bcs.simulate("yeojohnson", lmbda=1.0, epsilon=0.1, k=10,
    ...                    estimators=["mle", "rewml"], m=5, random_state=1, progress=False)
    >>> b = sim.bias().iloc[0]
    >>> bool(abs(b["rewml"]) < 0.2 < abs(b["mle"]))
    True
    """
    family = normalize_family(family, allow_auto=False)
    lams = [float(v) for v in np.atleast_1d(lmbda)]
    epss = [float(v) for v in np.atleast_1d(epsilon)]
    ks = [float(v) for v in np.atleast_1d(k)]
    if any(not (np.isfinite(v) and v >= 0) for v in ks):
        raise BoxCoxError(f"k (the outliers' distance) must be finite and >= 0, got {k!r}")
    if any(not 0 <= e < 0.5 for e in epss):
        raise BoxCoxError("epsilon must lie in [0, 0.5)")
    if int(n) < 10 or int(m) < 1:
        raise BoxCoxError(f"need n >= 10 and m >= 1, got n={n!r}, m={m!r}")
    if family == "yeojohnson" and any(not 0 <= v <= 2 for v in lams):
        raise BoxCoxError("Yeo-Johnson lambda must lie in [0, 2] so that every normal value "
                          "has an inverse (as in the paper)")
    if family == "boxcox" and any(v not in (0.0, 1.0) for v in lams):
        raise BoxCoxError("Box-Cox simulation supports lambda = 0 (lognormal data) and "
                          "lambda = 1 (the paper's truncated normal design), got "
                          f"{[v for v in lams if v not in (0.0, 1.0)]}")
    specs = parse_specs(estimators)
    settings = list(itertools.product(lams, epss, ks))
    seeds = np.random.SeedSequence(random_state).spawn(len(settings))
    jobs = [(family, lam, eps, kk, int(n), int(m), specs, seed)
            for (lam, eps, kk), seed in zip(settings, seeds, strict=True)]
    bar: Any = None
    if progress:
        try:
            from tqdm.auto import tqdm

            bar = tqdm(total=len(jobs), desc="simulate", leave=False)
        except ImportError:  # pragma: no cover - the progress bar is optional
            bar = None
    if n_jobs == 1:
        results = []
        for job in jobs:
            results.append(_one_setting(*job))
            if bar is not None:
                bar.update()
    else:
        try:
            from joblib import Parallel, delayed
        except ImportError as err:  # pragma: no cover
            raise BoxCoxError("n_jobs != 1 needs joblib: pip install 'boxcoxstat[robust]'"
                              ) from err
        results = []
        for out in Parallel(n_jobs=n_jobs, return_as="generator")(
            delayed(_one_setting)(*job) for job in jobs
        ):
            results.append(out)
            if bar is not None:
                bar.update()
    if bar is not None:
        bar.close()
    keys, rows, reps = [], [], []
    for (lam, eps, kk), res in zip(settings, results, strict=True):
        for s in specs:
            d = res[s.label] - lam
            keys.append((lam, eps, kk, s.label))
            rows.append((float(d.mean()), float((d * d).mean())))
            reps.append(res[s.label])
    table = pd.DataFrame(rows, columns=["bias", "mse"],
                         index=pd.MultiIndex.from_tuples(keys, names=SETTING + ["estimator"]))
    reps_index = pd.MultiIndex.from_tuples(
        [(*key, r) for key, est in zip(keys, reps, strict=True) for r in range(est.size)],
        names=SETTING + ["estimator", "replication"])
    estimates = pd.DataFrame({"estimate": np.concatenate(reps)}, index=reps_index)
    return SimulationResult(table, estimates, family, int(n), int(m), describe_specs(specs),
                            None if random_state is None else int(random_state))
