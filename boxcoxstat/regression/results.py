"""The result of :func:`boxcoxstat.lm`: the response power of a linear model and the model.

Layer 5. Immutable; inference at the default level is computed on first use and cached.
Numbers come from ``regression`` (likelihood, solver, interval), ``inference`` (tests, rounded
powers) and ``backtransform`` (predictions on the original scale); rendering is ``summary``'s,
figures are ``plotting_lm``'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .._validation import BoxCoxError, check_option
from ..base.results import HypothesisTest
from ..base.summary import Summary, format_number, format_power, format_pvalue
from ..core import inference as inf
from ..core.profile import Profile
from ..families import transform
from ..univariate.results import lambda_test
from . import backtransform as bt

__all__ = ["LmResult"]

_FAMILY = {"boxcox": "Box-Cox", "yeojohnson": "Yeo-Johnson"}


@dataclass(frozen=True)
class LmResult:
    """A linear model with a power-transformed response, fitted by :func:`boxcoxstat.lm`.

    Attributes
    ----------
    formula, family, response : str
    lmbda : float
        Maximum-likelihood power of the response.
    converged : bool
    n_dropped : int
        Rows left out because a used variable (or the weight) was missing.
    term_lambdas : dict
        The powers of the ``bc()`` / ``yj()`` predictor terms, by term.
    aliased : tuple of str
        Design columns dropped because they are linear combinations of earlier ones.
    """

    formula: str
    family: str
    response: str
    lmbda: float
    nll_hat: float
    converged: bool
    n_dropped: int
    term_lambdas: dict[str, float]
    column_names: tuple[str, ...]
    aliased: tuple[str, ...]
    index: pd.Index = field(repr=False)
    y: NDArray[np.float64] = field(repr=False)
    x: NDArray[np.float64] = field(repr=False)  # kept design columns only
    weights: NDArray[np.float64] | None = field(repr=False)
    design_info: Any = field(repr=False, compare=False)
    likelihood: Profile = field(repr=False, compare=False)

    # ------------------------------------------------------------------ inference
    @property
    def nobs(self) -> int:
        return int(self.likelihood.nobs()[0])

    @property
    def llf(self) -> float:
        """Maximised log-likelihood of the response (Jacobian included, as ``logLik`` of the
        transformed model plus ``(lambda - 1) sum log y``)."""
        return float(self.likelihood.llf_offset()[0] - self.nll_hat)

    @cached_property
    def bse(self) -> float:
        """Standard error of lambda from the observed information."""
        return float(inf.standard_error(self.likelihood, np.array([self.lmbda]))[0])

    def _interval(self, alpha: float) -> tuple[float, float]:
        lo, hi = inf.profile_interval(self.likelihood, np.array([self.lmbda]),
                                      np.array([self.nll_hat]), np.array([self.bse]), alpha)
        return float(lo[0]), float(hi[0])

    @cached_property
    def _ci95(self) -> tuple[float, float]:
        return self._interval(0.05)

    def conf_int(self, alpha: float = 0.05) -> NDArray[np.float64]:
        """Profile-likelihood interval for lambda, ``array([lower, upper])``.

        The endpoints solve ``2 (l(hat) - l(lambda)) = chi2_1(1 - alpha)`` exactly (MASS's
        ``boxcox`` reads them off a grid).
        """
        if not 0 < alpha < 1:
            raise BoxCoxError(f"alpha must lie strictly between 0 and 1, got {alpha!r}")
        if alpha == 0.05:
            return np.array(self._ci95)
        return np.array(self._interval(alpha))

    def _lr(self, lmbda0: float) -> float:
        return float(inf.lr_statistic(self.likelihood, np.array([self.nll_hat]),
                                      np.array([lmbda0]))[0])

    def test(self, lmbda0: float) -> HypothesisTest:
        """Likelihood-ratio test of ``H0: lambda = lmbda0`` (``car::testTransform``)."""
        lam0 = float(lmbda0)
        if not np.isfinite(lam0):
            raise BoxCoxError("lmbda0 must be finite")
        return lambda_test((self.response,), np.array([self._lr(lam0)]), np.array([lam0]), True)

    @property
    def rounded(self) -> float:
        """The convenient power in the 95% profile interval nearest the estimate."""
        lo, hi = self._ci95
        return float(inf.rounded_power(np.array([self.lmbda]), np.array([lo]),
                                       np.array([hi]))[0])

    @cached_property
    def profile(self) -> pd.DataFrame:
        """Profile log-likelihood on MASS's grid ``seq(-2, 2, 1/10)``, widened to cover the
        95% interval with half its width to spare (steps of 0.1, at most 201 points)."""
        lo, hi = self._ci95
        half = 0.5 * (hi - lo)
        a, b = min(-2.0, lo - half), max(2.0, hi + half)
        step = max(0.1, (b - a) / 200)
        grid = np.round(np.arange(np.floor(a / step), np.ceil(b / step) + 1) * step, 10)
        grid = np.union1d(grid, [self.lmbda])
        val, _ = self.likelihood.evaluate(grid, 0, score=False)
        return pd.DataFrame({"lmbda": grid, "llf": self.likelihood.llf_offset()[0] - val})

    # ------------------------------------------------------------------ the linear model
    def at(self, lmbda: float) -> Any:
        """The statsmodels OLS (WLS with weights) of the response transformed at ``lmbda``."""
        import statsmodels.api as sm

        z = pd.Series(transform(self.y, float(lmbda), self.family), index=self.index,
                      name=f"{self.response} (lambda={format_number(float(lmbda))})")
        names = [n for n in self.column_names if n not in self.aliased]
        x = pd.DataFrame(self.x, index=self.index, columns=names)
        if self.weights is None:
            return sm.OLS(z, x).fit()
        return sm.WLS(z, x, weights=self.weights).fit()

    @cached_property
    def ols(self) -> Any:
        """The statsmodels OLS at the estimated power."""
        return self.at(self.lmbda)

    @property
    def resid(self) -> pd.Series:
        """Residuals on the transformed scale (unweighted, as ``residuals(lm)``)."""
        return self.ols.resid

    @property
    def fittedvalues(self) -> pd.Series:
        """Fitted values on the transformed scale."""
        return self.ols.fittedvalues

    def predict(
        self,
        newdata: pd.DataFrame | None = None,
        *,
        scale: Literal["transformed", "response"] = "response",
        kind: Literal["median", "mean"] = "median",
        method: Literal["smearing", "normal"] = "smearing",
    ) -> pd.Series:
        """Predictions for new data (the fitted rows by default).

        Parameters
        ----------
        newdata : DataFrame, optional
            Predictor transforms reuse the powers learned at fitting time. Rows with missing
            predictors are left out.
        scale : {"transformed", "response"}, default="response"
            The linear predictor, or its back-transform to the response's scale.
        kind : {"median", "mean"}, default="median"
            On the response scale: the conditional median ``g^{-1}(eta)``, or the mean.
        method : {"smearing", "normal"}, default="smearing"
            For the mean: Duan's (1983) smearing over the residuals, or the normal-theory
            ``E[g^{-1}(eta + sigma Z)]`` by quadrature (``backtransform.mean_normal``).
        """
        check_option("scale", scale, ("transformed", "response"))
        check_option("kind", kind, ("median", "mean"))
        check_option("method", method, ("smearing", "normal"))
        from .formula import new_design

        if newdata is None:
            xk, index = self.x, self.index
        else:
            xfull, index = new_design(self.design_info, newdata)
            keep = [j for j, n in enumerate(self.column_names) if n not in self.aliased]
            xk = xfull[:, keep]
        eta = xk @ self.ols.params.to_numpy()
        if scale == "transformed":
            out = eta
        elif kind == "median":
            out = bt.median(eta, self.lmbda, self.family)
        elif method == "smearing":
            e = self.resid.to_numpy()
            if self.weights is not None:
                e = e * np.sqrt(self.weights)
            out = bt.mean_smearing(eta, e, self.lmbda, self.family)
        else:
            out = bt.mean_normal(eta, float(np.sqrt(self.ols.scale)), self.lmbda, self.family)
        return pd.Series(out, index=index, name=self.response)

    # ------------------------------------------------------------------ reports
    def summary(self, alpha: float = 0.05) -> Summary:
        """Lambda table (response and predictor terms) above the OLS coefficient table."""
        lo, hi = self.conf_int(alpha)
        t0, t1 = self.test(0.0), self.test(1.0)
        rows = [self.response] + list(self.term_lambdas)
        k = len(self.term_lambdas)
        nan = [np.nan] * k
        lam = pd.DataFrame(
            {
                "role": ["response"] + ["predictor"] * k,
                "lambda": [self.lmbda] + list(self.term_lambdas.values()),
                "std err": [self.bse] + nan,
                f"[{alpha / 2:g}": [lo] + nan,
                f"{1 - alpha / 2:g}]": [hi] + nan,
                "rounded": [self.rounded] + nan,
                "LR(l=0)": [t0.statistic] + nan,
                "p(l=0)": [t0.pvalue] + nan,
                "LR(l=1)": [t1.statistic] + nan,
                "p(l=1)": [t1.pvalue] + nan,
            },
            index=rows,
        )
        ols = self.ols
        ci = ols.conf_int(alpha)
        coef = pd.DataFrame(
            {"coef": ols.params, "std err": ols.bse, "t": ols.tvalues, "P>|t|": ols.pvalues,
             f"[{alpha / 2:g}": ci.iloc[:, 0], f"{1 - alpha / 2:g}]": ci.iloc[:, 1]}
        )
        notes = [
            f"Response: {_FAMILY[self.family]} power of {self.response} by profile likelihood "
            f"(interval: {100 * (1 - alpha):g}%; tests: likelihood ratio, 1 df).",
            f"OLS at lambda = {format_number(self.lmbda)}: n = {self.nobs}, "
            f"R-squared = {format_number(float(ols.rsquared))}, "
            f"residual std. error = {format_number(float(np.sqrt(ols.scale)))} on "
            f"{int(ols.df_resid)} df" + ("; weighted least squares." if self.weights is not None
                                          else "."),
        ]
        if k:
            notes.append("Predictor powers: marginal maximum likelihood, learned at fitting "
                         "time and reused for new data.")
        if self.aliased:
            notes.append(f"Aliased (dropped, linearly dependent): {', '.join(self.aliased)}.")
        if self.n_dropped:
            notes.append(f"{self.n_dropped} row(s) with missing values left out.")
        if not self.converged:
            notes.append("The solver did not converge; treat lambda with caution.")
        fmts = {"p(l=0)": format_pvalue, "p(l=1)": format_pvalue, "P>|t|": format_pvalue,
                "rounded": lambda v: "" if np.isnan(v) else format_power(v)}
        title = f"Linear model with a {_FAMILY[self.family]}-transformed response: {self.formula}"
        return Summary(title, [("Power transformations", lam), ("Coefficients", coef)], notes,
                       fmts)

    def __repr__(self) -> str:
        return (f"<LmResult {self.formula!r}: {self.family} lmbda {format_number(self.lmbda)}"
                f", n={self.nobs}>")

    # ------------------------------------------------------------------ plots
    def plot_profile(self, *, ax: Any = None, alpha: float = 0.05) -> Any:
        """Profile log-likelihood as ``MASS::boxcox`` draws it (see ``plotting_lm``)."""
        from .plotting import plot_lm_profile

        return plot_lm_profile(self, ax=ax, alpha=alpha)

    def qqplot(self, *, ax: Any = None) -> Any:
        """Normal QQ plot of the residuals on the transformed scale."""
        from .plotting import plot_lm_qq

        return plot_lm_qq(self, ax=ax)

    def plot_residuals(self, *, ax: Any = None) -> Any:
        """Residuals against fitted values on the transformed scale."""
        from .plotting import plot_lm_residuals

        return plot_lm_residuals(self, ax=ax)
