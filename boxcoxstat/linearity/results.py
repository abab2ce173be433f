"""Results of the powers chosen for linearity: Box-Tidwell and the inverse response plot.

Immutable, on the shared base; inference goes through the core's one inference module
on the objective's profile (one power at a time, the others maximised out); rendering is
``Summary``'s, the figure ``plotting``'s.
"""

from __future__ import annotations

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
from ..base.results import (
    HypothesisTest,
    ResultBase,
    check_alpha,
    diagonal_cov,
    interval_frame,
    wald_pvalues,
)
from ..base.summary import Summary, format_number, format_pvalue
from ..core import inference as inf

__all__ = ["BoxTidwellResult", "InverseResponseResult"]

_NO_DATA = ("the result holds no data (it was loaded from JSON); its 95% profile interval and "
            "the test of no transformation are stored, other levels and tests need a refit")


def _nulls(names: tuple[str, ...], lmbda0: Any) -> NDArray[np.float64]:
    arr = np.asarray(lmbda0, dtype=np.float64)
    if arr.ndim == 0:
        arr = np.full(len(names), float(arr))
    if arr.shape != (len(names),) or not np.all(np.isfinite(arr)):
        raise BoxCoxError(f"lmbda0 must be a finite number or {len(names)} numbers (one per "
                          f"power {list(names)})")
    return arr


@dataclass(frozen=True, repr=False)
class BoxTidwellResult(ResultBase):
    """Powers of predictors by maximum likelihood (:func:`boxcoxstat.box_tidwell`).

    ``params`` the powers, ``bse`` their standard errors (observed information of the profile
    likelihood), ``pvalues`` car's score tests of no transformation (``tvalues`` the
    statistics), ``conf_int()`` profile-likelihood intervals (each power with the others
    maximised out), ``test(lmbda0)`` the likelihood-ratio test of all powers at once.

    Examples
    --------
    >>> import numpy as np, pandas as pd, boxcoxstat as bcs
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"x": rng.uniform(1, 10, 100)})
    >>> df["y"] = 1 + 2 * np.log(df["x"]) + rng.normal(scale=0.1, size=100)
    >>> r = bcs.box_tidwell("y ~ x", df)
    >>> back = bcs.BoxTidwellResult.from_json(r.to_json())
    >>> back.params.equals(r.params), str(back.summary()) == str(r.summary())
    (True, True)
    """

    _vocabulary_why: ClassVar[dict[str, str]] = {
        "aic": ("Box-Tidwell is a score iteration on the regression; compare the refitted models "
                "(bcs.lm) instead"),
        "bic": ("Box-Tidwell is a score iteration on the regression; compare the refitted models "
                "(bcs.lm) instead"),
    }

    formula: str = saved(jsonio.Str())
    other: str | None = saved(jsonio.Str(optional=True))
    names: tuple[str, ...] = saved(jsonio.Strs())
    lmbda_values: NDArray[np.float64] = saved(jsonio.Floats(length_of="names"))
    cov_values: NDArray[np.float64] = saved(jsonio.Matrix(length_of="names"))
    score_z: NDArray[np.float64] = saved(jsonio.Floats(length_of="names"))
    nll_hat: float = saved(jsonio.Float())
    llf_constant: float = saved(jsonio.Float())
    nobs: int = saved(jsonio.Int(minimum=1))
    n_dropped: int = saved(jsonio.Int(minimum=0))
    converged: bool = saved(jsonio.Bool())
    stored: pd.DataFrame | None = saved(jsonio.Frame(optional=True, columns=(
        "lower", "upper", "lr1")), default=None, compare=False)
    problem: Any = field(default=None, repr=False, compare=False)

    @staticmethod
    def _check_loaded(values: dict[str, Any]) -> None:
        stored = values.get("stored")
        if stored is not None and list(map(str, stored.index)) != list(values["names"]):
            raise jsonio._Bad("field 'stored' must have one row per name in 'names'")

    # ------------------------------------------------------------------ estimates
    def _series(self, values: Any, name: str) -> pd.Series:
        return pd.Series(np.asarray(values, dtype=np.float64), index=list(self.names), name=name)

    @property
    def lmbda(self) -> pd.Series:
        return self._series(self.lmbda_values, "lmbda")

    @property
    def params(self) -> pd.Series:
        return self._series(self.lmbda_values, "params")

    @property
    def bse(self) -> pd.Series:
        return self._series(np.sqrt(np.diag(self.cov_values)), "bse")

    @property
    def tvalues(self) -> pd.Series:
        """car's score statistics: the t value of ``x log x`` added to the untransformed model."""
        return self._series(self.score_z, "score")

    @property
    def pvalues(self) -> pd.Series:
        """Two-sided normal p-values of the score statistics (no transformation, car's)."""
        return self._series(2.0 * stats.norm.sf(np.abs(self.score_z)), "pvalues")

    @property
    def llf(self) -> float:
        """Maximised Gaussian log-likelihood of the regression (variance divisor n)."""
        return self.llf_constant - self.nll_hat

    def cov_params(self) -> pd.DataFrame:
        return pd.DataFrame(self.cov_values, index=list(self.names), columns=list(self.names))

    # ------------------------------------------------------------------ inference
    def _need(self, what: str) -> Any:
        if self.problem is None:
            self._not_available(what, _NO_DATA)
        return self.problem

    @cached_property
    def _profiles(self) -> Any:
        return self._need("conf_int").column_profiles(self.lmbda_values, self.cov_values)

    def _profile_bounds(self, alpha: float) -> tuple[NDArray, NDArray]:
        p = len(self.names)
        return inf.profile_interval(self._profiles, self.lmbda_values, np.full(p, self.nll_hat),
                                    np.sqrt(np.diag(self.cov_values)), alpha)

    @cached_property
    def _inference(self) -> pd.DataFrame:
        if self.stored is not None:
            return self.stored
        lo, hi = self._profile_bounds(0.05)
        lr1 = self._lr(np.ones(len(self.names)))
        return pd.DataFrame({"lower": lo, "upper": hi, "lr1": np.full(len(self.names), lr1)},
                            index=list(self.names))

    def _json_value(self, name: str) -> Any:
        if name == "stored" and self.stored is None and self.problem is not None:
            return self._inference
        return getattr(self, name)

    def _lr(self, lmbda0: NDArray[np.float64]) -> float:
        return float(max(2.0 * (self._need("test").nll(lmbda0) - self.nll_hat), 0.0))

    def conf_int(self, alpha: float = 0.05,
                 interval: Literal["profile", "wald"] = "profile") -> pd.DataFrame:
        """Profile-likelihood (default) or Wald intervals of the powers (``lower``, ``upper``)."""
        check_option("interval", interval, ("profile", "wald"))
        alpha = check_alpha(alpha)
        if interval == "wald":
            lo, hi = inf.wald_interval(self.lmbda_values, np.sqrt(np.diag(self.cov_values)),
                                       alpha)
        elif alpha == 0.05:
            lo, hi = self._inference["lower"].to_numpy(), self._inference["upper"].to_numpy()
        else:
            lo, hi = self._profile_bounds(alpha)
        return interval_frame(lo, hi, self.names)

    def test(self, lmbda0: ArrayLike) -> HypothesisTest:
        """Likelihood-ratio test that the powers equal ``lmbda0`` (a number or one per
        predictor); chi-square with as many df as powers."""
        lam0 = _nulls(self.names, lmbda0)
        if self.problem is None and np.all(lam0 == 1):
            stat = float(self._inference["lr1"].iloc[0])
        else:
            stat = self._lr(lam0)
        null = "lambda(" + ", ".join(self.names) + ") = (" + ", ".join(
            f"{v:.6g}" for v in lam0) + ")"
        return HypothesisTest(("joint",), np.array([stat]), len(self.names), null, scalar=True)

    # ------------------------------------------------------------------ report
    def summary(self, alpha: float = 0.05) -> Summary:
        ci = self.conf_int(alpha)
        table = pd.DataFrame({
            "MLE of lambda": self.lmbda_values, "std err": self.bse.to_numpy(),
            f"[{alpha / 2:g}": ci["lower"].to_numpy(),
            f"{1 - alpha / 2:g}]": ci["upper"].to_numpy(),
            "score z": self.score_z, "Pr(>|z|)": self.pvalues.to_numpy()},
            index=list(self.names))
        lr = self.test(1.0)
        notes = [
            f"Model {self.formula}" + (f", not transformed: {self.other}" if self.other else "")
            + f"; n = {self.nobs}" + (f" ({self.n_dropped} rows dropped)" if self.n_dropped
                                      else "") + f", log-likelihood {format_number(self.llf)}.",
            f"Intervals: {100 * (1 - alpha):g}% profile likelihood; SE from the observed "
            "information; score z: car's test of no transformation.",
            f"LR test of no transformation: {format_number(lr.statistic)} on {lr.df} df, "
            f"p = {format_pvalue(lr.pvalue)}.",
        ]
        if not self.converged:
            notes.append("The optimiser did not converge; treat the powers with caution.")
        return Summary("Box-Tidwell powers of the predictors (maximum likelihood)",
                       [("", table)], notes, {"Pr(>|z|)": format_pvalue})

    def __repr__(self) -> str:
        pairs = ", ".join(f"{n}={v:.4g}" for n, v in zip(self.names, self.lmbda_values,
                                                           strict=True))
        return f"<BoxTidwellResult {self.formula!r}: lmbda {pairs}>"


_CURVE_ONLY = ("the inverse response fit is a least-squares curve of yhat on the response; "
               "its llf is that curve's, not a model to compare")


@dataclass(frozen=True, repr=False)
class InverseResponseResult(ResultBase):
    """The power of the response from the inverse response plot (car's ``invTranEstimate``).

    Built by :func:`boxcoxstat.inverse_response`: ``yhat ~ 1 + psi(lambda, y)`` by least
    squares.

    ``conf_int(interval="profile")`` is the likelihood-ratio interval ``n log(RSS(lambda) /
    RSS(hat)) <= chi2_1(1 - alpha)``; ``interval="car"`` is car's, which cuts at half that
    (``chi2_1(1 - alpha) / 2``, so its nominal 95% is about 83%); ``"wald"`` uses the SE.

    Examples
    --------
    >>> import boxcoxstat as bcs
    >>> import statsmodels.formula.api as smf
    >>> ols = smf.ols("Volume ~ Girth + Height", bcs.datasets.load("trees")).fit()
    >>> r = bcs.inverse_response(ols)
    >>> round(r.lmbda, 4), r.conf_int(interval="car").round(4).values.tolist()
    (0.3658, [[0.2315, 0.5032]])
    """

    _vocabulary_why: ClassVar[dict[str, str]] = {
        "aic": _CURVE_ONLY,
        "bic": _CURVE_ONLY,
    }

    response: str = saved(jsonio.Str())
    family: str = saved(jsonio.Str(choices=("boxcox", "yeojohnson")))
    lmbda_value: float = saved(jsonio.Float(finite=True))
    bse_value: float = saved(jsonio.Float())
    nll_hat: float = saved(jsonio.Float())
    nobs: int = saved(jsonio.Int(minimum=3))
    rss_table: pd.DataFrame | None = saved(jsonio.Frame(optional=True, columns=(
        "lmbda", "RSS")), default=None, compare=False)
    stored: pd.DataFrame | None = saved(jsonio.Frame(optional=True, columns=(
        "lower", "upper"), rows=("profile", "car")), default=None, compare=False)
    profile_: Any = field(default=None, repr=False, compare=False)
    y: NDArray[np.float64] | None = field(default=None, repr=False, compare=False)
    yhat: NDArray[np.float64] | None = field(default=None, repr=False, compare=False)

    @property
    def lmbda(self) -> float:
        return self.lmbda_value

    @property
    def params(self) -> pd.Series:
        return pd.Series([self.lmbda_value], index=[self.response], name="params")

    @property
    def bse(self) -> pd.Series:
        return pd.Series([self.bse_value], index=[self.response], name="bse")

    @property
    def pvalues(self) -> pd.Series:
        """Two-sided Wald p-value of ``lambda = 0`` (``z = lmbda / bse``, standard normal)."""
        return wald_pvalues(self.params, self.bse)

    def cov_params(self) -> pd.DataFrame:
        """The variance of lambda (one parameter): ``bse**2`` as a 1 x 1 DataFrame."""
        return diagonal_cov(self.bse)

    @property
    def llf(self) -> float:
        """Gaussian log-likelihood of ``yhat ~ 1 + psi(lambda, y)`` at the estimate."""
        n = float(self.nobs)
        return -self.nll_hat - 0.5 * n * (np.log(2 * np.pi) + 1.0)

    def _need(self, what: str) -> Any:
        if self.profile_ is None:
            self._not_available(what, _NO_DATA)
        return self.profile_

    def rss(self, lmbda: ArrayLike | None = None) -> pd.DataFrame:
        """Residual sums of squares of ``yhat ~ psi(lambda, y)``: by default at the estimate,
        -1, 0 and 1 (the table car's ``invTranPlot`` returns)."""
        if lmbda is None:
            if self.rss_table is not None and self.profile_ is None:
                return self.rss_table
            lmbda = [self.lmbda_value, -1.0, 0.0, 1.0]
        lam = np.atleast_1d(np.asarray(lmbda, dtype=np.float64))
        return pd.DataFrame({"lmbda": lam, "RSS": self._need("rss").rss(lam)})

    def _json_value(self, name: str) -> Any:
        if name == "rss_table" and self.rss_table is None and self.profile_ is not None:
            return self.rss()
        if name == "stored" and self.stored is None and self.profile_ is not None:
            return pd.concat([self.conf_int(interval=k).rename(index={self.response: k})
                              for k in ("profile", "car")])
        return getattr(self, name)

    def conf_int(self, alpha: float = 0.05,
                 interval: Literal["profile", "car", "wald"] = "profile") -> pd.DataFrame:
        """Interval for lambda: ``"profile"`` (likelihood ratio), ``"car"`` (car's cut-off at
        half the chi-square quantile) or ``"wald"``."""
        check_option("interval", interval, ("profile", "car", "wald"))
        alpha = check_alpha(alpha)
        lam = np.array([self.lmbda_value])
        if interval == "wald":
            lo, hi = inf.wald_interval(lam, np.array([self.bse_value]), alpha)
            return interval_frame(lo, hi, [self.response])
        if self.profile_ is None and self.stored is not None and alpha == 0.05:
            row = self.stored.loc[interval]
            return interval_frame([row["lower"]], [row["upper"]], [self.response])
        level = alpha if interval == "profile" else float(
            stats.chi2.sf(0.5 * stats.chi2.isf(alpha, 1), 1))
        lo, hi = inf.profile_interval(self._need("conf_int"), lam, np.array([self.nll_hat]),
                                      np.array([self.bse_value]), level)
        return interval_frame(lo, hi, [self.response])

    def test(self, lmbda0: float) -> HypothesisTest:
        """Likelihood-ratio test of ``lambda = lmbda0`` (``n log(RSS(lmbda0)/RSS(hat))``)."""
        lam0 = _nulls((self.response,), lmbda0)
        stat = inf.lr_statistic(self._need("test"), np.array([self.nll_hat]), lam0)
        return HypothesisTest((self.response,), stat, 1, f"lambda = {lam0[0]:.6g}",
                              scalar=True)

    def curves(self, lmbda: ArrayLike | None = None, num: int = 100) -> pd.DataFrame:
        """Fitted lines of ``yhat ~ psi(lambda, y)`` over the range of y (for the plot): one
        column per power (the estimate, -1, 0, 1 by default)."""
        if self.y is None or self.yhat is None:
            self._not_available("curves", _NO_DATA)
        from ..families import transform

        lam = [self.lmbda_value, -1.0, 0.0, 1.0] if lmbda is None else list(
            np.atleast_1d(lmbda))
        grid = np.linspace(self.y.min(), self.y.max(), num)
        out = {}
        for v in lam:
            z = transform(self.y, float(v), self.family)
            coef = np.polyfit(z, self.yhat, 1)
            out[f"{float(v):.4g}"] = np.polyval(coef, transform(grid, float(v), self.family))
        return pd.DataFrame(out, index=pd.Index(grid, name=self.response))

    def summary(self, alpha: float = 0.05) -> Summary:
        prof, car = self.conf_int(alpha), self.conf_int(alpha, interval="car")
        table = pd.DataFrame({"lambda": [self.lmbda_value], "std err": [self.bse_value],
                              "LR lower": prof["lower"].to_numpy(),
                              "LR upper": prof["upper"].to_numpy(),
                              "car lower": car["lower"].to_numpy(),
                              "car upper": car["upper"].to_numpy()}, index=[self.response])
        notes = [f"yhat ~ 1 + psi(lambda, {self.response}) by least squares, n = {self.nobs} "
                 "(Cook & Weisberg 1994; car's invTranEstimate).",
                 f"{100 * (1 - alpha):g}% intervals: likelihood ratio, n log(RSS/RSS_min) <= "
                 "chi2(1); car's cut-off is chi2(1)/2."]
        rss = self.rss()
        return Summary("Inverse response plot: power of the response",
                       [("", table), ("Residual sum of squares", rss.set_index("lmbda"))],
                       notes)

    def __repr__(self) -> str:
        return f"<InverseResponseResult {self.response}: lmbda {format_number(self.lmbda_value)}>"

    def plot(self, *, ax: Any = None) -> Any:
        """car's inverse response plot (see ``plotting.plot_inverse_response``)."""
        from .plotting import plot_inverse_response

        return plot_inverse_response(self, ax=ax)
