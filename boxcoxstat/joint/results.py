"""Result of a joint (multivariate) lambda fit: immutable, labelled, with a car-style summary.

``JointTransformResult`` holds the powers that together make several columns as close
to multivariate normal (around a linear model) as possible, their covariance from the observed
information, and the data needed for new intervals and tests. It is a result on the shared
base (:class:`~boxcoxstat.base.transform.ColumnTransforms`: ``transform``,
``inverse_transform``, ``lmbda``, ``params``, JSON), a sibling of
:class:`~boxcoxstat.PowerTransformResult`; inference goes through the core's one inference
module on the joint likelihood profiled to one power at a time
(:class:`~boxcoxstat.core.column_profiles.ColumnProfiles`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from .._validation.columns import BoxCoxError, check_option
from ..base import jsonio
from ..base.jsonio import saved
from ..base.results import HypothesisTest, check_alpha, interval_frame, wald_pvalues
from ..base.summary import Summary, format_power, format_pvalue
from ..base.transform import ColumnTransforms
from ..core import inference as inf
from ..core.joint import JointObjective
from ..core.likelihood import llf_constant
from ..core.profile import Profile

__all__ = ["JointTransformResult"]

_FAMILY_NAMES = {"boxcox": "Box-Cox", "yeojohnson": "Yeo-Johnson", "bcnpower": "bcnPower"}
_NO_DATA = ("the result holds no data (it was loaded from JSON); its 95% profile interval and "
            "the tests of all 0, all 1 and the rounded powers are stored, other levels and "
            "tests need a refit with bcs.fit_joint")


@dataclass(frozen=True, repr=False)
class JointTransformResult(ColumnTransforms):
    """Powers estimated jointly for several columns (multivariate normal likelihood).

    Build with :func:`boxcoxstat.fit_joint`. Per-column quantities (``lmbda``, ``params``,
    ``bse``, ``rounded``, ``family``) are pandas Series indexed by column name, ``conf_int()``
    a DataFrame (``lower``, ``upper``) by column and ``cov_params()`` a DataFrame; ``llf``,
    ``nobs`` and ``df_resid`` are numbers for the whole fit. ``test`` is the joint
    likelihood-ratio test of a vector of powers (car's ``testTransform``).

    Intervals: ``conf_int()`` is the profile-likelihood interval by default (each power's
    likelihood maximised over the other powers, as ``bcs.fit`` does for one column);
    ``interval="wald"`` gives car's ``lambda -+ z se``. The car-style :meth:`summary` shows
    car's Wald bounds (``lambda -+ 1.96 se``, so it matches R) next to the profile bounds.

    Examples
    --------
    >>> import boxcoxstat as bcs
    >>> r = bcs.fit_joint(bcs.datasets.load("highway1")[["len", "adt"]])
    >>> r.conf_int().round(3)
         lower  upper
    len -0.264  0.630
    adt -0.120  0.411
    >>> back = bcs.JointTransformResult.from_json(r.to_json())
    >>> back.lmbda.equals(r.lmbda), str(back.summary()) == str(r.summary())
    (True, True)
    """

    _vocabulary_why: ClassVar[dict[str, str]] = {
        "aic": ("not computed for a joint fit; compare joint fits by llf and their "
                "likelihood-ratio tests (test())"),
        "bic": ("not computed for a joint fit; compare joint fits by llf and their "
                "likelihood-ratio tests (test())"),
    }

    design: str = saved(jsonio.Str())
    cov_values: NDArray[np.float64] = saved(jsonio.Matrix(length_of="names"))
    nll_hat: float = saved(jsonio.Float())
    nobs: int = saved(jsonio.Int(minimum=1))
    n_missing: int = saved(jsonio.Int(minimum=0))
    design_rank: int = saved(jsonio.Int(minimum=1))
    converged: bool = saved(jsonio.Bool())
    start_values: NDArray[np.float64] = saved(jsonio.Floats(length_of="names"))
    # the 95% profile interval (columns lower, upper; a row per column) and the LR statistics
    # of all 0, all 1 and the rounded powers: computed from the data on first use, or stored
    stored: pd.DataFrame | None = saved(jsonio.Frame(optional=True), default=None,
                                        compare=False)
    stored_lr: NDArray[np.float64] | None = saved(jsonio.Floats(optional=True), default=None,
                                                  compare=False)
    # case weights' part of the log-likelihood, p/2 sum log w (0 without weights)
    llf_weights: float = saved(jsonio.Float(), default=0.0)
    # bounds=(lo, hi) per column (-inf/inf: open) and the unconstrained maximum
    bounds: NDArray[np.float64] | None = saved(jsonio.Matrix(length_of="names", optional=True),
                                               default=None)
    lmbda_free: NDArray[np.float64] | None = saved(
        jsonio.Floats(length_of="names", optional=True), default=None)
    problem: JointObjective | None = field(default=None, repr=False, compare=False)

    @staticmethod
    def _check_loaded(values: dict[str, Any]) -> None:
        names = list(values["names"])
        p = len(names)
        if values["layout"] != "frame":
            raise jsonio._Bad("field 'layout' must be 'frame' for a joint fit")
        if len(set(values["families"])) != 1:
            raise jsonio._Bad("field 'families' must hold one family for every column")
        cov = values["cov_values"]
        if np.shape(cov) != (p, p):
            raise jsonio._Bad(f"field 'cov_values' must be {p} x {p} (one row and column per "
                              "name)")
        if np.any(np.diag(cov) < 0):  # a covariance has no negative variance
            raise jsonio._Bad("field 'cov_values' has a negative variance on its diagonal")
        stored = values.get("stored")
        if stored is not None and (list(stored.columns) != ["lower", "upper"]
                                   or list(stored.index) != names):
            raise jsonio._Bad("field 'stored' must have columns ['lower', 'upper'] and one row "
                              "per name")
        bounds = values.get("bounds")
        if bounds is not None and (np.shape(bounds) != (p, 2) or np.isnan(bounds).any()
                                   or np.any(bounds[:, 0] >= bounds[:, 1])):
            raise jsonio._Bad("field 'bounds' must hold one pair (lower < upper) per name")
        lr = values.get("stored_lr")
        if lr is not None and np.shape(lr) != (3,):
            raise jsonio._Bad("field 'stored_lr' must hold 3 statistics (all 0, all 1, "
                              "rounded)")

    # ----------------------------------------------------------------- the data
    def _data(self, what: str) -> Any:
        if self.problem is None:
            self._not_available(what, _NO_DATA)
        return self.problem

    @cached_property
    def _column_profiles(self) -> Profile:
        """The joint likelihood profiled to each power (kept: it remembers its inner
        minimisers, which start the next ones)."""
        return self._data("conf_int").column_profiles(self._lmbda_used, self.cov_values)

    def _profile_bounds(self, alpha: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        problem = self._data("conf_int")
        p = len(self.names)
        if self.bounds is not None:  # the others maximised inside their bounds
            from .bounded import BoxedColumnProfiles

            prof = BoxedColumnProfiles(problem, self._lmbda_used, self.bounds)
            return inf.bounded_interval(prof, self._lmbda_used, np.full(p, self.nll_hat),
                                        self.bounds, self._bse_values(), alpha)
        # bcnPower's profile can level off (towards Manly's limit as lambda and gamma grow
        # together): an end it never reaches within the core's nuisance limit is infinite,
        # as for one column (bcs.fit)
        return inf.profile_interval(self._column_profiles, self._lmbda_used,
                                    np.full(p, self.nll_hat), self._bse_values(), alpha,
                                    infinite_ok=self._gamma_values is not None)

    def _outside(self, lmbda0: NDArray[np.float64]) -> bool:
        return self.bounds is not None and bool(np.any(
            (lmbda0 < self.bounds[:, 0]) | (lmbda0 > self.bounds[:, 1])))

    def _lr(self, lmbda0: NDArray[np.float64], what: str) -> float:
        if self._outside(lmbda0):
            if what == "test":
                raise BoxCoxError(
                    f"the powers {np.round(lmbda0, 6).tolist()} lie outside the bounds the fit "
                    "maximised over, so the bounded maximum is no alternative to them; test "
                    "powers inside the bounds, or refit with wider bounds")
            return float("nan")
        val = self._data(what).nll(lmbda0)
        return float(max(2.0 * (val - self.nll_hat), 0.0))

    @cached_property
    def _inference(self) -> tuple[pd.DataFrame, NDArray[np.float64]]:
        """95% profile interval and the three standard LR statistics (stored or computed)."""
        if self.stored is not None and self.stored_lr is not None:
            return self.stored, self.stored_lr
        lo, hi = self._profile_bounds(0.05)
        rounded = inf.rounded_power(self._lmbda_used, lo, hi)
        p = len(self.names)
        lr = np.array([self._lr(np.zeros(p), "summary"), self._lr(np.ones(p), "summary"),
                       self._lr(rounded, "summary")])
        return interval_frame(lo, hi, self.names), lr

    def _json_value(self, name: str) -> Any:
        if name == "stored" and self.stored is None and self.problem is not None:
            return self._inference[0]  # saved with the result, so a loaded one can report
        if name == "stored_lr" and self.stored_lr is None and self.problem is not None:
            return self._inference[1]
        return getattr(self, name)

    # ----------------------------------------------------------------- estimates
    def _bse_values(self) -> NDArray[np.float64]:
        return np.sqrt(np.diag(self.cov_values))

    @property
    def bse(self) -> pd.Series:
        """Standard errors: square roots of the diagonal of the inverse observed information
        (bcnPower: also each column's gamma, ``"<column>:gamma"``)."""
        if self._gamma_values is None:
            return self._series(self._bse_values(), "bse")
        gse = self._gamma_bse if self._gamma_bse is not None else np.full(len(self.names), np.nan)
        self._warn_gamma_unavailable("standard error", gse)
        return self._with_gamma(self._bse_values(), gse, "bse")

    @property
    def pvalues(self) -> pd.Series:
        """Two-sided Wald p-values of each parameter ``= 0`` (``z = params / bse``, standard
        normal), indexed as :attr:`bse`."""
        return wald_pvalues(self.params, self.bse)

    def cov_params(self) -> pd.DataFrame:
        """Covariance of the estimates (inverse Hessian of the negative log-likelihood)."""
        return pd.DataFrame(self.cov_values, index=list(self.names), columns=list(self.names))

    @property
    def llf(self) -> float:
        """Maximised Gaussian log-likelihood, Jacobians included (covariance divisor n)."""
        return (float(len(self.names) * llf_constant(self.nobs)) + self.llf_weights
                - self.nll_hat)

    @property
    def df_resid(self) -> int:
        """Rows minus the rank of the design."""
        return self.nobs - self.design_rank

    @property
    def rounded(self) -> pd.Series:
        """Convenient powers from the 95% **profile** interval (as ``bcs.fit``'s): per column,
        the one among -2, -1, -1/2, -1/3, 0, 1/3, 1/2, 1, 2 inside the column's 95% profile
        interval nearest the estimate, else the estimate to two decimals
        (:func:`boxcoxstat.core.inference.rounded_power`). car instead takes the first power
        inside its Wald interval in the order 1, 0, -1, 0.5, 0.33, ...: see
        :meth:`rounded_power`."""
        frame = self._inference[0]
        out = inf.rounded_power(self._lmbda_used, frame["lower"].to_numpy(),
                                frame["upper"].to_numpy())
        return self._series(out, "rounded")

    def rounded_power(self, rule: Literal["profile", "car"] = "profile") -> pd.Series:
        """Convenient powers by a named rule, by column.

        Parameters
        ----------
        rule : {"profile", "car"}, default="profile"
            ``"profile"``: :attr:`rounded`. ``"car"``: car's "Rounded Pwr" (``summary`` of
            ``powerTransform``): the first of 1, 0, -1, 0.5, 0.33, -0.5, -0.33, 2, -2 inside
            the column's Wald interval ``lambda -+ 1.96 se``, else the estimate to two
            decimals (:func:`boxcoxstat.core.inference.car_rounded_power`).

        Examples
        --------
        >>> import boxcoxstat as bcs
        >>> r = bcs.fit_joint(bcs.datasets.load("trees"), ["Volume", "Girth", "Height"])
        >>> r.rounded_power().round(3).tolist(), r.rounded_power(rule="car").tolist()
        ([0.0, -0.333, 1.0], [0.0, 0.0, 1.0])
        """
        check_option("rule", rule, inf.ROUNDING_RULES)
        if rule == "profile":
            return self.rounded
        return self._series(inf.car_rounded_power(self._lmbda_used, self._bse_values()),
                            "rounded (car)")

    # ----------------------------------------------------------------- inference
    def conf_int(self, alpha: float = 0.05,
                 interval: Literal["profile", "wald"] = "profile") -> pd.DataFrame:
        """Confidence interval for each power: a DataFrame (``lower``, ``upper``) by column.

        Parameters
        ----------
        alpha : float, default=0.05
            Significance level (0.05 gives a 95% interval).
        interval : {"profile", "wald"}, default="profile"
            ``"profile"``: the powers ``t`` of column j with ``2 (min over the other powers
            of NLL(lambda_j = t, others) - NLL(hat)) <= chi2_1(1 - alpha)``, endpoints solved
            by the core's bracketing and root finder; for one column this is ``bcs.fit``'s
            (``bcs.lm``'s with a design) interval. ``"wald"``: ``lambda -+ z_{1-alpha/2} se``
            (car's bounds use z = 1.96).

        Raises
        ------
        BoxCoxError
            For a bad ``alpha`` or ``interval``; for a result loaded from JSON, a profile
            interval at a level other than the stored 95%.

        Examples
        --------
        >>> import boxcoxstat as bcs
        >>> r = bcs.fit_joint(bcs.datasets.load("highway1")[["len", "adt"]])
        >>> r.conf_int(interval="wald").round(3)
             lower  upper
        len -0.261  0.630
        adt -0.126  0.402
        """
        check_option("interval", interval, ("profile", "wald"))
        alpha = check_alpha(alpha)
        if interval == "wald":
            lo, hi = inf.wald_interval(self._lmbda_used, self._bse_values(), alpha)
            frame = interval_frame(lo, hi, self.names)
        elif alpha == 0.05:
            frame = self._inference[0].copy()
        else:
            lo, hi = self._profile_bounds(alpha)
            frame = interval_frame(lo, hi, self.names)
        if self._gamma_values is None:
            return frame
        gse = self._gamma_bse if self._gamma_bse is not None else np.full(len(self.names), np.nan)
        self._warn_gamma_unavailable("interval", gse)
        glo, ghi = inf.wald_interval(self._gamma_values, gse, alpha)  # Wald, cut at the bound
        return pd.concat([frame, interval_frame(np.maximum(glo, self._gamma_min or 0.0), ghi,
                                                [f"{n}:gamma" for n in self.names])])

    def test(self, lmbda0: ArrayLike) -> HypothesisTest:
        """Likelihood-ratio test that the powers equal ``lmbda0`` (a number, one per column, or
        a Series by column): chi-square with as many degrees of freedom as columns (car's
        ``testTransform``).

        Raises
        ------
        BoxCoxError
            For a bad ``lmbda0``; for a result loaded from JSON, any test other than the
            stored ones (all 0, all 1, the rounded powers).

        Examples
        --------
        >>> import boxcoxstat as bcs
        >>> r = bcs.fit_joint(bcs.datasets.load("highway1")[["len", "adt"]])
        >>> t = r.test(0)
        >>> round(t.statistic, 4), t.df, t.null
        (1.717, 2, 'lambda(len, adt) = (0, 0)')
        """
        lam0 = self._null_values(lmbda0)
        if self.problem is None:
            stat = self._stored_test(lam0)
        else:
            stat = self._lr(lam0, "test")
        null = (f"lambda({', '.join(self.names)}) = ("
                + ", ".join(f"{v:.6g}" for v in lam0) + ")")
        return HypothesisTest(("joint",), np.array([stat]), len(self.names), null, scalar=True)

    def _stored_test(self, lam0: NDArray[np.float64]) -> float:
        lr = self._inference[1]
        for k, known in enumerate((0.0, 1.0)):
            if np.all(lam0 == known):
                return float(lr[k])
        if np.array_equal(lam0, self.rounded.to_numpy()):
            return float(lr[2])
        self._not_available("test", _NO_DATA)

    # ----------------------------------------------------------------- reports
    def summary(self, alpha: float = 0.05) -> Summary:
        """car-style report: estimates, standard errors, convenient powers, car's Wald bounds
        and the profile bounds, and the joint LR tests of all 0, all 1 and the rounded powers.

        Parameters
        ----------
        alpha : float, default=0.05
            Significance level of the bounds shown. At 0.05 the Wald bounds are car's
            ``lambda -+ 1.96 se``; otherwise ``z_{1-alpha/2}`` replaces 1.96.

        Examples
        --------
        >>> import boxcoxstat as bcs
        >>> r = bcs.fit_joint(bcs.datasets.load("highway1")[["len", "adt"]])
        >>> print(r.summary())  # doctest: +ELLIPSIS
        Box-Cox transformations to multinormality (joint maximum likelihood)
        ...
        """
        alpha = check_alpha(alpha)
        bse = self._bse_values()
        lam = self._lmbda_used
        z = 1.96 if alpha == 0.05 else float(stats.norm.isf(alpha / 2.0))
        prof = self.conf_int(alpha).iloc[: len(self.names)]
        est = pd.DataFrame(
            {
                "Est Power": lam,
                "Std Err": bse,
                "Rounded Pwr": self.rounded_power(rule="car").to_numpy(),
                "Rounded (profile)": self.rounded.to_numpy(),
                "Wald Lwr Bnd": lam - z * bse,
                "Wald Upr Bnd": lam + z * bse,
                "Prof Lwr Bnd": prof["lower"].to_numpy(),
                "Prof Upr Bnd": prof["upper"].to_numpy(),
            },
            index=list(self.names),
        )
        p = len(self.names)
        family = self._families[0]
        nulls = (np.zeros(p), np.ones(p), self.rounded.to_numpy())
        lr = self._inference[1]
        labels = ["all 0 (log)" if family == "boxcox" else "all 0", "all 1 (none)",
                  "rounded (profile)"]
        tests = pd.DataFrame(
            {
                "lambda0": ["(" + ", ".join(format_power(v) for v in n) + ")" for n in nulls],
                "LRT": lr,
                "df": [p] * 3,
                "p-value": inf.chi2_pvalue(lr, p),
            },
            index=labels,
        )
        level = f"{100 * (1 - alpha):g}%"
        notes = [
            f"n = {self.nobs} complete rows ({self.n_missing} dropped for missing values); "
            f"design {self.design} (rank {self.design_rank}).",
            f"Log-likelihood {self.llf:.4f}.",
            f"SE from the observed information; {level} bounds: Wald lambda -+ {z:.4g} SE "
            "(car's), profile likelihood with the other powers maximised out.",
            "Rounded Pwr: car's rule (the first of 1, 0, -1, 0.5, 0.33, -0.5, -0.33, 2, -2 "
            "inside the Wald interval lambda -+ 1.96 SE); Rounded (profile): the convenient "
            "power nearest the estimate inside the 95% profile interval (.rounded, tested "
            f"below); LR tests chi-square with {p} df.",
        ]
        if self.bounds is not None:
            box = ", ".join(f"{n} [{lo:g}, {hi:g}]" for n, (lo, hi)
                            in zip(self.names, self.bounds, strict=True))
            on = [n for n, v, (lo, hi) in zip(self.names, lam, self.bounds, strict=True)
                  if v <= lo or v >= hi]
            free = ("" if self.lmbda_free is None else " (the unconstrained maximum: "
                    + ", ".join(f"{v:.6g}" for v in self.lmbda_free) + ")")
            notes.append(f"Powers maximised within bounds: {box}; "
                         + (f"bound active for {', '.join(on)}{free}: no std err there; "
                            if on else "no bound active; ")
                         + "profile bounds measured from the bounded maximum, the other "
                         "powers maximised within their bounds; tests of powers outside the "
                         "bounds are not shown.")
        if not self.converged:
            notes.append("The optimiser did not converge; treat the estimates with caution.")
        tables = [("Estimated powers", est), ("Likelihood-ratio tests", tests)]
        if self._gamma_values is not None:
            gse = (self._gamma_bse if self._gamma_bse is not None
                   else np.full(len(self.names), np.nan))
            tables.insert(1, ("Estimated shifts gamma (bcnPower)", pd.DataFrame(
                {"Est gamma": self._gamma_values, "Std Err": gse,
                 "Wald Lwr Bnd": np.maximum(self._gamma_values - z * gse, self._gamma_min or 0.0),
                 "Wald Upr Bnd": self._gamma_values + z * gse,
                 "status": list(self._gamma_status or ())}, index=list(self.names))))
            notes.append(f"bcnPower (Hawkins & Weisberg 2017): gamma >= {self._gamma_min:g}; the "
                         "powers' SEs, bounds and tests have every gamma maximised out.")
        title = (f"{_FAMILY_NAMES[family]} transformations to multinormality "
                 "(joint maximum likelihood)")
        fmts: dict[str, Callable[[Any], str]] = {
            "p-value": format_pvalue, "Rounded Pwr": format_power,
            "Rounded (profile)": format_power, "lambda0": str,
            "status": str}
        return Summary(title, tables, notes, fmts)

    def __repr__(self) -> str:
        pairs = ", ".join(f"{n}={v:.4g}" for n, v in zip(self.names, self._lmbda_used,
                                                           strict=True))
        return f"<JointTransformResult {self._families[0]} ({self.design}): lmbda {pairs}>"
