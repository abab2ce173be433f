"""``PowerTransformResult``: maximum-likelihood powers of one or more columns and their inference.

Immutable and labelled when built. Inference at the default level is computed on first
use (through the core's one inference module, on the columns' profile) and cached; a result
fitted without pooling its data (federated, Dask) or loaded from JSON carries it stored.
Rendering is :mod:`~boxcoxstat.base.summary`'s, plotting :mod:`.plotting`'s.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, ClassVar, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from .._validation.columns import BoxCoxError, as_numbers, check_lambdas, check_option
from ..base import jsonio
from ..base.jsonio import saved
from ..base.results import (
    HypothesisTest,
    check_alpha,
    diagonal_cov,
    interval_frame,
    wald_pvalues,
)
from ..base.summary import Summary, format_number, format_power, format_pvalue
from ..base.transform import ColumnTransforms, FederatedRecord, Provenance
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

    _json_version: ClassVar[int] = 2
    _json_added: ClassVar[dict[str, int]] = {"gamma_cov": 2}  # bcnPower's cov_params()

    _overflow_hint: ClassVar[str] = ("refit with ymax= (for example ymax=1e300) to bound "
                                     "lambda, or rescale the data")
    _resolution_hint: ClassVar[str] = ("refit with bcs.fit(..., lmbda='safe') or use "
                                       "result.at('safe') (the safe power) or "
                                       "result.at('rounded')")

    _family_reasons: tuple[str, ...] = saved(jsonio.Strs(length_of="names"))
    _requested_family: str = saved(jsonio.Str(choices=("boxcox", "yeojohnson", "bcnpower",
                                                       "auto")))
    _lmbda_mle: NDArray[np.float64] = saved(jsonio.Floats(length_of="names", finite=True))
    _nll_mle: NDArray[np.float64] = saved(jsonio.Floats(length_of="names", finite=True))
    _llf_values: NDArray[np.float64] = saved(jsonio.Floats(length_of="names", finite=True))
    _nobs_values: NDArray[np.int64] = saved(jsonio.Ints(length_of="names"))
    n_missing: NDArray[np.int64] = saved(jsonio.Ints(length_of="names"))
    _converged_values: NDArray[np.bool_] = saved(jsonio.Bools(length_of="names"))
    _ymax: float | None = saved(jsonio.Float(optional=True))
    _lambda_limits: NDArray[np.float64] = saved(jsonio.Matrix(length_of="names"))
    # inference at the 95% level: computed from the data on first use, or stored (JSON,
    # fits without pooled data)
    _stored: pd.DataFrame | None = saved(jsonio.Frame(optional=True), default=None,
                                         compare=False)
    # the response of a linear model (bcs.lm's ``m.power``): its formula, shown in the report
    _model: str | None = saved(jsonio.Str(optional=True), default=None)
    # a power given by the user (``fit(x, lmbda=0)``, ``r.at(0)``): not estimated, so no
    # standard error, interval, test or rounded power
    fixed: bool = saved(jsonio.Bool(), default=False)
    # the safe power of each column (core.resolution.safe_powers; NaN where none exists),
    # its LR statistic against the MLE, and whether it is the power used (lmbda="safe")
    _safe_values: NDArray[np.float64] | None = saved(
        jsonio.Floats(length_of="names", optional=True), default=None)
    _safe_lr: NDArray[np.float64] | None = saved(
        jsonio.Floats(length_of="names", optional=True), default=None, compare=False)
    _safe_used: bool = saved(jsonio.Bool(), default=False)
    # bounds=(lo, hi) on lambda, one row per column (-inf/inf: open): lambda is the maximum
    # of the profile on [lo, hi] and the interval and tests are measured from it
    _bounds: NDArray[np.float64] | None = saved(
        jsonio.Matrix(length_of="names", optional=True), default=None)
    # the unconstrained maximum where ``bounds`` were given (the summary's note)
    _lmbda_free: NDArray[np.float64] | None = saved(
        jsonio.Floats(length_of="names", optional=True), default=None)
    # whether the fit had case weights (lm(weights=)'s likelihood): the summary says so
    _weighted: bool = saved(jsonio.Bool(), default=False)
    # bcnPower: the covariance of each column's lambda and gamma (inverse information; NaN
    # where gamma's standard error is); documents of version 1 have none
    _gamma_cov: NDArray[np.float64] | None = saved(
        jsonio.Floats(length_of="names", optional=True), default=None)
    # where the result came from: the data, weights, profiles and the fit's own profile (not
    # saved), and a fit without pooled data's record (saved as the document's "federated")
    _source: Provenance = saved(FederatedRecord(optional=True), key="federated",
                                default_factory=Provenance, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self._source is None:  # a loaded document without a federated record
            object.__setattr__(self, "_source", Provenance())

    @classmethod
    def _from_table(cls, table: Any, names: Sequence[str], layout: str, family: str,
                    n_missing: Sequence[int], info: dict[str, Any], *,
                    ymax: float | None = None, bounds: NDArray[np.float64] | None = None
                    ) -> PowerTransformResult:
        """:meth:`_build` for a fit that never pooled its data (federated sites, Dask
        partitions): ``table`` is the core's ``FitTable`` of its column fits, ``info`` the
        record of the rounds (kept as the result's federated provenance), ``bounds`` the
        (p, 2) bounds the fits maximised on."""
        return cls._build(
            names, layout, table.families, table.lmbda, nll=table.nll,
            lmbda_used=table.lmbda_used, llf=table.llf, nobs=table.nobs, n_missing=n_missing,
            converged=table.converged, reasons=table.reasons, requested=family, ymax=ymax,
            limits=table.limits, stored=pd.DataFrame(table.inference, index=list(names)),
            source=Provenance(federated=info),
            bounds=None if bounds is None else np.asarray(bounds, dtype=np.float64),
            lmbda_free=None if bounds is None else table.lmbda_free,
            weighted=bool(info.get("weighted", False)))

    @classmethod
    def _build(cls, names: Any, layout: str, families: Any, lmbda: ArrayLike, *,
               nobs: ArrayLike, nll: ArrayLike | None = None, llf: ArrayLike | None = None,
               lmbda_used: ArrayLike | None = None, n_missing: ArrayLike | None = None,
               converged: ArrayLike | None = None, reasons: Any = None,
               requested: str | None = None, limits: ArrayLike | None = None,
               ymax: float | None = None, source: Provenance | None = None,
               fixed: bool = False, shift: dict[str, Any] | None = None,
               bounds: NDArray[np.float64] | None = None,
               lmbda_free: NDArray[np.float64] | None = None,
               safe: NDArray[np.float64] | None = None, safe_used: bool = False,
               weighted: bool = False, model: str | None = None,
               stored: pd.DataFrame | None = None,
               gamma_cov: NDArray[np.float64] | None = None) -> PowerTransformResult:
        """The one constructor every model calls (``fit``, ``lm``'s power, ``lmer``,
        federated and Dask fits, the scikit-learn regressor).

        ``lmbda`` is the maximum of the likelihood (or the given power, ``fixed=True``),
        ``nll`` its negative log-likelihood from the profile and ``llf`` the log-likelihood
        at the power used (default: ``lmbda`` and ``-nll`` plus the profile's constant).
        With ``nll`` not given, the likelihood is evaluated at ``lmbda`` on ``source``'s
        profile (or data): a given power. Defaults: no value missing, converged, no family
        reasons, the requested family the one family, open limits. ``shift`` holds a shifted
        family's ``gamma_values``, ``gamma_bse``, ``gamma_status``, ``gamma_min``;
        ``gamma_cov`` bcnPower's covariance of lambda and gamma by column.
        """
        lam = np.array(lmbda, dtype=np.float64).reshape(-1)
        p = lam.size
        fams = tuple(families)
        out = cls(
            names=tuple(names), _layout=layout, _families=fams,
            _lmbda_used=lam.copy() if lmbda_used is None else np.array(
                lmbda_used, dtype=np.float64).reshape(-1),
            _family_reasons=("",) * p if reasons is None else tuple(reasons),
            _requested_family=fams[0] if requested is None else requested,
            _lmbda_mle=lam, _nll_mle=np.full(p, np.nan) if nll is None else np.array(
                nll, dtype=np.float64).reshape(-1),
            _llf_values=np.full(p, np.nan) if llf is None else np.array(
                llf, dtype=np.float64).reshape(-1),
            _nobs_values=np.array(nobs, dtype=np.int64).reshape(-1),
            n_missing=np.zeros(p, dtype=np.int64) if n_missing is None else np.array(
                n_missing, dtype=np.int64).reshape(-1),
            _converged_values=np.ones(p, dtype=bool) if converged is None else np.array(
                converged, dtype=bool).reshape(-1),
            _ymax=None if ymax is None else float(ymax),
            _lambda_limits=np.tile([-np.inf, np.inf], (p, 1)) if limits is None else
            np.array(limits, dtype=np.float64).reshape(p, 2),
            _stored=stored, _model=model, fixed=fixed, _safe_values=safe,
            _safe_used=safe_used, _bounds=bounds, _lmbda_free=lmbda_free, _weighted=weighted,
            _source=Provenance() if source is None else source, _gamma_cov=gamma_cov,
            **{f"_{k}": v for k, v in (shift or {}).items()},
        )
        if nll is None:
            return out._evaluated(lam)
        if llf is None:
            offset = np.empty(p)
            for idx, profile in out._profiles().values():
                offset[idx] = profile.llf_offset()
            return replace(out, _llf_values=offset - out._nll_mle)
        return out

    def _evaluated(self, lam: NDArray[np.float64]) -> PowerTransformResult:
        """The result with the power given at ``lam`` (not estimated): its likelihood
        evaluated there on the result's profiles."""
        if "bcnpower" in self._families:
            self._not_available("at", "a bcnPower fit profiles gamma out of lambda's "
                                "likelihood; fixing lambda alone is not implemented yet")
        nll = np.empty(len(self.names))
        llf = np.empty(len(self.names))
        for idx, profile in self._profiles().values():
            val, _ = profile.evaluate(lam[idx], np.arange(idx.size), score=False)
            nll[idx] = val
            llf[idx] = profile.llf_offset() - val
        p = len(self.names)
        return replace(self, _lmbda_used=lam.copy(), _lmbda_mle=lam.copy(), _nll_mle=nll,
                       _llf_values=llf, _converged_values=np.ones(p, dtype=bool),
                       _lambda_limits=np.tile([-np.inf, np.inf], (p, 1)), fixed=True)

    @staticmethod
    def _check_loaded(values: dict[str, Any]) -> None:
        stored = values.get("stored")
        if stored is not None and (list(stored.columns) != list(_STORED)
                                   or list(stored.index) != list(values["names"])):
            raise jsonio._Bad(f"field 'stored' must have columns {list(_STORED)} and one row "
                              "per name")
        fed = getattr(values.get("federated"), "federated", None)
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
        if self._stored is not None:
            return self._stored
        out = pd.DataFrame(np.nan, index=list(self.names), columns=list(_STORED))
        slope = None if self._source.fitted is None else self._source.fitted[1]
        if self._bounds is not None:
            for idx, profile in self._profiles().values():
                part = inf.bounded_inference(profile, self._lmbda_mle[idx], self._nll_mle[idx],
                                             self._bounds[idx])
                for key, val in part.items():
                    out.iloc[idx, out.columns.get_loc(key)] = val
            return out
        for idx, profile in self._profiles().values():
            part = inf.standard_inference(profile, self._lmbda_mle[idx], self._nll_mle[idx],
                                          infinite_ok=self._gamma_values is not None,
                                          slope=None if slope is None else slope[idx])
            for key, val in part.items():
                out.iloc[idx, out.columns.get_loc(key)] = val
        return out

    def _json_value(self, name: str) -> Any:
        if name == "_stored" and self._stored is None and self._live and not self.fixed:
            return self._inference  # saved with the result, so a loaded one can report
        if name == "_safe_lr" and self._safe_lr is None and self._safe_values is not None \
                and self._live and not self.fixed:
            return self._safe_statistic
        return getattr(self, name)

    def _refuse_fixed(self, what: str) -> None:
        """The power's own inference does not exist when the power was given, not estimated."""
        if self.fixed:
            given = ", ".join(f"{float(v):g}" for v in self._lmbda_used)
            self._not_available(what, f"the power was fixed at {given} (not estimated), so it "
                                "has no standard error, interval, test or rounded value; fit "
                                "without lmbda= to estimate it")

    def _inferred(self, key: str) -> NDArray[np.float64]:
        return self._inference[key].to_numpy(dtype=np.float64)

    @property
    def _live(self) -> bool:
        """Whether the result can evaluate its likelihood (it holds data or a profile)."""
        return (self._source.data is not None or self._source.profile is not None
                or self._source.profiles is not None)

    @cached_property
    def _groups(self) -> dict[str, tuple[NDArray[np.intp], Profile]]:
        if self._source.profiles is not None:  # case weights: one profile per column
            return {f"column {j}": (np.array([j], dtype=np.intp), prof)
                    for j, prof in enumerate(self._source.profiles)}
        if self._source.profile is not None:  # a linear model's response, bcnPower columns
            return {"all": (np.arange(len(self.names), dtype=np.intp), self._source.profile)}
        if self._source.data is None:
            why = ("the result was fitted without pooling the data (federated or Dask); its 95% "
                   "interval, standard error and tests at 0 and 1 are stored, other levels, "
                   "tests and profiles need the data" if self._source.federated is not None else
                   "the result holds no data (it was loaded from JSON); refit to compute new "
                   "intervals, tests, profiles or plots")
            self._not_available("this computation", why)
        out: dict[str, tuple[NDArray[np.intp], Profile]] = {}
        if self._source.fitted is not None and len(set(self._families)) == 1:
            return {self._families[0]: (np.arange(len(self.names)), self._source.fitted[0])}
        for f in sorted(set(self._families)):
            idx = np.array([j for j, g in enumerate(self._families) if g == f], dtype=np.intp)
            x = self._source.data[:, idx]
            if self._gamma_values is not None:  # a fixed shift before Box-Cox
                x = x + self._gamma_values[idx]
            out[f] = (idx, SampleProfile.from_array(x, f, self._source.weights))
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
    def federated(self) -> dict[str, Any] | None:
        """For a fit that never pooled the data (:func:`boxcoxstat.federated.fit`, Dask or
        Spark input): what it cost and whom it left out (``clients``, ``rounds``, ``unit``,
        ``dropped``, ``influential``, ...); ``None`` for a fit on pooled data."""
        return self._source.federated

    @property
    def llf(self) -> Any:
        """Maximised Gaussian log-likelihood of the data (Jacobian included)."""
        return self._shape(self._llf_values, "llf")

    @property
    def df_model_llf(self) -> Any:
        """Parameters estimated per column, as AIC and BIC (and :func:`boxcoxstat.compare`)
        count them: the mean and the variance, lambda unless fixed, and an estimated shift."""
        return self._shape(self._k_values(), "df_model_llf")

    def _k_values(self) -> NDArray[np.int64]:
        k = np.full(len(self.names), 2 if self.fixed else 3, dtype=np.int64)
        if self._gamma_status is not None:
            k += np.array([st != "fixed" for st in self._gamma_status], dtype=np.int64)
        return k

    def _compare_nesting(self, j: int) -> dict[str, Any] | None:
        """Column ``j`` as :func:`boxcoxstat.compare` tests nesting (``None``: no data)."""
        if self._source.data is None:
            return None
        x = self._source.data[:, j]
        rows = ~np.isnan(x)
        w = None
        if self._source.case_weights is not None:
            rows &= self._source.case_weights > 0
            w = self._source.case_weights[rows]
        elif self._source.weights is not None:  # frequency weights: not lm's likelihood
            return None
        shift = None
        if self._gamma_values is not None and self._gamma_status is not None and \
                self._gamma_status[j] == "fixed":
            shift = float(self._gamma_values[j])
        return {"response": x[rows], "design": np.ones((int(rows.sum()), 1)),
                "family": self._families[j],
                "power": float(self._lmbda_used[j]) if self.fixed else None,
                "weights": w, "extra": None if shift is None else ("shift", shift)}

    @property
    def nobs(self) -> Any:
        """Number of observations used (missing values dropped)."""
        return self._shape(self._nobs_values, "nobs")

    @property
    def bse(self) -> pd.Series:
        """Standard error of lambda from the observed information, by column (bcnPower: the
        curvature of the profile with gamma maximised out, i.e. ``sqrt([H^-1]_{lambda
        lambda})`` of the joint information; then also each gamma's, ``"<column>:gamma"``)."""
        self._refuse_fixed("bse")
        if self._gamma_values is None:
            return self._series(self._inferred("bse"), "bse")
        gse = self._gamma_bse if self._gamma_bse is not None else np.full(len(self.names), np.nan)
        self._warn_gamma_unavailable("standard error", gse)
        return self._with_gamma(self._inferred("bse"), gse, "bse")

    @property
    def pvalues(self) -> pd.Series:
        """Two-sided Wald p-values of each parameter ``= 0`` (statsmodels' meaning: ``z =
        params / bse``, standard normal), indexed as :attr:`bse`. For lambda the test of
        interest is usually :meth:`test` (likelihood ratio, any null such as 1).

        Examples
        --------
        >>> import numpy as np, boxcoxstat as bcs
        >>> r = bcs.fit(np.random.default_rng(0).lognormal(size=200))
        >>> bool(r.pvalues["x"] > 0.05)  # lambda = 0 (the log) is not rejected
        True
        """
        self._refuse_fixed("pvalues")
        return wald_pvalues(self.params, self.bse)

    def cov_params(self) -> pd.DataFrame:
        """The estimated covariance of the estimates: a DataFrame indexed by parameter on both
        axes (as :attr:`params`). Each column is fitted on its own, so the matrix is diagonal
        (``bse**2``), except that a bcnPower column's lambda and gamma share its observed
        information: their covariance is its inverse's off-diagonal (car's ``invHess``).

        Examples
        --------
        >>> import numpy as np, boxcoxstat as bcs
        >>> r = bcs.fit(np.random.default_rng(0).lognormal(size=(200, 2)))
        >>> c = r.cov_params()
        >>> c.shape, bool(c.iloc[0, 1] == 0), bool(np.isclose(c.iloc[0, 0], r.bse.iloc[0]**2))
        ((2, 2), True, True)
        """
        self._refuse_fixed("cov_params")
        rows = self._gamma_rows()
        if not rows:
            return diagonal_cov(self.bse)
        if self._gamma_cov is None:
            self._not_available("cov_params", "the result was saved before bcnPower fits kept "
                                "the covariance of lambda and gamma (a version-1 document); "
                                "bse has both standard errors; refit for the covariance")
        cov = diagonal_cov(self.bse)
        for j in rows:  # lambda and gamma of one column share its information
            lam, gam = self.names[j], f"{self.names[j]}:gamma"
            cov.loc[lam, gam] = cov.loc[gam, lam] = self._gamma_cov[j]
        return cov

    @property
    def aic(self) -> Any:
        """Akaike's criterion ``-2 llf + 2 k`` per column, ``k`` the parameters estimated
        (mean, variance, lambda unless fixed, an estimated shift), as
        :func:`boxcoxstat.compare` counts them."""
        return self._shape(-2.0 * self._llf_values + 2.0 * self._k_values(),
                           "aic")

    @property
    def bic(self) -> Any:
        """Schwarz's criterion ``-2 llf + k log(nobs)`` per column (see :attr:`aic`)."""
        k = self._k_values().astype(np.float64)
        return self._shape(-2.0 * self._llf_values + k * np.log(self._nobs_values), "bic")

    @property
    def rounded(self) -> Any:
        """Convenient power: the one in the 95% profile interval nearest the estimate, else
        the estimate to two decimals (see :func:`boxcoxstat.core.inference.rounded_power`)."""
        self._refuse_fixed("rounded")
        return self._shape(self._rounded_values(), "rounded")

    def _rounded_values(self) -> NDArray[np.float64]:
        return inf.rounded_power(self._lmbda_mle, self._inferred("lower"), self._inferred("upper"))

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
        return self._shape(inf.car_rounded_power(self._lmbda_mle, self._inferred("bse")),
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
        >>> r = bcs.fit(x, lmbda="safe")  # the MLE, about -143, loses the resolution
        >>> r.safe, r.lmbda
        (-9.52, -9.52)
        """
        self._refuse_fixed("safe")
        return self._shape(self._safe(), "safe")

    def _safe(self) -> NDArray[np.float64]:
        if self._safe_values is None:
            self._not_available("safe", "the result does not know its data's range (it was "
                                "fitted without pooling the data, by bcnPower, or loaded "
                                "from an older document); refit with bcs.fit")
        return self._safe_values

    @cached_property
    def _safe_statistic(self) -> NDArray[np.float64]:
        """LR statistic of the safe power against the MLE (0 where they agree)."""
        if self._safe_lr is not None:
            return self._safe_lr
        safe = self._safe()
        stat = np.where(np.isnan(safe), np.nan, 0.0)
        differ = np.isfinite(safe) & (safe != self._lmbda_mle)
        if differ.any():
            for idx, profile in self._profiles().values():
                sub = differ[idx]
                if sub.any():
                    lam0 = np.where(sub, safe[idx], self._lmbda_mle[idx])
                    stat[idx] = np.where(sub, inf.lr_statistic(profile, self._nll_mle[idx],
                                                               lam0), stat[idx])
        return stat

    @property
    def converged(self) -> Any:
        """Whether the score's sign change was bracketed and closed."""
        return self._shape(self._converged_values, "converged")

    @property
    def bound_active(self) -> Any:
        """Whether ``ymax`` (or ``lmbda="safe"``) moved the power used away from the
        unconstrained MLE, or lambda is on one of its ``bounds``."""
        active = self._lmbda_used != self._lmbda_mle
        if self._bounds is not None:
            active = active | (self._lmbda_mle <= self._bounds[:, 0]) | (
                self._lmbda_mle >= self._bounds[:, 1])
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
            lo, hi = inf.wald_interval(self._lmbda_mle, self._inferred("bse"), alpha)
        elif alpha == 0.05 and self._gamma_values is None:
            lo, hi = self._inferred("lower"), self._inferred("upper")
        elif alpha == 0.05:
            lo, hi = self._inferred("lower"), self._inferred("upper")
        else:
            lo, hi = np.empty(len(self.names)), np.empty(len(self.names))
            bse = self._inferred("bse")
            for idx, profile in self._profiles().values():
                if self._bounds is not None:
                    lo[idx], hi[idx] = inf.bounded_interval(
                        profile, self._lmbda_mle[idx], self._nll_mle[idx], self._bounds[idx],
                        bse[idx], alpha)
                    continue
                lo[idx], hi[idx] = inf.profile_interval(
                    profile, self._lmbda_mle[idx], self._nll_mle[idx], bse[idx], alpha,
                    infinite_ok=self._gamma_values is not None)
        frame = interval_frame(lo, hi, self.names)
        rows = self._gamma_rows()
        if self._gamma_values is None or not rows:
            return frame
        # gamma: Wald, cut at its lower bound (car's summary does the same at 0)
        assert self._gamma_bse is not None
        self._warn_gamma_unavailable("interval", self._gamma_bse)
        glo, ghi = inf.wald_interval(self._gamma_values[rows], self._gamma_bse[rows], alpha)
        glo = np.maximum(glo, self._gamma_min or 0.0)
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
        if self._bounds is not None:
            out = np.flatnonzero((lam0 < self._bounds[:, 0]) | (lam0 > self._bounds[:, 1]))
            if out.size:
                j = int(out[0])
                raise BoxCoxError(
                    f"column {self.names[j]!r}: the power {lam0[j]:g} lies outside the bounds "
                    f"[{self._bounds[j, 0]:g}, {self._bounds[j, 1]:g}] the fit maximised over, "
                    "so the bounded maximum is no alternative to it; test a power inside "
                    "the bounds, or refit with wider bounds")
        if np.all(lam0 == 0):
            stat = self._inferred("lr0")
        elif np.all(lam0 == 1):
            stat = self._inferred("lr1")
        else:
            stat = np.empty(len(self.names))
            for idx, profile in self._profiles().values():
                stat[idx] = inf.lr_statistic(profile, self._nll_mle[idx], lam0[idx])
        return _lambda_test(self.names, stat, lam0, self._layout in ("series", "array1d"))

    def profile(self, column: str | int | None = None,
                lmbda: ArrayLike | None = None) -> pd.DataFrame:
        """Profile log-likelihood of one column on a grid (DataFrame ``lmbda``, ``llf``).

        The default grid spans the 95% profile interval with half its width on each side (for
        a fixed power: MASS's range -2 to 2, widened to one unit either side of the power).
        """
        j = self._column_index(column)
        profile, k = self._column_profile(j)
        if lmbda is None and self.fixed:
            given = float(self._lmbda_used[j])
            lmbda = np.linspace(min(-2.0, given - 1.0), max(2.0, given + 1.0), 201)
        elif lmbda is None:
            lo, hi = self._inferred("lower")[j], self._inferred("upper")[j]
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
        if "bcnpower" in self._families:
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
        out = replace(self, _stored=None, _safe_values=None, _safe_lr=None, _safe_used=False,
                      _bounds=None, _lmbda_free=None, _ymax=None)._evaluated(lam)
        out._warn_resolution(stacklevel, remedy, what, values)
        return out

    def _warn_safe_outside(self, stacklevel: int) -> None:
        """Under ``lmbda="safe"``: a warning for every column whose safe power differs from
        the MLE and lies outside its 95% profile interval (every power the data support
        loses the resolution)."""
        moved = np.flatnonzero(self._lmbda_used != self._bounded())
        if not moved.size:
            return
        ci = self.conf_int()
        pvalue = inf.chi2_pvalue(self._safe_statistic)
        for j in moved:
            lo, hi = float(ci["lower"].iloc[j]), float(ci["upper"].iloc[j])
            if lo <= self._lmbda_used[j] <= hi:
                continue
            warnings.warn(
                f"column {self.names[j]!r}: no power in the 95% profile interval [{lo:.6g}, "
                f"{hi:.6g}] keeps the values resolved in float64; the safe power "
                f"{self._lmbda_used[j]:.6g} lies outside it (LR test against the MLE: p = "
                f"{pvalue[j]:.2g}); subtract an offset from the data or check their units",
                ResolutionWarning, stacklevel=stacklevel + 1)

    def _warn_resolution(self, stacklevel: int, remedy: str, what: str = "column",
                         values: NDArray[np.float64] | None = None,
                         lost: NDArray[np.bool_] | None = None) -> None:
        """A :class:`~boxcoxstat.ResolutionWarning` for every column whose power loses the
        fitted data's resolution (``core.resolution``; needs ``data_range``, and the data,
        held or given as ``values`` on the power's scale, for the message's facts).
        ``stacklevel`` counts from the caller; ``remedy`` may name ``{safe}``, the column's
        safe power; ``lost``, the columns that lose it, if the caller has them."""
        if self._source.data_range is None:
            return
        if lost is None:
            lost = loses_resolution(self._source.data_range[:, 0], self._source.data_range[:, 1],
                                    self._lmbda_used, [self._power_family(j)
                                                      for j in range(len(self.names))])
        safe = self._safe_values
        for j in np.flatnonzero(lost).tolist():
            hint = remedy.format(safe="none" if safe is None else f"{safe[j]:.6g}")
            warnings.warn(loss_message(self.names[j], float(self._lmbda_used[j]),
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
        if self._source.data is None:  # no data: the extremes stand for them
            assert self._source.data_range is not None
            return self._source.data_range[j]
        col = self._source.data[:, j]
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
            {"family": list(self._families), "n": self._nobs_values, "missing": self.n_missing,
             "llf": self._llf_values},
            index=list(self.names),
        )
        fams = " and ".join(_KINDS[f] for f in sorted(set(self._families)))
        if self._gamma_values is not None and "bcnpower" not in self._families:
            fams = "Shifted " + fams
        if self.fixed:
            given = pd.DataFrame({"lambda": self._lmbda_used}, index=list(self.names))
            notes = ["lambda given (fixed), not estimated: no standard error, interval, test or "
                     "rounded power."]
            if self._model is not None:
                notes.append(f"The response of the linear model {self._model}.")
            return Summary(f"{fams} power transformation, fixed power",
                           [("", given.join(info))], notes)
        ci = self.conf_int(alpha).iloc[: len(self.names)]
        lr0, lr1 = self._inferred("lr0"), self._inferred("lr1")
        est = pd.DataFrame(
            {
                "lambda": self._lmbda_used,
                "std err": self._inferred("bse"),
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
        if self._gamma_values is not None:
            tables.insert(1, ("Shift gamma", self._gamma_table(alpha)))
            notes += self._gamma_notes()
        if self._requested_family == "auto":
            notes += [f"{n}: {r}" for n, r in zip(self.names, self._family_reasons, strict=True)]
        if self._model is not None:
            notes.append(f"The response of the linear model {self._model}: lambda maximises "
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
        return np.clip(self._lmbda_mle, self._lambda_limits[:, 0], self._lambda_limits[:, 1])

    def _resolution_table(self, ci: pd.DataFrame) -> tuple[pd.DataFrame, list[str]] | None:
        """The summary's table of safe powers and their notes, where some column's MLE (or
        its ``ymax`` bound) loses the data's resolution."""
        if self._safe_values is None:
            return None
        before = self._bounded()
        lost = ~(self._safe_values == before)  # NaN: no safe power
        if not lost.any():
            return None
        stat = self._safe_statistic
        table = pd.DataFrame({"MLE": before, "safe": self._safe_values, "LR(safe)": stat,
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
            sj = self._safe_values[j]
            if np.isnan(sj):
                notes.append(f"{n}: no power keeps the values finite and resolved; rescale "
                             "the data")
            elif lost[j] and not lo[j] <= sj <= hi[j]:
                notes.append(f"{n}: no power in the interval keeps the values resolved; the "
                             "safe power lies outside it (subtract an offset or check the "
                             "data's units)")
        if self._safe_used:
            notes.append("lambda is the safe power (lmbda='safe'); the interval, tests and "
                         "std err are the MLE's.")
        return table, notes

    def _fit_notes(self) -> list[str]:
        """Notes on how the fit went: an active ``ymax`` bound, a solver that did not
        converge, and a federated fit's cost and the clients it left out."""
        notes = []
        bounded = self._bounded()
        for j, n in enumerate(self.names):
            if self._ymax is not None and bounded[j] != self._lmbda_mle[j]:
                notes.append(
                    f"{n}: bound active (ymax={self._ymax:.3g}); the unconstrained MLE is "
                    f"{self._lmbda_mle[j]:.10g}"
                )
            if self._weighted and j == 0:
                notes.append("Case weights: the likelihood of lm(x ~ 1, weights=w) (variance "
                             "weighted, Jacobian not; n counts the rows of positive weight).")
            if self._bounds is not None:
                lo, hi = self._bounds[j]
                free = np.nan if self._lmbda_free is None else self._lmbda_free[j]
                side = ("lower" if self._lmbda_mle[j] <= lo else
                        "upper" if self._lmbda_mle[j] >= hi else None)
                if side is not None:
                    notes.append(
                        f"{n}: bound active: lambda is the {side} bound of [{lo:g}, {hi:g}]; "
                        f"the unconstrained maximum is {free:.10g}; the interval is the "
                        "powers within the bounds whose profile likelihood is within the "
                        "cut-off of the bounded maximum; no std err at a bound")
                else:
                    notes.append(f"{n}: lambda maximised on [{lo:g}, {hi:g}] (bounds "
                                 "inactive); the interval stays within them")
            if not self._converged_values[j]:
                notes.append(f"{n}: the solver did not converge; treat lambda with caution")
        if self._source.federated is not None:
            fed = self._source.federated
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
        gam = self._gamma_values
        assert gam is not None
        p = len(self.names)
        gse = self._gamma_bse if self._gamma_bse is not None else np.full(p, np.nan)
        lo, hi = inf.wald_interval(gam, gse, alpha)
        status = self._gamma_status or ("fixed",) * p
        return pd.DataFrame({"gamma": gam, "std err": gse,
                             f"[{alpha / 2:g}": np.maximum(lo, self._gamma_min or 0.0),
                             f"{1 - alpha / 2:g}]": hi, "status": list(status)},
                            index=list(self.names))

    def _gamma_notes(self) -> list[str]:
        if "bcnpower" not in self._families:
            return ["Box-Cox of x + gamma with the shift fixed (car's bcPower(gamma=)); "
                    "llf is the likelihood of x."]
        notes = [f"bcnPower (Hawkins & Weisberg 2017): Box-Cox of (x + sqrt(x^2 + gamma^2))/2, "
                 f"gamma >= {self._gamma_min:g}; lambda's SE, interval and tests have gamma "
                 "maximised out; gamma's interval is Wald, cut at its bound."]
        for n, st in zip(self.names, self._gamma_status or (), strict=False):
            if st == "lower bound":
                notes.append(f"{n}: gamma is at its lower bound {self._gamma_min:g} (car then "
                             "fixes it there too); lambda's inference holds it fixed.")
            elif st == "upper limit":
                notes.append(f"{n}: gamma runs to its upper limit: the data need no "
                             "transformation (the transform is linear there).")
        return notes

    def __repr__(self) -> str:
        pairs = ", ".join(
            f"{n}={format_number(v)}" for n, v in zip(self.names, self._lmbda_used, strict=True)
        )
        fams = sorted(set(self._families))
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

