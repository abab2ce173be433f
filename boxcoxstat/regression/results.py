"""The result of :func:`boxcoxstat.lm`: a linear model with a power-transformed response.

Layer 5. Immutable. ``params``, ``bse``, ``pvalues``, ``conf_int()``, ``rsquared``, ``llf``,
``aic``, ``bic`` describe the regression at the chosen power, with statsmodels' names; ``llf``
is the log-likelihood of the response itself (the Jacobian of the transform included), so it
compares across powers and with an untransformed model. The power's own inference (estimate,
standard error, profile interval, LR tests, profile, rounded power) is ``m.power``, a
:class:`~boxcoxstat.PowerTransformResult` on the response's profile likelihood; ``m.lmbda`` is
a shortcut. Predictions use ``backtransform``; rendering is ``summary``'s, figures
``plotting``'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import stats

from .._validation import check_option
from ..base import jsonio
from ..base.jsonio import saved
from ..base.results import ResultBase, check_alpha, interval_frame
from ..base.summary import Summary, format_number, format_power, format_pvalue
from ..univariate.results import PowerTransformResult
from . import backtransform as bt

__all__ = ["LmResult"]

_FAMILY = {"boxcox": "Box-Cox", "yeojohnson": "Yeo-Johnson", "bcnpower": "bcnPower"}
_COEF = ("coef", "std err", "t", "P>|t|")
_STATS = ("nobs", "df_resid", "rank", "rsquared", "rsquared_adj", "scale", "weighted")


@dataclass(frozen=True, repr=False)
class LmResult(ResultBase):
    """A linear model with a power-transformed response, fitted by :func:`boxcoxstat.lm`.

    Attributes
    ----------
    formula, family, response : str
    power : PowerTransformResult
        The response power's own inference: ``lmbda``, ``bse``, ``conf_int()``, ``test()``,
        ``profile()``, ``rounded``, ``summary()``.
    n_dropped : int
        Rows left out because a used variable (or the weight) was missing.
    term_lambdas : dict
        The powers of the ``bc()`` / ``yj()`` predictor terms, by term.
    aliased : tuple of str
        Design columns dropped because they are linear combinations of earlier ones.

    Examples
    --------
    >>> import boxcoxstat as bcs
    >>> m = bcs.lm("Volume ~ np.log(Height) + np.log(Girth)", bcs.datasets.load("trees"))
    >>> round(m.lmbda, 4), m.power.rounded
    (-0.0673, 0.0)
    >>> m.params.round(4)
    Intercept        -5.0914
    np.log(Height)    0.9174
    np.log(Girth)     1.5842
    Name: coef, dtype: float64
    """

    formula: str = saved(jsonio.Str())
    family: str = saved(jsonio.Str(choices=("boxcox", "yeojohnson", "bcnpower")))
    response: str = saved(jsonio.Str())
    power: PowerTransformResult = saved(jsonio.Nested(cls=PowerTransformResult))
    n_dropped: int = saved(jsonio.Int(minimum=0))
    term_lambdas: dict[str, float] = saved(jsonio.Mapping_())
    column_names: tuple[str, ...] = saved(jsonio.Strs())
    aliased: tuple[str, ...] = saved(jsonio.Strs())
    # the regression at the chosen power: computed from the OLS fit, or stored (JSON)
    coefficients: pd.DataFrame | None = saved(jsonio.Frame(optional=True), default=None)
    fit_stats: dict[str, Any] | None = saved(jsonio.Mapping_(optional=True), default=None)
    index: pd.Index | None = None
    y: NDArray[np.float64] | None = None
    x: NDArray[np.float64] | None = None  # kept design columns only
    weights: NDArray[np.float64] | None = None
    design_info: Any = None

    # ------------------------------------------------------------------ stored or computed
    def _need_data(self, what: str) -> None:
        if self.y is None:
            self._not_available(what, "the result holds no data (it was loaded from JSON); "
                                "refit with bcs.lm to predict, refit or plot")

    @cached_property
    def _table(self) -> pd.DataFrame:
        if self.coefficients is not None:
            return self.coefficients
        ols = self.ols
        return pd.DataFrame({"coef": ols.params, "std err": ols.bse, "t": ols.tvalues,
                             "P>|t|": ols.pvalues})

    @cached_property
    def _stats(self) -> dict[str, Any]:
        if self.fit_stats is not None:
            return self.fit_stats
        ols = self.ols
        return {"nobs": int(ols.nobs), "df_resid": int(round(ols.df_resid)),
                "rank": int(self.x.shape[1]) if self.x is not None else 0,
                "rsquared": float(ols.rsquared), "rsquared_adj": float(ols.rsquared_adj),
                "scale": float(ols.scale), "weighted": self.weights is not None}

    def _json_value(self, name: str) -> Any:
        if name == "coefficients":
            return self._table
        if name == "fit_stats":
            return self._stats
        return getattr(self, name)

    @staticmethod
    def _check_loaded(values: dict[str, Any]) -> None:
        table, st = values.get("coefficients"), values.get("fit_stats")
        if table is not None and list(table.columns) != list(_COEF):
            raise jsonio._Bad(f"field 'coefficients' must have columns {list(_COEF)}")
        if st is not None and sorted(st) != sorted(_STATS):
            raise jsonio._Bad(f"field 'fit_stats' must have the keys {sorted(_STATS)}")

    # ------------------------------------------------------------------ the power
    @property
    def lmbda(self) -> float:
        """The response power (a shortcut for ``power.lmbda``)."""
        return float(self.power.lmbda_used[0])

    @property
    def converged(self) -> bool:
        return bool(self.power.converged_values[0])

    # ------------------------------------------------------------------ the regression
    @property
    def params(self) -> pd.Series:
        """Coefficients of the regression of the transformed response."""
        return self._table["coef"].rename("coef")

    @property
    def bse(self) -> pd.Series:
        """Standard errors of the coefficients (the power taken as known, as statsmodels)."""
        return self._table["std err"].rename("bse")

    @property
    def tvalues(self) -> pd.Series:
        return self._table["t"].rename("t")

    @property
    def pvalues(self) -> pd.Series:
        """Two-sided p-values of the t statistics."""
        return self._table["P>|t|"].rename("pvalues")

    @property
    def nobs(self) -> int:
        return int(self._stats["nobs"])

    @property
    def df_resid(self) -> int:
        return int(self._stats["df_resid"])

    @property
    def rsquared(self) -> float:
        return float(self._stats["rsquared"])

    @property
    def rsquared_adj(self) -> float:
        return float(self._stats["rsquared_adj"])

    @property
    def scale(self) -> float:
        """Residual variance of the transformed response (statsmodels' ``scale``)."""
        return float(self._stats["scale"])

    @property
    def llf(self) -> float:
        """Log-likelihood of the response at the chosen power, the transform's Jacobian
        included: ``logLik`` of the transformed model plus ``(lambda - 1) sum log y``
        (Box-Cox), so it compares across powers and with an untransformed model."""
        return float(self.power.llf_values[0])

    @property
    def df_model_llf(self) -> int:
        """Parameters counted by ``aic`` and ``bic``: the coefficients, the error variance
        and the estimated power (as R's ``logLik`` counts the variance)."""
        status = self.power.gamma_status or ()
        return int(self._stats["rank"]) + 2 + sum(st != "fixed" for st in status)

    @property
    def aic(self) -> float:
        return -2.0 * self.llf + 2.0 * self.df_model_llf

    @property
    def bic(self) -> float:
        return -2.0 * self.llf + np.log(self.nobs) * self.df_model_llf

    def conf_int(self, alpha: float = 0.05) -> pd.DataFrame:
        """Confidence intervals of the coefficients, ``coef -+ t_{df}(1 - alpha/2) bse``
        (the power taken as known): a DataFrame ``lower``, ``upper``."""
        alpha = check_alpha(alpha)
        q = stats.t.isf(alpha / 2.0, self.df_resid)
        return interval_frame(self.params - q * self.bse, self.params + q * self.bse,
                              self.params.index)

    def profile(self, lmbda: Any = None) -> pd.DataFrame:
        """Profile log-likelihood of the power on MASS's grid ``seq(-2, 2, 1/10)``, widened
        to cover the 95% interval with half its width to spare (at most 201 points), or on
        the grid ``lmbda``."""
        if lmbda is None:
            lo, hi = self.power.conf_int().iloc[0]
            half = 0.5 * (hi - lo)
            a, b = min(-2.0, lo - half), max(2.0, hi + half)
            step = max(0.1, (b - a) / 200)
            grid = np.round(np.arange(np.floor(a / step), np.ceil(b / step) + 1) * step, 10)
            lmbda = np.union1d(grid, [self.lmbda])
        return self.power.profile(lmbda=lmbda)

    # ------------------------------------------------------------------ the linear model
    def at(self, lmbda: float) -> Any:
        """The statsmodels OLS (WLS with weights) of the response transformed at ``lmbda``."""
        import statsmodels.api as sm

        self._need_data("at")
        assert self.y is not None and self.x is not None
        z = pd.Series(self.power._transform_values(self.y, 0, float(lmbda)), index=self.index,
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
        mean: Literal["smearing", "normal"] = "smearing",
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
        mean : {"smearing", "normal"}, default="smearing"
            How the mean is estimated: Duan's (1983) smearing over the residuals, or the
            normal-theory ``E[g^{-1}(eta + sigma Z)]`` by quadrature
            (``backtransform.mean_normal``).
        """
        check_option("scale", scale, ("transformed", "response"))
        check_option("kind", kind, ("median", "mean"))
        check_option("mean", mean, ("smearing", "normal"))
        self._need_data("predict")
        from .formula import new_design

        if newdata is None:
            xk, index = self.x, self.index
        else:
            xfull, index = new_design(self.design_info, newdata)
            keep = [j for j, n in enumerate(self.column_names) if n not in self.aliased]
            xk = xfull[:, keep]
        assert xk is not None
        eta = xk @ self.ols.params.to_numpy()
        if scale == "transformed":
            out = eta
        elif kind == "median":
            fam = self.power._power_family(0)
            out = self.power._unprepare(bt.median(eta, self.lmbda, fam), 0)
        elif self.power.gamma_values is not None:
            self._not_available("predict(kind='mean')", "the mean back-transform of a shifted "
                                "response (bcnPower or gamma=) is not implemented; use "
                                "kind='median'")
        elif mean == "smearing":
            e = self.resid.to_numpy()
            if self.weights is not None:
                e = e * np.sqrt(self.weights)
            out = bt.mean_smearing(eta, e, self.lmbda, self.family)
        else:
            out = bt.mean_normal(eta, float(np.sqrt(self.ols.scale)), self.lmbda, self.family)
        return pd.Series(out, index=index, name=self.response)

    # ------------------------------------------------------------------ reports
    def summary(self, alpha: float = 0.05) -> Summary:
        """Lambda table (response and predictor terms) above the coefficient table."""
        p = self.power
        lo, hi = p.conf_int(alpha).iloc[0]
        t0, t1 = p.test(0.0), p.test(1.0)
        rows = [self.response] + list(self.term_lambdas)
        k = len(self.term_lambdas)
        nan = [np.nan] * k
        lam = pd.DataFrame(
            {
                "role": ["response"] + ["predictor"] * k,
                "lambda": [self.lmbda] + list(self.term_lambdas.values()),
                "std err": [float(p.bse.iloc[0])] + nan,
                f"[{alpha / 2:g}": [lo] + nan,
                f"{1 - alpha / 2:g}]": [hi] + nan,
                "rounded": [p.rounded] + nan,
                "LR(l=0)": [t0.statistic] + nan,
                "p(l=0)": [t0.pvalue] + nan,
                "LR(l=1)": [t1.statistic] + nan,
                "p(l=1)": [t1.pvalue] + nan,
            },
            index=rows,
        )
        ci = self.conf_int(alpha)
        coef = self._table.assign(**{f"[{alpha / 2:g}": ci["lower"],
                                     f"{1 - alpha / 2:g}]": ci["upper"]})
        weighted = bool(self._stats["weighted"])
        notes = [
            f"Response: {_FAMILY[self.family]} power of {self.response} by profile likelihood "
            f"(interval: {100 * (1 - alpha):g}%; tests: likelihood ratio, 1 df).",
            f"OLS at lambda = {format_number(self.lmbda)}: n = {self.nobs}, "
            f"R-squared = {format_number(self.rsquared)}, "
            f"residual std. error = {format_number(float(np.sqrt(self.scale)))} on "
            f"{self.df_resid} df" + ("; weighted least squares." if weighted else "."),
            f"Log-likelihood of {self.response} (Jacobian included) = "
            f"{format_number(self.llf)}, AIC = {format_number(self.aic)} "
            f"({self.df_model_llf} parameters, lambda and the error variance included).",
        ]
        if p.gamma_values is not None:
            g, gse = float(p.gamma_values[0]), p.bse.iloc[-1] if len(p.bse) > 1 else np.nan
            status = (p.gamma_status or ("fixed",))[0]
            what = ("bcnPower shift (Hawkins & Weisberg 2017)" if self.family == "bcnpower"
                    else "Box-Cox of the response plus a fixed shift")
            notes.append(f"{what}: gamma = {format_number(g)}"
                         + (f" (std err {format_number(float(gse))})" if np.isfinite(gse)
                            else "") + f", {status}; lambda's inference has gamma maximised "
                         "out." if status != "fixed" else f"{what}: gamma = {format_number(g)}"
                         ", fixed.")
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
        """Profile log-likelihood as ``MASS::boxcox`` draws it (see ``plotting``)."""
        from .plotting import plot_lm_profile

        return plot_lm_profile(self, ax=ax, alpha=alpha)

    def qqplot(self, *, ax: Any = None) -> Any:
        """Normal QQ plot of the residuals on the transformed scale."""
        from .plotting import plot_lm_qq

        self._need_data("qqplot")
        return plot_lm_qq(self, ax=ax)

    def plot_residuals(self, *, ax: Any = None) -> Any:
        """Residuals against fitted values on the transformed scale."""
        from .plotting import plot_lm_residuals

        self._need_data("plot_residuals")
        return plot_lm_residuals(self, ax=ax)
