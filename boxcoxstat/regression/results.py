"""The result of :func:`boxcoxstat.lm`: a linear model with a power-transformed response.

Immutable. ``params``, ``bse``, ``pvalues``, ``conf_int()``, ``rsquared``, ``llf``,
``aic``, ``bic`` describe the regression at the chosen power, with statsmodels' names; ``llf``
is the log-likelihood of the response itself (the transform's Jacobian included), so it
compares across powers and with an untransformed model. The power's own inference (estimate,
standard error, profile interval, LR tests, profile, rounded power) is ``m.power``, a
:class:`~boxcoxstat.PowerTransformResult` on the response's profile likelihood; ``m.lmbda`` is
a shortcut. A power given by the user (``lm(..., lmbda=0)``, ``m.at(0)``) is a setting of the
same result: ``m.power.fixed`` is True and the power has no inference.

Predictions are ``prediction``'s, the statsmodels refits ``refit``'s, the report's tables
``report``'s, figures ``plotting``'s. A saved result (``to_json``, or pickle) keeps what
``predict`` needs: the formula's design with every learned state (``formula_io``), the
coefficients and their covariance, the residual scale, the residuals for Duan's smearing and
the posterior grid of lambda for intervals that carry its uncertainty.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, ClassVar, Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import stats

from .._validation.columns import BoxCoxError, as_numbers, check_option
from .._validation.containers import as_pandas_frame, like_native, native_frame
from ..base import jsonio
from ..base.jsonio import saved
from ..base.results import ResultBase, check_alpha, interval_frame
from ..base.summary import Summary, format_number
from ..core.design import basis_products
from ..univariate.results import PowerTransformResult
from . import prediction as pr
from .formula_grammar import check_formula, check_term
from .formula_io import DesignCodec

__all__ = ["LmResult"]

_COEF = ("coef", "std err", "t", "P>|t|")
_STATS = ("nobs", "df_resid", "rank", "rsquared", "rsquared_adj", "scale", "weighted")
_MIXTURE_HEAD = ("lmbda", "weight", "scale")
# cached values that are rebuilt after unpickling instead of being pickled (statsmodels
# objects hold patsy state that patsy refuses to pickle)
_REBUILT = ("ols", "_regression", "_table", "_stats", "_fit", "_mixture", "_covariance")


@dataclass(frozen=True, repr=False)
class LmResult(ResultBase):
    """A linear model with a power-transformed response, fitted by :func:`boxcoxstat.lm`.

    Attributes
    ----------
    formula, family, response : str
    power : PowerTransformResult
        The response power's own inference: ``lmbda``, ``bse``, ``conf_int()``, ``test()``,
        ``profile()``, ``rounded``, ``summary()`` (not available when the power was fixed).
    n_dropped : int
        Rows left out because a used variable (or the weight) was missing.
    term_lambdas : dict
        The powers of the ``bc()`` / ``yj()`` predictor terms, by term.
    aliased : tuple of str
        Design columns dropped because they are linear combinations of earlier ones.
    missing : {"drop", "raise"}
        The missing-value policy the model was fitted with; ``predict`` follows it.

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
    >>> log = m.at("rounded")                      # the log model, with the full surface
    >>> log.power.fixed, round(float(log.params["np.log(Girth)"]), 4)
    (True, 1.9826)
    """

    _vocabulary_why: ClassVar[dict[str, str]] = {
        "test": ("the tests of the response's power are m.power.test(...); a "
                 "coefficient's Wald test is in pvalues"),
    }

    formula: str = saved(jsonio.Str())
    family: str = saved(jsonio.Str(choices=("boxcox", "yeojohnson", "bcnpower")))
    response: str = saved(jsonio.Str())
    power: PowerTransformResult = saved(jsonio.Nested(cls=PowerTransformResult))
    n_dropped: int = saved(jsonio.Int(minimum=0))
    term_lambdas: dict[str, float] = saved(jsonio.Mapping_())
    column_names: tuple[str, ...] = saved(jsonio.Strs())
    aliased: tuple[str, ...] = saved(jsonio.Strs())
    missing: str = saved(jsonio.Str(choices=("drop", "raise")), default="drop")
    # what a loaded result needs to report and predict: computed from the data, or stored
    design_info: Any = saved(DesignCodec(optional=True), default=None, compare=False)
    coefficients: pd.DataFrame | None = saved(jsonio.Frame(optional=True), default=None)
    fit_stats: dict[str, Any] | None = saved(jsonio.Mapping_(optional=True), default=None)
    covariance: pd.DataFrame | None = saved(jsonio.Frame(optional=True), default=None)
    smearing_residuals: NDArray[np.float64] | None = saved(jsonio.Floats(optional=True),
                                                           default=None)
    mixture: pd.DataFrame | None = saved(jsonio.Frame(optional=True), default=None)
    # the data (not saved)
    index: pd.Index | None = None
    y: NDArray[np.float64] | None = None
    x: NDArray[np.float64] | None = None  # the full design (aliased columns included)
    weights: NDArray[np.float64] | None = None

    # ------------------------------------------------------------------ stored or computed
    def _need_data(self, what: str) -> None:
        if self.y is None:
            self._not_available(what, "the result holds no data (it was loaded from JSON); "
                                "refit with bcs.lm to refit, plot or compute new intervals")

    @property
    def _kept(self) -> list[int]:
        return [j for j, n in enumerate(self.column_names) if n not in self.aliased]

    @cached_property
    def _regression(self) -> Any:
        """statsmodels' fit on the kept columns (the formula refit itself when none is
        aliased): the coefficients R's ``lm`` reports. Without weights the fit comes from
        the QR the power was solved with (:class:`_QRFit`), not a second factorisation."""
        own = self._qr_fit()
        if own is not None:
            return own
        if not self.aliased:
            return self.ols
        import statsmodels.api as sm

        self._need_data("the regression")
        assert self.x is not None and self.y is not None
        x = pd.DataFrame(self.x[:, self._kept], index=self.index,
                         columns=[self.column_names[j] for j in self._kept])
        # the power's own transform: a shift (bcnPower, gamma=) included
        z = pd.Series(self.power._transform_values(self.y, 0), index=self.index)
        if self.weights is None:
            return sm.OLS(z, x).fit()
        return sm.WLS(z, x, weights=self.weights).fit()

    def _qr_fit(self) -> _QRFit | None:
        """The unweighted fit from the response profile's design (``None`` where there is
        none: weights, an intercept-only model, bcnPower, a result without data)."""
        design = getattr(self.power._source.profile, "design", None)
        if (self.weights is not None or design is None or design.sw is not None
                or self.y is None or self.x is None
                or list(design.kept) != self._kept):
            return None
        z = self.power._transform_values(self.y, 0)
        names = [self.column_names[j] for j in self._kept]
        x = self.x if len(self._kept) == self.x.shape[1] else self.x[:, self._kept]
        return _QRFit.of(design.q, x, z, names, self.index, design.constant_in_span)

    @cached_property
    def _table(self) -> pd.DataFrame:
        if self.coefficients is not None:
            return self.coefficients
        reg = self._regression
        return pd.DataFrame({"coef": reg.params, "std err": reg.bse, "t": reg.tvalues,
                             "P>|t|": reg.pvalues})

    @cached_property
    def _stats(self) -> dict[str, Any]:
        if self.fit_stats is not None:
            return self.fit_stats
        reg = self._regression
        return {"nobs": int(reg.nobs), "df_resid": int(round(reg.df_resid)),
                "rank": len(self._kept), "rsquared": float(reg.rsquared),
                "rsquared_adj": float(reg.rsquared_adj), "scale": float(reg.scale),
                "weighted": self.weights is not None}

    @cached_property
    def _covariance(self) -> pd.DataFrame:
        if self.covariance is not None:
            return self.covariance
        return pd.DataFrame(self._regression.cov_params())

    @cached_property
    def _residuals(self) -> NDArray[np.float64]:
        """Residuals on the transformed scale times sqrt(weight) (for Duan's smearing)."""
        if self.smearing_residuals is not None:
            return self.smearing_residuals
        e = self._regression.resid.to_numpy()
        return e if self.weights is None else e * np.sqrt(self.weights)

    @cached_property
    def _mixture(self) -> pr.LambdaMixture:
        """The posterior grid of lambda (``prediction.lambda_mixture``)."""
        what = "predict(include_lambda_uncertainty=True)"
        if self.power.fixed:
            self._not_available(what, f"the power was fixed at {self.lmbda:g} (given, not "
                                "estimated), so it has no uncertainty to carry")
        if self.mixture is not None:
            return pr.LambdaMixture.from_frame(self.mixture)
        self._need_data(what)
        p, profile = self.power, self.power._source.profile
        assert self.y is not None and self.x is not None and profile is not None
        return pr.lambda_mixture(profile, self.lmbda, float(p._nll_mle[0]),
                                 float(p.bse.iloc[0]), self.y, self.x[:, self._kept],
                                 self.weights, self.family)

    @cached_property
    def _fit(self) -> pr.LinearFit:
        return pr.LinearFit(self.params.to_numpy(), self._covariance.to_numpy(), self.scale,
                            self.df_resid, self.lmbda, self.power._power_family(0))

    def _json_value(self, name: str) -> Any:
        computed = {"coefficients": lambda: self._table, "fit_stats": lambda: self._stats,
                    "covariance": lambda: self._covariance,
                    "smearing_residuals": lambda: self._residuals,
                    "mixture": self._mixture_frame}
        if name in computed and (self.y is not None or getattr(self, name) is not None):
            return computed[name]()
        return getattr(self, name)

    def _mixture_frame(self) -> pd.DataFrame | None:
        """The posterior grid of lambda to save, or ``None`` where there is none (a fixed
        power; a profile that does not bound lambda; powers whose transform overflows)."""
        if self.power.fixed:
            return None
        try:
            return self._mixture.frame(list(self.params.index))
        except BoxCoxError:
            return None

    @staticmethod
    def _check_loaded(values: dict[str, Any]) -> None:
        # the formula is text to show, but a document's text is read by the grammar only
        check_formula(values.get("formula"), "formula")
        check_term(values.get("response"), "response")
        lams = values.get("term_lambdas") or {}
        if not all(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)
                                 and -1e300 < v < 1e300) for v in lams.values()):
            raise jsonio._Bad("field 'term_lambdas' must map each bc() / yj() term to its "
                              "power, a finite number")
        table, st = values.get("coefficients"), values.get("fit_stats")
        if table is not None and list(table.columns) != list(_COEF):
            raise jsonio._Bad(f"field 'coefficients' must have columns {list(_COEF)}")
        if st is not None and sorted(st) != sorted(_STATS):
            raise jsonio._Bad(f"field 'fit_stats' must have the keys {sorted(_STATS)}")
        if st is not None:
            counts = [st[k] for k in ("nobs", "df_resid", "rank")]
            if not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**53
                       for v in counts) or not isinstance(st["weighted"], bool) or not all(
                    isinstance(st[k], (int, float)) and not isinstance(st[k], bool)
                    and -1e300 < st[k] < 1e300
                    for k in ("rsquared", "rsquared_adj", "scale")):
                raise jsonio._Bad("field 'fit_stats' must hold whole counts (nobs, df_resid, "
                                  "rank), finite numbers and a true/false 'weighted'")
        cov, mix = values.get("covariance"), values.get("mixture")
        k = None if table is None else len(table)
        if cov is not None and (cov.shape != (k, k) or list(cov.columns) != list(cov.index)):
            raise jsonio._Bad("field 'covariance' must be square, one row and column per "
                              "coefficient")
        if mix is not None and (list(mix.columns[:3]) != list(_MIXTURE_HEAD)
                                or mix.shape[1] != 3 + (k or 0)):
            raise jsonio._Bad(f"field 'mixture' must have columns {list(_MIXTURE_HEAD)} and "
                              "one per coefficient")

    def __getstate__(self) -> dict[str, Any]:
        """Pickle: the design as its JSON document (patsy's objects do not pickle) and no
        statsmodels objects (they are rebuilt from the data on use)."""
        d = {k: v for k, v in self.__dict__.items() if k not in _REBUILT}
        if d.get("design_info") is not None:
            d["design_info"] = DesignCodec().encode(d["design_info"])
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        d = dict(d)
        if isinstance(d.get("design_info"), dict):
            d["design_info"] = DesignCodec().decode(d["design_info"])
        self.__dict__.update(d)

    # ------------------------------------------------------------------ the power
    @property
    def lmbda(self) -> float:
        """The response power (a shortcut for ``power.lmbda``)."""
        return float(self.power._lmbda_used[0])

    @property
    def converged(self) -> bool:
        return bool(self.power._converged_values[0])

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

    def cov_params(self) -> pd.DataFrame:
        """Covariance matrix of the coefficients (the power taken as known)."""
        return self._covariance.copy()

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
    def ssr(self) -> float:
        """Residual sum of squares of the transformed response (weighted with weights), as
        statsmodels' ``ssr``: ``scale * df_resid``."""
        return self.scale * self.df_resid

    @property
    def df_model(self) -> int:
        """statsmodels' ``df_model``: the rank of the design less one if it has a constant
        (statsmodels finds the constant, an implicit one too, in the data; so a result
        loaded from JSON does not have it)."""
        self._need_data("df_model")
        return int(round(self._regression.df_model))

    @property
    def fvalue(self) -> float:
        """F statistic of the regression of the transformed response against the model with
        the constant only (no regressor), statsmodels' ``fvalue`` (``f_pvalue`` its
        p-value); the power taken as known."""
        self._need_data("fvalue")
        return float(self._regression.fvalue)

    @property
    def f_pvalue(self) -> float:
        """Upper-tail F(``df_model``, ``df_resid``) probability of :attr:`fvalue`."""
        self._need_data("f_pvalue")
        return float(self._regression.f_pvalue)

    @property
    def model(self) -> Any:
        """statsmodels' model behind :attr:`ols` (read it, do not change it): ``endog`` is
        the **transformed** response, ``exog`` the formula's full design, with ``formula``,
        ``exog_names``, ``endog_names``, ``nobs``, ``weights`` (WLS)."""
        self._need_data("model")
        return self.ols.model

    @property
    def llf(self) -> float:
        """Log-likelihood of the response at the power, the transform's Jacobian included:
        ``logLik`` of the transformed model plus ``(lambda - 1) sum log y`` (Box-Cox), so it
        compares across powers and with an untransformed model."""
        return float(self.power._llf_values[0])

    def _compare_nesting(self, j: int = 0) -> dict[str, Any] | None:
        """The model as :func:`boxcoxstat.compare` tests nesting (``None``: no data)."""
        if self.y is None or self.x is None:
            return None
        status = self.power._gamma_status or ()
        shift = None
        if self.power._gamma_values is not None and status and status[0] == "fixed":
            shift = float(self.power._gamma_values[0])
        return {"response": self.y, "design": self.x, "family": self.family,
                "power": float(self.power._lmbda_used[0]) if self.power.fixed else None,
                "weights": self.weights, "extra": None if shift is None else ("shift", shift)}

    @property
    def df_model_llf(self) -> int:
        """Parameters counted by ``aic`` and ``bic``: the coefficients, the error variance
        and the power when it was estimated, and an estimated shift (as R's ``logLik``
        counts the variance)."""
        status = self.power._gamma_status or ()
        return (int(self._stats["rank"]) + (1 if self.power.fixed else 2)
                + sum(st != "fixed" for st in status))

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
        the grid ``lmbda`` (as ``MASS::boxcox(lambda=)``)."""
        if lmbda is None and not self.power.fixed:
            lo, hi = self.power.conf_int().iloc[0]
            half = 0.5 * (hi - lo)
            a, b = min(-2.0, lo - half), max(2.0, hi + half)
            step = max(0.1, (b - a) / 200)
            grid = np.round(np.arange(np.floor(a / step), np.ceil(b / step) + 1) * step, 10)
            lmbda = np.union1d(grid, [self.lmbda])
        return self.power.profile(lmbda=lmbda)

    # ------------------------------------------------------------------ refits
    def at(self, lmbda: float | Literal["rounded", "safe"]) -> LmResult:
        """The model refitted with the response power fixed at ``lmbda``.

        Parameters
        ----------
        lmbda : float, "rounded" or "safe"
            The power; ``"rounded"`` is ``power.rounded`` (the convenient power inside the
            95% profile interval, e.g. 0 for the log), ``"safe"`` is ``power.safe`` (the most
            likely power whose transformed response keeps its resolution in float64). A
            power that loses it gives a :class:`~boxcoxstat.ResolutionWarning`.

        Returns
        -------
        LmResult
            The same formula and data at that power, with the full surface (``params``,
            ``summary()``, ``predict`` with intervals, ``ols``, JSON); its ``power.fixed``
            is True and ``llf`` is the likelihood at that power.
        """
        self._need_data("at")
        if not isinstance(lmbda, str):
            lmbda = _number("lmbda", lmbda)
        assert self.y is not None
        g = self.power._gamma_values
        scaled = (self.y if g is None or np.isnan(g[0]) else self.y + g[0])[:, None]
        power = self.power._at(lmbda, stacklevel=3, values=scaled, what="response")
        return replace(self, power=power, coefficients=None, fit_stats=None,
                       covariance=None, smearing_residuals=None, mixture=None)

    @cached_property
    def ols(self) -> Any:
        """statsmodels' OLS (WLS with weights) of the transformed response, built from the
        formula (``refit.formula_ols``): ``predict`` and ``get_prediction`` take new data by
        column name and equal ``smf.ols`` on the transformed response.

        Everything it reports is on the **transformed** scale: ``m.ols.get_prediction(new)``
        predicts the transformed response. For predictions of the response itself (the
        back-transformed intervals) use :meth:`get_prediction` (statsmodels' surface,
        ``summary_frame``) or :meth:`predict`; ``m.get_prediction(new,
        which="transformed")`` gives ``m.ols``'s numbers."""
        from .refit import formula_ols

        self._need_data("ols")
        assert self.y is not None and self.x is not None
        z = self.power._transform_values(self.y, 0)  # a shift (bcnPower, gamma=) included
        name = f"{self.family}({self.response}, lmbda={format_number(self.lmbda)})"
        return formula_ols(z, self.x, index=self.index, response=name,
                           column_names=self.column_names, design_info=self.design_info,
                           formula=f"{name} ~ {self.formula.split('~', 1)[1].strip()}",
                           weights=self.weights)

    @property
    def resid(self) -> pd.Series:
        """Residuals on the transformed scale (unweighted, as ``residuals(lm)``)."""
        return self._regression.resid

    @property
    def fittedvalues(self) -> pd.Series:
        """Fitted values on the transformed scale."""
        return self._regression.fittedvalues

    # ------------------------------------------------------------------ prediction
    def predict(
        self,
        newdata: Any = None,
        *,
        interval: Literal["confidence", "prediction"] | None = None,
        alpha: float = 0.05,
        kind: Literal["median", "mean"] = "median",
        mean_estimator: Literal["smearing", "normal"] = "smearing",
        which: Literal["response", "transformed"] = "response",
        include_lambda_uncertainty: bool = False,
    ) -> Any:
        """Predictions for new data (the fitted rows by default), with intervals.

        Parameters
        ----------
        newdata : DataFrame, optional
            pandas, or another library's DataFrame (polars, pyarrow...), as ``bcs.lm`` takes.
            Columns are found by name (their order does not matter); predictor transforms
            reuse what was learned at fitting time. A row with a missing predictor gives NaN
            in place (refused if the model was fitted with ``missing="raise"``).
        interval : {"confidence", "prediction"}, optional
            Add ``lower`` and ``upper``: a confidence interval for the conditional median, or
            a prediction interval for a new observation (of a weighted model: one of weight
            1, as R's ``predict.lm`` assumes by default).
        alpha : float, default=0.05
            Significance level of the interval.
        kind : {"median", "mean"}, default="median"
            The ``fit`` column on the response scale: the conditional median
            ``g^{-1}(eta)``, or the mean (see ``mean_estimator``). A prediction interval is the
            same for both; a confidence interval is for the median.
        mean_estimator : {"smearing", "normal"}, default="smearing"
            How the mean (``kind="mean"``) is estimated: Duan's (1983) smearing over the
            residuals, or the normal-theory ``E[g^{-1}(eta + sigma Z)]`` by quadrature.
        which : {"response", "transformed"}, default="response"
            Predict the response, or the transformed response (the linear predictor and its t
            intervals, as ``ols.get_prediction``).
        include_lambda_uncertainty : bool, default=False
            Intervals that also carry the estimated power's uncertainty: quantiles of Box &
            Cox's (1964) predictive distribution, a mixture over lambda's posterior (see
            :mod:`boxcoxstat.regression.prediction`). Not available for a fixed power or on
            the transformed scale.

        Returns
        -------
        DataFrame
            Indexed as ``newdata``: ``fit``, and ``lower``, ``upper`` with an interval. Of
            ``newdata``'s library: a polars DataFrame for polars new data (rows in its
            order), pandas otherwise.

        Warns
        -----
        UserWarning
            Naming the rows that get NaN because the linear predictor has no back-transform
            (or a ``bc()`` term meets a value <= 0), or whose interval is unbounded.

        Examples
        --------
        >>> import pandas as pd, boxcoxstat as bcs
        >>> trees = bcs.datasets.load("trees")
        >>> m = bcs.lm("Volume ~ np.log(Girth) + np.log(Height)", trees, lmbda=0)
        >>> new = pd.DataFrame({"Height": [70, 80], "Girth": [10, 15]})
        >>> m.predict(new, interval="prediction").round(2)
             fit  lower  upper
        0  14.58  12.26  17.34
        1  37.82  31.88  44.86
        """
        check_option("interval", interval, (None, "confidence", "prediction"))
        check_option("kind", kind, ("median", "mean"))
        check_option("mean_estimator", mean_estimator, ("smearing", "normal"))
        check_option("which", which, ("response", "transformed"))
        check_option("include_lambda_uncertainty", include_lambda_uncertainty, (False, True))
        alpha = check_alpha(alpha)
        pr.check_kind(kind, interval)
        if include_lambda_uncertainty and which == "transformed":
            raise BoxCoxError("include_lambda_uncertainty=True applies on the response scale "
                              "(the transformed scale changes with lambda)")
        shifted = self.power._gamma_values is not None
        if shifted and (kind == "mean" or include_lambda_uncertainty):
            self._not_available(
                "predict(kind='mean' or include_lambda_uncertainty=True)",
                "for a shifted response (bcnPower or gamma=) only the median and its fixed-power "
                "intervals are implemented (the mean and the mixture over lambda need the "
                "shift inside the integral); use kind='median'")
        native = newdata is not None and native_frame(newdata) is not None
        x0, index = self._new_rows(as_pandas_frame(newdata) if native else newdata)
        mixture = self._mixture if include_lambda_uncertainty and interval else None
        out = pr.predict_frame(x0, index, self._fit, interval=interval, alpha=alpha,
                               kind=kind, mean_estimator=mean_estimator, which=which,
                               residuals=self._residuals if kind == "mean" else None,
                               mixture=mixture)
        if shifted and which == "response":  # the back-transform gave the positive base
            for col in out.columns:
                out[col] = self._response_map.unshift(out[col].to_numpy())
        if native:  # polars in, polars out
            return like_native(out.to_numpy(dtype=np.float64), list(out.columns), newdata)
        return out

    @property
    def _response_map(self) -> pr.ResponseMap:
        """The map from the transformed scale back to the response (the shift included)."""
        p = self.power
        return pr.ResponseMap(self.lmbda, p._power_family(0), p._shift(0),
                              p._families[0] == "bcnpower")

    def get_prediction(
        self,
        exog: Any = None,
        *,
        which: Literal["response", "transformed"] = "response",
        weights: Any = None,
    ) -> pr.LmPrediction:
        """Predictions with statsmodels' prediction surface (``summary_frame(alpha)``).

        The fixed-power intervals of :meth:`predict` as statsmodels users know them:
        ``m.get_prediction(new).summary_frame(alpha=0.05)`` is a DataFrame ``mean``,
        ``mean_se``, ``mean_ci_lower``, ``mean_ci_upper``, ``obs_ci_lower``,
        ``obs_ci_upper``.

        Parameters
        ----------
        exog : DataFrame, optional
            New data, as ``predict``'s ``newdata`` (pandas or polars; columns found by name,
            predictor transforms reused; a row with a missing predictor is NaN in place).
            Default: the fitted rows.
        which : {"response", "transformed"}, default="response"
            ``"transformed"``: the linear model of the transformed response, the numbers of
            statsmodels' ``OLS(...).get_prediction(...)`` (and of ``m.ols.get_prediction``).
            ``"response"``: those intervals mapped back by the inverse transform; the column
            ``mean`` is then the conditional **median** (``predict``'s ``kind="median"``;
            the mean is ``predict(kind="mean")``) and ``mean_se`` its delta-method standard
            error (see :class:`~boxcoxstat.regression.prediction.LmPrediction`).
        weights : float or array-like, optional
            Weights of the predicted observations in the ``obs_ci`` intervals (the residual
            variance is ``scale / weights``), as statsmodels' ``weights``. Default, as
            statsmodels: the model's weights for the fitted rows of a weighted model, else 1.

        Returns
        -------
        LmPrediction
            ``predicted_mean``, ``se_mean``, ``conf_int(obs=, alpha=)``,
            ``summary_frame(alpha=)``, indexed as ``exog``.

        Raises
        ------
        BoxCoxError
            For an unknown ``which``, weights that are not positive numbers (one, or one per
            row), or a result loaded from JSON asked for its fitted rows.

        Examples
        --------
        >>> import pandas as pd, boxcoxstat as bcs
        >>> m = bcs.lm("Volume ~ np.log(Girth) + np.log(Height)", bcs.datasets.load("trees"))
        >>> new = pd.DataFrame({"Height": [70, 80], "Girth": [10, 15]})
        >>> m.get_prediction(new).summary_frame(alpha=0.1).round(2)
            mean  mean_se  mean_ci_lower  mean_ci_upper  obs_ci_lower  obs_ci_upper
        0  14.62     0.31          14.10          15.17         12.76         16.78
        1  37.65     0.70          36.48          38.85         32.62         43.50
        """
        check_option("which", which, ("response", "transformed"))
        native = exog is not None and native_frame(exog) is not None
        x0, index = self._new_rows(as_pandas_frame(exog) if native else exog)
        if weights is None:
            w = self.weights if exog is None and self.weights is not None else 1.0
        else:
            w = _prediction_weights(weights, len(index))
        var_resid = np.broadcast_to(self.scale / np.asarray(w, dtype=np.float64), index.shape)
        return pr.make_prediction(x0, index, self._fit, self._response_map, which=which,
                                  var_resid=var_resid, like=exog if native else None)

    def _new_rows(self, newdata: pd.DataFrame | None) -> tuple[NDArray[np.float64], pd.Index]:
        """Kept design columns of ``newdata`` (or of the fitted rows) and their index."""
        from .formula import new_design

        if newdata is None:
            self._need_data("predict() without new data")
            assert self.x is not None and self.index is not None
            return self.x[:, self._kept], self.index
        if self.design_info is None:
            self._not_available("predict", "the result has no formula design")
        x0 = new_design(self.design_info, newdata)[:, self._kept]
        bad = np.flatnonzero(np.isnan(x0).any(axis=1))
        if bad.size and self.missing == "raise":
            raise BoxCoxError(
                f"the new data have {bad.size} row(s) with a missing value (or a bc()/yj() "
                f"value outside its domain), first at row {newdata.index[bad[0]]!r}; the model "
                "was fitted with missing='raise' (refit with missing='drop' for NaN in place)"
            )
        return x0, newdata.index

    # ------------------------------------------------------------------ reports
    def summary(self, alpha: float = 0.05) -> Summary:
        """Power table (response and predictor terms) above the coefficient table."""
        from .report import lm_summary

        return lm_summary(self, alpha)

    def __repr__(self) -> str:
        how = "fixed" if self.power.fixed else "lmbda"
        return (f"<LmResult {self.formula!r}: {self.family} {how} {format_number(self.lmbda)}"
                f", n={self.nobs}>")

    # ------------------------------------------------------------------ plots
    def plot_profile(self, *, lmbda: Any = None, ax: Any = None, alpha: float = 0.05) -> Any:
        """Profile log-likelihood of the response power as ``MASS::boxcox`` draws it, on
        MASS's grid (:meth:`profile`) or on ``lmbda`` (MASS's ``lambda=``, to zoom); the
        figure of ``bcs.fit`` results (``univariate.plotting.plot_profile``)."""
        from ..univariate.plotting import plot_profile

        grid = self.profile(lmbda)["lmbda"].to_numpy()
        return plot_profile(self.power, None, ax=ax, alpha=alpha, lmbda=grid)

    def qqplot(self, *, ax: Any = None, nsim: int = 199, label: int = 3,
               random_state: Any = 1) -> Any:
        """QQ plot of the studentized residuals with a simulated envelope; the ``label``
        most extreme points are labelled by their index (see ``plotting.plot_lm_qq``)."""
        from .plotting import plot_lm_qq

        self._need_data("qqplot")
        return plot_lm_qq(self, ax=ax, nsim=nsim, label=label, random_state=random_state)

    def plot_residuals(self, *, ax: Any = None) -> Any:
        """Residuals against fitted values with a lowess smoother (transformed scale)."""
        from .plotting import plot_lm_residuals

        self._need_data("plot_residuals")
        return plot_lm_residuals(self, ax=ax)


def _prediction_weights(weights: Any, n: int) -> NDArray[np.float64]:
    w = as_numbers(weights, "weights must be positive numbers (one, or one per predicted row)")
    if w.ndim > 1 or (w.ndim == 1 and w.shape[0] != n):
        raise BoxCoxError(f"weights must be one number or one per predicted row ({n}), got "
                          f"shape {w.shape}")
    if not np.all(np.isfinite(w) & (w > 0)):
        raise BoxCoxError("weights must be finite and > 0 (a new observation's weight)")
    return np.broadcast_to(w, (n,)).astype(np.float64)


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise BoxCoxError(f"{name} must be a number or 'rounded', got {value!r}")
    if not np.isfinite(value):
        raise BoxCoxError(f"{name} must be finite, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class _QRFit:
    """What ``LmResult`` reads from statsmodels' OLS, computed from the orthonormal basis
    ``q`` of the design the power was solved with (``core.design``): with ``R = q' X`` and
    ``c = q' z`` (one blocked pass, :func:`~boxcoxstat.core.design.basis_products`), the
    coefficients solve ``R b = c``, their covariance is ``scale R^-1 R^-T``, and the
    statistics follow statsmodels' definitions (``rsquared`` centred when the constant is in
    the column space, ``df_model = rank - k_constant``, ``fvalue`` against the constant)."""

    params: pd.Series
    bse: pd.Series
    tvalues: pd.Series
    pvalues: pd.Series
    resid: pd.Series
    fittedvalues: pd.Series
    nobs: float
    df_resid: float
    df_model: float
    rsquared: float
    rsquared_adj: float
    scale: float
    fvalue: float
    f_pvalue: float
    cov: pd.DataFrame

    def cov_params(self) -> pd.DataFrame:
        return self.cov

    @classmethod
    def of(cls, q: NDArray[np.float64], x: NDArray[np.float64], z: NDArray[np.float64],
           names: list[str], index: Any, constant: bool) -> _QRFit:
        n, k = x.shape
        r = basis_products(q, x)
        c = basis_products(q, z[:, None])[:, 0]
        b = np.linalg.solve(r, c)
        fitted = x @ b
        e = z - fitted
        ssr = float(e @ e)
        df_resid = float(n - k)
        scale = ssr / df_resid
        r_inv = np.linalg.inv(r)
        cov = scale * (r_inv @ r_inv.T)
        bse = np.sqrt(np.diag(cov))
        tv = b / bse
        k_const = 1.0 if constant else 0.0
        tss = float(np.sum((z - z.mean()) ** 2)) if constant else float(z @ z)
        rsq = 1.0 - ssr / tss
        df_model = float(k) - k_const
        with np.errstate(divide="ignore", invalid="ignore"):
            fval = ((tss - ssr) / df_model) / scale if df_model > 0 else np.nan
        idx = pd.Index(names)
        return cls(
            params=pd.Series(b, index=idx), bse=pd.Series(bse, index=idx),
            tvalues=pd.Series(tv, index=idx),
            pvalues=pd.Series(2.0 * stats.t.sf(np.abs(tv), df_resid), index=idx),
            resid=pd.Series(e, index=index), fittedvalues=pd.Series(fitted, index=index),
            nobs=float(n), df_resid=df_resid, df_model=df_model, rsquared=rsq,
            rsquared_adj=1.0 - (n - k_const) / df_resid * (1.0 - rsq), scale=scale,
            fvalue=fval, f_pvalue=float(stats.f.sf(fval, df_model, df_resid))
            if df_model > 0 else np.nan,
            cov=pd.DataFrame(cov, index=idx, columns=idx))
