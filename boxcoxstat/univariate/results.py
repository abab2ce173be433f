"""``PowerTransformResult``: maximum-likelihood powers of one or more columns and their inference.

Immutable and labelled when built. Inference at the default level is computed on first
use (through the core's one inference module, on the columns' profile) and cached; a result
fitted without pooling its data (federated, Dask) or loaded from JSON carries it stored.
Rendering is :mod:`~boxcoxstat.base.summary`'s, plotting :mod:`.plotting`'s.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, ClassVar, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from .._validation.columns import BoxCoxError, as_numbers, check_lambdas, check_option
from ..base import jsonio
from ..base.jsonio import saved
from ..base.results import HypothesisTest, check_alpha, interval_frame
from ..base.summary import Summary, format_number, format_power, format_pvalue
from ..base.transform import ColumnTransforms
from ..core import inference as inf
from ..core.profile import Profile, SampleProfile
from ..core.resolution import (
    ROUND_TRIP_RTOL,
    SAFE_RTOL,
    SAFE_YMAX,
    loses_resolution,
    loss_message,
)
from ..exceptions import ResolutionWarning

__all__ = ["PowerTransformResult"]

_STORED = ("bse", "lower", "upper", "lr0", "lr1")
_KINDS = {"boxcox": "Box-Cox", "yeojohnson": "Yeo-Johnson", "bcnpower": "bcnPower"}


def _check_federated(fed: dict[str, Any]) -> None:
    """A loaded ``federated`` record has what the report shows: ``clients``, ``rounds``
    (integers), ``unit`` (a string), optionally ``bytes_up`` and ``bytes_down`` (integers,
    together) and ``dropped`` (the names of sites left out)."""
    def count(key: str) -> bool:
        v = fed.get(key)
        return isinstance(v, int) and not isinstance(v, bool) and v >= 0

    if not (count("clients") and count("rounds") and isinstance(fed.get("unit"), str)):
        raise jsonio._Bad("field 'federated' must hold the counts 'clients' and 'rounds' and "
                          "the string 'unit'")
    if ("bytes_up" in fed or "bytes_down" in fed) and not (count("bytes_up")
                                                            and count("bytes_down")):
        raise jsonio._Bad("field 'federated' must hold 'bytes_up' and 'bytes_down' as counts")
    dropped = fed.get("dropped", [])
    if not isinstance(dropped, (list, dict)) or not all(isinstance(d, str) for d in dropped):
        raise jsonio._Bad("field 'federated': 'dropped' must list the names of sites")
    flagged = fed.get("influential", {})
    if not isinstance(flagged, dict) or not all(
            isinstance(k, str) and isinstance(v, (int, float)) and not isinstance(v, bool)
            for k, v in flagged.items()):
        raise jsonio._Bad("field 'federated': 'influential' must map site names to numbers")


def _lambda_test(names: tuple[str, ...], statistic: NDArray[np.float64], lmbda0: NDArray,
                scalar: bool) -> HypothesisTest:
    """The likelihood-ratio test of ``lambda = lmbda0`` per column (1 df each)."""
    null = "lambda = " + ", ".join(sorted({format_number(float(v)) for v in lmbda0}))
    return HypothesisTest(names, statistic, 1, null, scalar=scalar)


@dataclass(frozen=True, repr=False)
class PowerTransformResult(ColumnTransforms):
    """Maximum-likelihood power transformation of one or more columns.

    Build with :func:`boxcoxstat.fit` (also :func:`boxcoxstat.federated.fit` and Dask input).
    Estimates are shaped like the input (see
    :class:`~boxcoxstat.base.transform.ColumnTransforms`); ``params``, ``bse`` are Series and
    ``conf_int`` a DataFrame (``lower``, ``upper``) indexed by column.

    Examples
    --------
    >>> import numpy as np, boxcoxstat as bcs
    >>> r = bcs.fit(np.random.default_rng(0).lognormal(size=200))
    >>> r.conf_int().round(3)
       lower  upper
    x -0.053  0.208
    >>> back = bcs.PowerTransformResult.from_json(r.to_json())
    >>> str(back.summary()) == str(r.summary())
    True
    """

    _overflow_hint: ClassVar[str] = ("refit with ymax= (for example ymax=1e300) to bound "
                                     "lambda, or rescale the data")
    _resolution_hint: ClassVar[str] = ("refit with bcs.fit(..., lmbda='safe') or use "
                                       "result.at('safe') (the safe power) or "
                                       "result.at('rounded')")

    family_reasons: tuple[str, ...] = saved(jsonio.Strs(length_of="names"))
    requested_family: str = saved(jsonio.Str(choices=("boxcox", "yeojohnson", "bcnpower",
                                                      "auto")))
    lmbda_mle: NDArray[np.float64] = saved(jsonio.Floats(length_of="names", finite=True))
    nll_mle: NDArray[np.float64] = saved(jsonio.Floats(length_of="names", finite=True))
    llf_values: NDArray[np.float64] = saved(jsonio.Floats(length_of="names", finite=True))
    nobs_values: NDArray[np.int64] = saved(jsonio.Ints(length_of="names"))
    n_missing: NDArray[np.int64] = saved(jsonio.Ints(length_of="names"))
    converged_values: NDArray[np.bool_] = saved(jsonio.Bools(length_of="names"))
    ymax: float | None = saved(jsonio.Float(optional=True))
    lambda_limits: NDArray[np.float64] = saved(jsonio.Matrix(length_of="names"))
    # inference at the 95% level: computed from the data on first use, or stored (JSON,
    # fits without pooled data)
    stored: pd.DataFrame | None = saved(jsonio.Frame(optional=True), default=None,
                                        compare=False)
    # fits that never pooled the data (boxcoxstat.federated, Dask): clients, rounds, bytes
    federated: dict[str, Any] | None = saved(jsonio.Mapping_(optional=True), default=None,
                                             compare=False)
    # the response of a linear model (bcs.lm's ``m.power``): its formula, shown in the report
    model: str | None = saved(jsonio.Str(optional=True), default=None)
    # a power given by the user (``fit(x, lmbda=0)``, ``r.at(0)``): not estimated, so no
    # standard error, interval, test or rounded power
    fixed: bool = saved(jsonio.Bool(), default=False)
    # the safe power of each column (core.resolution.safe_powers; NaN where none exists),
    # its LR statistic against the MLE, and whether it is the power used (lmbda="safe")
    safe_values: NDArray[np.float64] | None = saved(
        jsonio.Floats(length_of="names", optional=True), default=None)
    safe_lr: NDArray[np.float64] | None = saved(
        jsonio.Floats(length_of="names", optional=True), default=None, compare=False)
    safe_used: bool = saved(jsonio.Bool(), default=False)
    # each column's smallest and largest value on the scale the power applies to (p, 2):
    # what the resolution checks of ``at`` need (not saved: a loaded result has no data)
    data_range: NDArray[np.float64] | None = field(default=None, repr=False, compare=False)
    data: NDArray[np.float64] | None = None
    # case weights of the rows of ``data`` (frequency weights; None: every row counts once)
    weights: NDArray[np.float64] | None = None
    # a profile other than the columns' sample (a linear model's response): one column
    profile_: Profile | None = None
    # the fit's own profile of every column and the solver's curvature estimates, so that
    # inference neither prepares the data again nor spends an evaluation on the step size
    fitted_: tuple[Profile, NDArray[np.float64]] | None = field(default=None, repr=False,
                                                                 compare=False)
    # bounds=(lo, hi) on lambda, one row per column (-inf/inf: open): lambda is the maximum
    # of the profile on [lo, hi] and the interval and tests are measured from it
    bounds: NDArray[np.float64] | None = saved(jsonio.Matrix(length_of="names", optional=True),
                                               default=None)
    # the unconstrained maximum where ``bounds`` were given (the summary's note)
    lmbda_free: NDArray[np.float64] | None = saved(
        jsonio.Floats(length_of="names", optional=True), default=None)
    # case weights as lm(weights=) treats them (bcs.fit(..., weights=)): each column's own
    # profile (a regression on the constant with those weights), in column order
    profiles_: tuple[Profile, ...] | None = field(default=None, repr=False, compare=False)
    # whether the fit had case weights (lm(weights=)'s likelihood): the summary says so
    weighted: bool = saved(jsonio.Bool(), default=False)
    # those case weights (length n, rows of ``data``)
    case_weights: NDArray[np.float64] | None = field(default=None, repr=False, compare=False)

    @staticmethod
    def _check_loaded(values: dict[str, Any]) -> None:
        stored = values.get("stored")
        if stored is not None and (list(stored.columns) != list(_STORED)
                                   or list(stored.index) != list(values["names"])):
            raise jsonio._Bad(f"field 'stored' must have columns {list(_STORED)} and one row "
                              "per name")
        fed = values.get("federated")
        if fed is not None:
            _check_federated(fed)
        bounds = values.get("bounds")
        if bounds is not None and (np.shape(bounds)[1:] != (2,) or np.isnan(bounds).any()
                                   or np.any(bounds[:, 0] >= bounds[:, 1])):
            raise jsonio._Bad("field 'bounds' must hold one pair (lower < upper) per name")
        used, mle = values.get("lmbda_used"), values.get("lmbda_mle")
        if values.get("ymax") is None and used is not None and mle is not None and (
                np.shape(used) != np.shape(mle) or not np.array_equal(used, mle)) and not (
                values.get("safe_used") and values.get("safe_values") is not None
                and np.array_equal(used, values["safe_values"])):
            raise jsonio._Bad("fields 'lmbda_used' and 'lmbda_mle' differ, but no bound "
                              "(ymax) or safe power is recorded that would explain it")
        if stored is None and not values.get("fixed"):
            raise jsonio._Bad("field 'stored' (the inference at the 95% level) is needed for "
                              "an estimated power: a loaded result has no data to compute it")

    # ------------------------------------------------------------------ inference (cached)
    @cached_property
    def _inference(self) -> pd.DataFrame:
        if self.stored is not None:
            return self.stored
        out = pd.DataFrame(np.nan, index=list(self.names), columns=list(_STORED))
        slope = None if self.fitted_ is None else self.fitted_[1]
        if self.bounds is not None:
            for idx, profile in self._profiles().values():
                part = inf.bounded_inference(profile, self.lmbda_mle[idx], self.nll_mle[idx],
                                             self.bounds[idx])
                for key, val in part.items():
                    out.iloc[idx, out.columns.get_loc(key)] = val
            return out
        for idx, profile in self._profiles().values():
            part = inf.standard_inference(profile, self.lmbda_mle[idx], self.nll_mle[idx],
                                          infinite_ok=self.gamma_values is not None,
                                          slope=None if slope is None else slope[idx])
            for key, val in part.items():
                out.iloc[idx, out.columns.get_loc(key)] = val
        return out

    def _json_value(self, name: str) -> Any:
        if name == "stored" and self.stored is None and self._live and not self.fixed:
            return self._inference  # saved with the result, so a loaded one can report
        if name == "safe_lr" and self.safe_lr is None and self.safe_values is not None \
                and self._live and not self.fixed:
            return self._safe_statistic
        return getattr(self, name)

    def _refuse_fixed(self, what: str) -> None:
        """The power's own inference does not exist when the power was given, not estimated."""
        if self.fixed:
            given = ", ".join(f"{float(v):g}" for v in self.lmbda_used)
            self._not_available(what, f"the power was fixed at {given} (not estimated), so it "
                                "has no standard error, interval, test or rounded value; fit "
                                "without lmbda= to estimate it")

    def _stored(self, key: str) -> NDArray[np.float64]:
        return self._inference[key].to_numpy(dtype=np.float64)

    @property
    def _live(self) -> bool:
        """Whether the result can evaluate its likelihood (it holds data or a profile)."""
        return (self.data is not None or self.profile_ is not None
                or self.profiles_ is not None)

    @cached_property
    def _groups(self) -> dict[str, tuple[NDArray[np.intp], Profile]]:
        if self.profiles_ is not None:  # case weights: one profile per column
            return {f"column {j}": (np.array([j], dtype=np.intp), prof)
                    for j, prof in enumerate(self.profiles_)}
        if self.profile_ is not None:  # a linear model's response, bcnPower columns
            return {"all": (np.arange(len(self.names), dtype=np.intp), self.profile_)}
        if self.data is None:
            why = ("the result was fitted without pooling the data (federated or Dask); its 95% "
                   "interval, standard error and tests at 0 and 1 are stored, other levels, "
                   "tests and profiles need the data" if self.federated is not None else
                   "the result holds no data (it was loaded from JSON); refit to compute new "
                   "intervals, tests, profiles or plots")
            self._not_available("this computation", why)
        out: dict[str, tuple[NDArray[np.intp], Profile]] = {}
        if self.fitted_ is not None and len(set(self.families)) == 1:
            return {self.families[0]: (np.arange(len(self.names)), self.fitted_[0])}
        for f in sorted(set(self.families)):
            idx = np.array([j for j, g in enumerate(self.families) if g == f], dtype=np.intp)
            x = self.data[:, idx]
            if self.gamma_values is not None:  # a fixed shift before Box-Cox
                x = x + self.gamma_values[idx]
            out[f] = (idx, SampleProfile.from_array(x, f, self.weights))
        return out

    def _profiles(self) -> dict[str, tuple[NDArray[np.intp], Profile]]:
        return dict(self._groups)

    def _column_profile(self, j: int) -> tuple[Profile, int]:
        """The profile holding column ``j`` and the column's position in it."""
        for idx, profile in self._groups.values():
            if j in idx:
                return profile, int(np.flatnonzero(idx == j)[0])
        raise AssertionError(j)  # pragma: no cover - every column is in a group

    # ------------------------------------------------------------------ estimates
    @property
    def llf(self) -> Any:
        """Maximised Gaussian log-likelihood of the data (Jacobian included)."""
        return self._shape(self.llf_values, "llf")

    @property
    def df_model_llf(self) -> Any:
        """Parameters estimated per column, as AIC and BIC (and :func:`boxcoxstat.compare`)
        count them: the mean and the variance, lambda unless fixed, and an estimated shift."""
        k = np.full(len(self.names), 2 if self.fixed else 3, dtype=np.int64)
        if self.gamma_status is not None:
            k += np.array([st != "fixed" for st in self.gamma_status], dtype=np.int64)
        return self._shape(k, "df_model_llf")

    def _compare_nesting(self, j: int) -> dict[str, Any] | None:
        """Column ``j`` as :func:`boxcoxstat.compare` tests nesting (``None``: no data)."""
        if self.data is None:
            return None
        x = self.data[:, j]
        rows = ~np.isnan(x)
        w = None
        if self.case_weights is not None:
            rows &= self.case_weights > 0
            w = self.case_weights[rows]
        elif self.weights is not None:  # frequency weights: not lm's likelihood
            return None
        shift = None
        if self.gamma_values is not None and self.gamma_status is not None and \
                self.gamma_status[j] == "fixed":
            shift = float(self.gamma_values[j])
        return {"response": x[rows], "design": np.ones((int(rows.sum()), 1)),
                "family": self.families[j],
                "power": float(self.lmbda_used[j]) if self.fixed else None,
                "weights": w, "extra": None if shift is None else ("shift", shift)}

    @property
    def nobs(self) -> Any:
        """Number of observations used (missing values dropped)."""
        return self._shape(self.nobs_values, "nobs")

    @property
    def bse(self) -> pd.Series:
        """Standard error of lambda from the observed information, by column (bcnPower: the
        curvature of the profile with gamma maximised out, i.e. ``sqrt([H^-1]_{lambda
        lambda})`` of the joint information; then also each gamma's, ``"<column>:gamma"``)."""
        self._refuse_fixed("bse")
        if self.gamma_values is None:
            return self._series(self._stored("bse"), "bse")
        gse = self.gamma_bse if self.gamma_bse is not None else np.full(len(self.names), np.nan)
        self._warn_gamma_unavailable("standard error", gse)
        return self._with_gamma(self._stored("bse"), gse, "bse")

    @property
    def rounded(self) -> Any:
        """Convenient power: the one in the 95% profile interval nearest the estimate, else
        the estimate to two decimals (see :func:`boxcoxstat.core.inference.rounded_power`)."""
        self._refuse_fixed("rounded")
        return self._shape(self._rounded_values(), "rounded")

    def _rounded_values(self) -> NDArray[np.float64]:
        return inf.rounded_power(self.lmbda_mle, self._stored("lower"), self._stored("upper"))

    def rounded_power(self, rule: Literal["profile", "car"] = "profile") -> Any:
        """The convenient power by a named rule.

        Parameters
        ----------
        rule : {"profile", "car"}, default="profile"
            ``"profile"``: :attr:`rounded` (the convenient power nearest the estimate inside
            the 95% profile-likelihood interval). ``"car"``: car's "Rounded Pwr" (the first
            of 1, 0, -1, 0.5, 0.33, -0.5, -0.33, 2, -2 inside ``lambda -+ 1.96 se``, else
            the estimate to two decimals; :func:`boxcoxstat.core.inference.car_rounded_power`).

        Examples
        --------
        >>> import boxcoxstat as bcs
        >>> r = bcs.fit(bcs.datasets.load("trees")["Girth"])
        >>> r.rounded_power(), r.rounded_power(rule="car")  # car: 1 (powerTransform)
        (-0.3333333333333333, 1.0)
        """
        check_option("rule", rule, inf.ROUNDING_RULES)
        self._refuse_fixed("rounded_power")
        if rule == "profile":
            return self.rounded
        return self._shape(inf.car_rounded_power(self.lmbda_mle, self._stored("bse")),
                           "rounded")

    @property
    def safe(self) -> Any:
        """The safe power: the most likely power that keeps the transformed values resolved.

        The power the fit uses (the MLE, or its ``ymax`` bound) when its transformed values
        keep the data's resolution in float64 (a round trip within 1e-8 relative, nothing
        beyond float64); otherwise the power of highest likelihood whose round trip is
        within 1e-10 (and within a quarter of the closest pair's relative gap, so no two
        distinct values share an output) and whose transformed values stay within 1e100
        (NaN where no power does). See :mod:`boxcoxstat.core.resolution`.
        ``fit(x, lmbda="safe")`` transforms with it; ``at("safe")`` fixes it;
        ``test(r.safe)`` is its LR test against the MLE, which the summary shows when the
        two differ.

        Examples
        --------
        >>> import numpy as np, boxcoxstat as bcs
        >>> x = np.array([4.61, 4.60, 4.60, 4.62, 4.61])  # scikit-learn #29595
        >>> r = bcs.fit(x, lmbda="safe")
        >>> round(float(r.lmbda_mle[0]), 1), r.safe, r.lmbda
        (-143.0, -9.52, -9.52)
        """
        self._refuse_fixed("safe")
        return self._shape(self._safe(), "safe")

    def _safe(self) -> NDArray[np.float64]:
        if self.safe_values is None:
            self._not_available("safe", "the result does not know its data's range (it was "
                                "fitted without pooling the data, by bcnPower, or loaded "
                                "from an older document); refit with bcs.fit")
        return self.safe_values

    @cached_property
    def _safe_statistic(self) -> NDArray[np.float64]:
        """LR statistic of the safe power against the MLE (0 where they agree)."""
        if self.safe_lr is not None:
            return self.safe_lr
        safe = self._safe()
        stat = np.where(np.isnan(safe), np.nan, 0.0)
        differ = np.isfinite(safe) & (safe != self.lmbda_mle)
        if differ.any():
            for idx, profile in self._profiles().values():
                sub = differ[idx]
                if sub.any():
                    lam0 = np.where(sub, safe[idx], self.lmbda_mle[idx])
                    stat[idx] = np.where(sub, inf.lr_statistic(profile, self.nll_mle[idx],
                                                               lam0), stat[idx])
        return stat

    @property
    def converged(self) -> Any:
        """Whether the score's sign change was bracketed and closed."""
        return self._shape(self.converged_values, "converged")

    @property
    def bound_active(self) -> Any:
        """Whether ``ymax`` (or ``lmbda="safe"``) moved the power used away from the
        unconstrained MLE, or lambda is on one of its ``bounds``."""
        active = self.lmbda_used != self.lmbda_mle
        if self.bounds is not None:
            active = active | (self.lmbda_mle <= self.bounds[:, 0]) | (
                self.lmbda_mle >= self.bounds[:, 1])
        return self._shape(active, "bound_active")

    # ------------------------------------------------------------------ inference
    def conf_int(self, alpha: float = 0.05,
                 interval: Literal["profile", "wald"] = "profile") -> pd.DataFrame:
        """Confidence interval for lambda: a DataFrame (``lower``, ``upper``) by column.

        Parameters
        ----------
        alpha : float, default=0.05
            Significance level (0.05 gives a 95% interval).
        interval : {"profile", "wald"}, default="profile"
            Profile likelihood (endpoints solved exactly) or ``estimate -+ z * bse``.
        """
        check_option("interval", interval, ("profile", "wald"))
        alpha = check_alpha(alpha)
        self._refuse_fixed("conf_int")
        if interval == "wald":
            lo, hi = inf.wald_interval(self.lmbda_mle, self._stored("bse"), alpha)
        elif alpha == 0.05 and self.gamma_values is None:
            lo, hi = self._stored("lower"), self._stored("upper")
        elif alpha == 0.05:
            lo, hi = self._stored("lower"), self._stored("upper")
        else:
            lo, hi = np.empty(len(self.names)), np.empty(len(self.names))
            bse = self._stored("bse")
            for idx, profile in self._profiles().values():
                if self.bounds is not None:
                    lo[idx], hi[idx] = inf.bounded_interval(
                        profile, self.lmbda_mle[idx], self.nll_mle[idx], self.bounds[idx],
                        bse[idx], alpha)
                    continue
                lo[idx], hi[idx] = inf.profile_interval(
                    profile, self.lmbda_mle[idx], self.nll_mle[idx], bse[idx], alpha,
                    infinite_ok=self.gamma_values is not None)
        frame = interval_frame(lo, hi, self.names)
        rows = self._gamma_rows()
        if self.gamma_values is None or not rows:
            return frame
        # gamma: Wald, cut at its lower bound (car's summary does the same at 0)
        assert self.gamma_bse is not None
        self._warn_gamma_unavailable("interval", self.gamma_bse)
        glo, ghi = inf.wald_interval(self.gamma_values[rows], self.gamma_bse[rows], alpha)
        glo = np.maximum(glo, self.gamma_min or 0.0)
        return pd.concat([frame, interval_frame(glo, ghi, [f"{self.names[j]}:gamma"
                                                           for j in rows])])

    def test(self, lmbda0: ArrayLike) -> HypothesisTest:
        """Likelihood-ratio test of ``lambda = lmbda0`` (a number, or one per column).

        Examples
        --------
        >>> import numpy as np, boxcoxstat as bcs
        >>> x = np.random.default_rng(1).lognormal(size=200)
        >>> t = bcs.fit(x).test(1)
        >>> t.df, round(t.statistic, 1), t.pvalue < 1e-10
        (1, 311.9, True)
        """
        lam0 = self._null_values(lmbda0)
        self._refuse_fixed("test")
        if self.bounds is not None:
            out = np.flatnonzero((lam0 < self.bounds[:, 0]) | (lam0 > self.bounds[:, 1]))
            if out.size:
                j = int(out[0])
                raise BoxCoxError(
                    f"column {self.names[j]!r}: the power {lam0[j]:g} lies outside the bounds "
                    f"[{self.bounds[j, 0]:g}, {self.bounds[j, 1]:g}] the fit maximised over, "
                    "so the bounded maximum is no alternative to it; test a power inside "
                    "the bounds, or refit with wider bounds")
        if np.all(lam0 == 0):
            stat = self._stored("lr0")
        elif np.all(lam0 == 1):
            stat = self._stored("lr1")
        else:
            stat = np.empty(len(self.names))
            for idx, profile in self._profiles().values():
                stat[idx] = inf.lr_statistic(profile, self.nll_mle[idx], lam0[idx])
        return _lambda_test(self.names, stat, lam0, self.layout in ("series", "array1d"))

    def profile(self, column: str | int | None = None,
                lmbda: ArrayLike | None = None) -> pd.DataFrame:
        """Profile log-likelihood of one column on a grid (DataFrame ``lmbda``, ``llf``).

        The default grid spans the 95% profile interval with half its width on each side (for
        a fixed power: MASS's range -2 to 2, widened to one unit either side of the power).
        """
        j = self.column_index(column)
        profile, k = self._column_profile(j)
        if lmbda is None and self.fixed:
            given = float(self.lmbda_used[j])
            lmbda = np.linspace(min(-2.0, given - 1.0), max(2.0, given + 1.0), 201)
        elif lmbda is None:
            lo, hi = self._stored("lower")[j], self._stored("upper")[j]
            width = hi - lo
            lmbda = np.linspace(lo - 0.5 * width, hi + 0.5 * width, 201)
        lam = as_numbers(lmbda, "lmbda must be an array of numbers").reshape(-1)
        if not lam.size:
            raise BoxCoxError("lmbda must hold at least one number")
        check_lambdas(lam)
        val, _ = profile.evaluate(lam, k, score=False)
        return pd.DataFrame({"lmbda": lam, "llf": profile.llf_offset()[k] - val})

    # ------------------------------------------------------------------ fixed powers
    def at(self, lmbda: ArrayLike | Literal["rounded", "safe"]) -> PowerTransformResult:
        """The same columns with the power fixed at ``lmbda`` (no estimation).

        Parameters
        ----------
        lmbda : float, one float per column, Series by column, "rounded" or "safe"
            The power(s); ``"rounded"`` takes :attr:`rounded` (the convenient power inside
            the 95% profile interval), ``"safe"`` takes :attr:`safe`. A power whose
            transformed values lose the fitted data's resolution in float64 gives a
            :class:`~boxcoxstat.ResolutionWarning` naming the column.

        Returns
        -------
        PowerTransformResult
            With ``fixed`` True: its ``llf`` is the likelihood at the given power, it
            transforms with that power, and its ``bse``, ``conf_int``, ``test`` and
            ``rounded`` are not available (the power was not estimated).

        Examples
        --------
        >>> import numpy as np, boxcoxstat as bcs
        >>> r = bcs.fit(np.random.default_rng(0).lognormal(size=200))
        >>> log = r.at("rounded")
        >>> log.lmbda, log.fixed, round(log.llf - r.llf, 3)
        (0.0, True, -0.662)
        """
        return self._at(lmbda, stacklevel=3)

    def _at(self, lmbda: Any, stacklevel: int, values: NDArray[np.float64] | None = None,
            what: str = "column", remedy: str = "fix another power (e.g. at(0), the log, or "
            "at('safe') of an estimated fit)") -> PowerTransformResult:
        """:meth:`at`, warning at ``stacklevel`` (counted from here) where the power loses
        the data's resolution (``values``: the data on the power's scale, (n, p), where the
        result does not hold them)."""
        if "bcnpower" in self.families:
            self._not_available("at", "a bcnPower fit profiles gamma out of lambda's "
                                "likelihood; fixing lambda alone is not implemented yet")
        if isinstance(lmbda, str):
            check_option("lmbda", lmbda, ("rounded", "safe"))
            self._refuse_fixed(f"at({lmbda!r})")
            lam = self._rounded_values() if lmbda == "rounded" else self._safe().copy()
            if np.isnan(lam).any():
                bad = [n for n, v in zip(self.names, lam, strict=True) if np.isnan(v)]
                raise BoxCoxError(f"no power keeps column(s) {bad} finite and resolved in "
                                  "float64; rescale the data")
        else:
            lam = self._null_values(lmbda, "lmbda")
        nll = np.empty(len(self.names))
        llf = np.empty(len(self.names))
        for idx, profile in self._profiles().values():
            val, _ = profile.evaluate(lam[idx], np.arange(idx.size), score=False)
            nll[idx] = val
            llf[idx] = profile.llf_offset() - val
        out = replace(self, lmbda_used=lam.copy(), lmbda_mle=lam.copy(), nll_mle=nll,
                      llf_values=llf, converged_values=np.ones(len(self.names), dtype=bool),
                      ymax=None, lambda_limits=np.tile([-np.inf, np.inf], (len(self.names), 1)),
                      stored=None, fixed=True, safe_values=None, safe_lr=None, safe_used=False,
                      bounds=None, lmbda_free=None)
        out._warn_resolution(stacklevel, remedy, what, values)
        return out

    def _warn_resolution(self, stacklevel: int, remedy: str, what: str = "column",
                         values: NDArray[np.float64] | None = None,
                         lost: NDArray[np.bool_] | None = None) -> None:
        """A :class:`~boxcoxstat.ResolutionWarning` for every column whose power loses the
        fitted data's resolution (``core.resolution``; needs ``data_range``, and the data,
        held or given as ``values`` on the power's scale, for the message's facts).
        ``stacklevel`` counts from the caller; ``remedy`` may name ``{safe}``, the column's
        safe power; ``lost``, the columns that lose it, if the caller has them."""
        if self.data_range is None:
            return
        if lost is None:
            lost = loses_resolution(self.data_range[:, 0], self.data_range[:, 1],
                                    self.lmbda_used, [self._power_family(j)
                                                      for j in range(len(self.names))])
        safe = self.safe_values
        for j in np.flatnonzero(lost).tolist():
            hint = remedy.format(safe="none" if safe is None else f"{safe[j]:.6g}")
            warnings.warn(loss_message(self.names[j], float(self.lmbda_used[j]),
                                       self._power_family(j),
                                       self._column_on_power_scale(j, values), hint, what),
                          ResolutionWarning, stacklevel=stacklevel + 1)

    def _column_on_power_scale(self, j: int, values: NDArray[np.float64] | None = None
                               ) -> NDArray[np.float64]:
        """Column ``j``'s fitted values on the scale its power applies to (a fixed shift
        added), from ``values`` where given."""
        if values is not None:
            col = values[:, j]
            return col[~np.isnan(col)]
        if self.data is None:  # no data: the extremes stand for them
            assert self.data_range is not None
            return self.data_range[j]
        col = self.data[:, j]
        col = col[~np.isnan(col)]
        g = self._shift(j)
        return col if g is None else col + g

    # ------------------------------------------------------------------ reports
    def summary(self, alpha: float = 0.05) -> Summary:
        """The full report: estimates, profile intervals, convenient powers, LR tests.

        Parameters
        ----------
        alpha : float, default=0.05
            Significance level of the profile-likelihood interval shown.
        """
        info = pd.DataFrame(
            {"family": list(self.families), "n": self.nobs_values, "missing": self.n_missing,
             "llf": self.llf_values},
            index=list(self.names),
        )
        fams = " and ".join(_KINDS[f] for f in sorted(set(self.families)))
        if self.gamma_values is not None and "bcnpower" not in self.families:
            fams = "Shifted " + fams
        if self.fixed:
            given = pd.DataFrame({"lambda": self.lmbda_used}, index=list(self.names))
            notes = ["lambda given (fixed), not estimated: no standard error, interval, test or "
                     "rounded power."]
            if self.model is not None:
                notes.append(f"The response of the linear model {self.model}.")
            return Summary(f"{fams} power transformation, fixed power",
                           [("", given.join(info))], notes)
        ci = self.conf_int(alpha).iloc[: len(self.names)]
        lr0, lr1 = self._stored("lr0"), self._stored("lr1")
        est = pd.DataFrame(
            {
                "lambda": self.lmbda_used,
                "std err": self._stored("bse"),
                f"[{alpha / 2:g}": ci["lower"].to_numpy(),
                f"{1 - alpha / 2:g}]": ci["upper"].to_numpy(),
                "rounded": self._rounded_values(),
            },
            index=list(self.names),
        )
        tests = pd.DataFrame(
            {"LR(l=0)": lr0, "p(l=0)": inf.chi2_pvalue(lr0),
             "LR(l=1)": lr1, "p(l=1)": inf.chi2_pvalue(lr1)},
            index=list(self.names),
        )
        level = f"{100 * (1 - alpha):g}%"
        notes = [f"Interval: {level} profile likelihood; SE from the observed information;",
                 "tests: likelihood ratio, chi-square with 1 df.",
                 "rounded: the convenient power nearest the estimate inside the 95% profile "
                 "interval (rounded_power(rule='car') gives car's Rounded Pwr)."]
        tables = [("", est), ("", tests), ("", info)]
        resolution = self._resolution_table(ci)
        if resolution is not None:
            tables.insert(2, ("Resolution in float64", resolution[0]))
            notes += resolution[1]
        if self.gamma_values is not None:
            tables.insert(1, ("Shift gamma", self._gamma_table(alpha)))
            notes += self._gamma_notes()
        if self.requested_family == "auto":
            notes += [f"{n}: {r}" for n, r in zip(self.names, self.family_reasons, strict=True)]
        if self.model is not None:
            notes.append(f"The response of the linear model {self.model}: lambda maximises "
                         "the profile likelihood given the predictors (as MASS::boxcox).")
        notes += self._fit_notes()
        title = f"{fams} power transformation, maximum likelihood"
        fmts = {"p(l=0)": format_pvalue, "p(l=1)": format_pvalue, "rounded": format_power,
                "p(safe)": format_pvalue}
        fmts["status"] = str
        return Summary(title, tables, notes, fmts)

    def _bounded(self) -> NDArray[np.float64]:
        """The power the fit uses without ``lmbda="safe"``: the MLE within ``ymax``'s
        limits."""
        return np.clip(self.lmbda_mle, self.lambda_limits[:, 0], self.lambda_limits[:, 1])

    def _resolution_table(self, ci: pd.DataFrame) -> tuple[pd.DataFrame, list[str]] | None:
        """The summary's table of safe powers and their notes, where some column's MLE (or
        its ``ymax`` bound) loses the data's resolution."""
        if self.safe_values is None:
            return None
        before = self._bounded()
        lost = ~(self.safe_values == before)  # NaN: no safe power
        if not lost.any():
            return None
        stat = self._safe_statistic
        table = pd.DataFrame({"MLE": before, "safe": self.safe_values, "LR(safe)": stat,
                              "p(safe)": inf.chi2_pvalue(stat)}, index=list(self.names))
        names = ", ".join(n for n, b in zip(self.names, lost, strict=True) if b)
        notes = [f"Safe: the most likely power keeping the transformed values resolved in "
                 f"float64 (round trip within {SAFE_RTOL:g} relative, or a quarter of the "
                 f"closest values' gap; |values| <= {SAFE_YMAX:g}); the MLE of {names} "
                 f"loses the resolution (round trip off by more than {ROUND_TRIP_RTOL:g}, or "
                 "values beyond float64). LR(safe): its "
                 "likelihood-ratio test against the MLE."]
        lo, hi = ci["lower"].to_numpy(), ci["upper"].to_numpy()
        for j, n in enumerate(self.names):
            sj = self.safe_values[j]
            if np.isnan(sj):
                notes.append(f"{n}: no power keeps the values finite and resolved; rescale "
                             "the data")
            elif lost[j] and not lo[j] <= sj <= hi[j]:
                notes.append(f"{n}: no power in the interval keeps the values resolved; the "
                             "safe power lies outside it (subtract an offset or check the "
                             "data's units)")
        if self.safe_used:
            notes.append("lambda is the safe power (lmbda='safe'); the interval, tests and "
                         "std err are the MLE's.")
        return table, notes

    def _fit_notes(self) -> list[str]:
        """Notes on how the fit went: an active ``ymax`` bound, a solver that did not
        converge, and a federated fit's cost and the clients it left out."""
        notes = []
        bounded = self._bounded()
        for j, n in enumerate(self.names):
            if self.ymax is not None and bounded[j] != self.lmbda_mle[j]:
                notes.append(
                    f"{n}: bound active (ymax={self.ymax:.3g}); the unconstrained MLE is "
                    f"{self.lmbda_mle[j]:.10g}"
                )
            if self.weighted and j == 0:
                notes.append("Case weights: the likelihood of lm(x ~ 1, weights=w) (variance "
                             "weighted, Jacobian not; n counts the rows of positive weight).")
            if self.bounds is not None:
                lo, hi = self.bounds[j]
                free = np.nan if self.lmbda_free is None else self.lmbda_free[j]
                side = ("lower" if self.lmbda_mle[j] <= lo else
                        "upper" if self.lmbda_mle[j] >= hi else None)
                if side is not None:
                    notes.append(
                        f"{n}: bound active: lambda is the {side} bound of [{lo:g}, {hi:g}]; "
                        f"the unconstrained maximum is {free:.10g}; the interval is the "
                        "powers within the bounds whose profile likelihood is within the "
                        "cut-off of the bounded maximum; no std err at a bound")
                else:
                    notes.append(f"{n}: lambda maximised on [{lo:g}, {hi:g}] (bounds "
                                 "inactive); the interval stays within them")
            if not self.converged_values[j]:
                notes.append(f"{n}: the solver did not converge; treat lambda with caution")
        if self.federated is not None:
            fed = self.federated
            cost = f"{fed['clients']} {fed['unit']}, {fed['rounds']} rounds"
            if "bytes_up" in fed:
                cost += f", {fed['bytes_up'] + fed['bytes_down']} bytes"
            notes.append(f"Fitted without pooling the data: {cost}.")
            kinds = fed.get("by_kind")
            if isinstance(kinds, list) and kinds:  # the paper's protocol: what travelled
                notes.append("Messages (numbers per client): " + "; ".join(
                    f"{k.get('kind')} x{k.get('rounds')}: {k.get('down')} down, "
                    f"{k.get('up_per_client')} up" for k in kinds if isinstance(k, dict))
                    + f"; set-up revealed {fed.get('setup', 'counts only')}.")
            flagged = fed.get("influential") or {}
            bad = [d for d in fed.get("dropped") or () if d not in flagged]
            if bad:
                notes.append("Left out (bad messages): " + ", ".join(bad))
            if flagged:
                gone = fed.get("dropped") or ()
                notes.append(
                    f"Influential (lambda moves by more than {fed.get('screen', 0):g} SE "
                    "without them): " + ", ".join(
                        f"{k} ({v:+.3g} SE{', left out' if k in gone else ''})"
                        for k, v in flagged.items()))
        return notes

    def _gamma_table(self, alpha: float) -> pd.DataFrame:
        gam = self.gamma_values
        assert gam is not None
        p = len(self.names)
        gse = self.gamma_bse if self.gamma_bse is not None else np.full(p, np.nan)
        lo, hi = inf.wald_interval(gam, gse, alpha)
        status = self.gamma_status or ("fixed",) * p
        return pd.DataFrame({"gamma": gam, "std err": gse,
                             f"[{alpha / 2:g}": np.maximum(lo, self.gamma_min or 0.0),
                             f"{1 - alpha / 2:g}]": hi, "status": list(status)},
                            index=list(self.names))

    def _gamma_notes(self) -> list[str]:
        if "bcnpower" not in self.families:
            return ["Box-Cox of x + gamma with the shift fixed (car's bcPower(gamma=)); "
                    "llf is the likelihood of x."]
        notes = [f"bcnPower (Hawkins & Weisberg 2017): Box-Cox of (x + sqrt(x^2 + gamma^2))/2, "
                 f"gamma >= {self.gamma_min:g}; lambda's SE, interval and tests have gamma "
                 "maximised out; gamma's interval is Wald, cut at its bound."]
        for n, st in zip(self.names, self.gamma_status or (), strict=False):
            if st == "lower bound":
                notes.append(f"{n}: gamma is at its lower bound {self.gamma_min:g} (car then "
                             "fixes it there too); lambda's inference holds it fixed.")
            elif st == "upper limit":
                notes.append(f"{n}: gamma runs to its upper limit: the data need no "
                             "transformation (the transform is linear there).")
        return notes

    def __repr__(self) -> str:
        pairs = ", ".join(
            f"{n}={format_number(v)}" for n, v in zip(self.names, self.lmbda_used, strict=True)
        )
        fams = sorted(set(self.families))
        return f"<PowerTransformResult {'/'.join(fams)}: lmbda {pairs}>"

    # ------------------------------------------------------------------ plots
    def plot_profile(self, column: str | int | None = None, *, ax: Any = None,
                     alpha: float = 0.05, lmbda: ArrayLike | None = None) -> Any:
        """Profile log-likelihood with the interval cut-off, on the grid ``lmbda`` if given
        (MASS's ``lambda=``; see ``plotting.plot_profile``)."""
        from .plotting import plot_profile

        return plot_profile(self, column, ax=ax, alpha=alpha, lmbda=lmbda)

    def qqplot(self, column: str | int | None = None, *, alpha: float = 0.05,
               ax: Any = None) -> Any:
        """car's normal QQ plot with a ``1 - alpha`` envelope, before and after the transform
        (two Axes; see ``plotting.qqplot``)."""
        from .plotting import qqplot

        return qqplot(self, column, alpha=alpha, ax=ax)

