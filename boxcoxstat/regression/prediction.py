"""Predictions of a transformed-response linear model on the response scale, with intervals.

Statistics, no rendering. Given the rows of a new design (NaN rows allowed) and the
regression at the power lambda (coefficients, their covariance, the residual scale and
degrees of freedom), :func:`predict_frame` returns the fit and, on request, a confidence
interval for the conditional median or a prediction interval for a new observation:

* **at the power** (the power taken as known, as any regression on a transformed response
  does): the t intervals of the linear model, ``eta -+ t_{df}(1 - alpha/2) se``, mapped back by
  the inverse transform. A monotone map keeps coverage, so these are exact intervals for the
  median and for a new observation when the power is right (for the log they are R's
  ``exp(predict(lm(log(y) ~ ...), new, interval = "prediction"))``). An end beyond the
  transform's range is its limit (0 for Box-Cox with lambda > 0; infinity where the inverse
  is unbounded, with a warning naming the rows).
* **with the power's uncertainty** (:func:`lambda_mixture`): the predictive distribution of
  Box & Cox's (1964, section 4) Bayesian analysis, a mixture over lambda of the t predictive
  distributions at each power, weighted by the posterior of lambda with a flat prior,
  ``p(lambda | y) ∝ exp((nu / n) l(lambda))`` (``l`` the profile log-likelihood with the
  Jacobian, ``nu`` the residual degrees of freedom). The mixture is taken on the response scale,
  where all powers agree on what is predicted, and its quantiles are solved by the core's root
  finder. Its frequentist coverage is measured in ``benchmarks/coverage_lm.py``.

A row with a missing value is NaN in place; a row whose linear predictor lies outside the
transform's range (it has no back-transform) is NaN, with one warning naming those rows.

:class:`LmPrediction` (``LmResult.get_prediction``) gives the same fixed-power intervals with
statsmodels' ``PredictionResults`` surface (``predicted_mean``, ``se_mean``,
``summary_frame(alpha)``), on the response scale or, exactly as statsmodels, on the
transformed one.

References
----------
Box, G. E. P. and Cox, D. R. (1964). An analysis of transformations. JRSS B 26, 211-243.
Duan, N. (1983). Smearing estimate: a nonparametric retransformation method. JASA 78, 605-610.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import stats

from .._validation.columns import BoxCoxError, check_option
from .._validation.containers import like_native
from ..core import inference as inf
from ..core.profile import Profile
from ..core.roots import bracket_increasing, find_root
from ..families import (
    bcnpower_unbase,
    forward_unchecked,
    inverse_unchecked,
    log_jacobian,
    transform,
)
from . import backtransform as bt
from .formula import warn_rows

__all__ = ["LinearFit", "LambdaMixture", "lambda_mixture", "predict_frame", "GL_NODES",
           "LmPrediction", "ResponseMap", "make_prediction"]

GL_NODES = 96  # Gauss-Legendre nodes over lambda (40 left 1.6e-5 in probability on trees)
POSTERIOR_SPAN = 18.0  # the mixture covers lambda where (nu/n)(l_max - l) <= this (e^-18)


@dataclass(frozen=True)
class LinearFit:
    """The regression at one power (kept design columns): what prediction needs."""

    params: NDArray[np.float64]
    cov: NDArray[np.float64]  # scale * (X' W X)^-1
    scale: float
    df_resid: int
    lmbda: float
    family: str


@dataclass(frozen=True)
class LambdaMixture:
    """Powers, posterior weights and the regression at each power (coefficients by row)."""

    lmbda: NDArray[np.float64]
    weight: NDArray[np.float64]
    params: NDArray[np.float64]  # (K, k)
    scale: NDArray[np.float64]

    def frame(self, names: list[str]) -> pd.DataFrame:
        """As one DataFrame (``lmbda``, ``weight``, ``scale`` and a column per coefficient)."""
        out = pd.DataFrame({"lmbda": self.lmbda, "weight": self.weight, "scale": self.scale})
        return out.join(pd.DataFrame(self.params, columns=names))

    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> LambdaMixture:
        a = frame.to_numpy(dtype=np.float64)
        return cls(a[:, 0].copy(), a[:, 1].copy(), a[:, 3:].copy(), a[:, 2].copy())


def lambda_mixture(profile: Profile, lmbda_hat: float, nll_hat: float, bse: float,
                   y: NDArray[np.float64], x: NDArray[np.float64],
                   weights: NDArray[np.float64] | None, family: str) -> LambdaMixture:
    """The posterior of lambda on Gauss-Legendre nodes, and the regression at each node.

    The nodes span ``{lambda : (nu/n)(l_max - l(lambda)) <= 18}``, found as a profile
    interval by the core (``inference.profile_interval``); the weights are the
    Gauss-Legendre weights times ``exp(-(nu/n)(NLL(lambda) - NLL_min))``, normalised.
    """
    n, k = x.shape
    nu = n - k
    level = stats.chi2.sf(2.0 * POSTERIOR_SPAN * n / nu, 1)
    lo, hi = inf.profile_interval(profile, np.array([lmbda_hat]), np.array([nll_hat]),
                                  np.array([bse]), max(level, 1e-300))
    u, wu = np.polynomial.legendre.leggauss(GL_NODES)
    lam = 0.5 * (lo[0] + hi[0]) + 0.5 * (hi[0] - lo[0]) * u
    nll, _ = profile.evaluate(lam, 0, score=False)
    w = wu * np.exp(-(nu / n) * (nll - nll_hat))
    z = transform(y[:, None], lam[None, :], family)
    sw = np.ones(n) if weights is None else np.sqrt(weights)
    coef, *_ = np.linalg.lstsq(x * sw[:, None], z * sw[:, None], rcond=None)
    resid = (z - x @ coef) * sw[:, None]
    scale = np.einsum("ij,ij->j", resid, resid) / nu
    return LambdaMixture(lam, w / w.sum(), np.asarray(coef.T, dtype=np.float64), scale)


def _range(lmbda: NDArray[np.float64], family: str) -> tuple[NDArray, NDArray]:
    """Lower and upper ends of the transform's range at each power."""
    lmbda = np.asarray(lmbda, dtype=np.float64)
    with np.errstate(divide="ignore"):
        if family == "boxcox":
            low = np.where(lmbda > 0, -1.0 / np.where(lmbda > 0, lmbda, 1.0), -np.inf)
        else:
            low = np.where(lmbda > 2, 1.0 / np.where(lmbda > 2, 2.0 - lmbda, 1.0), -np.inf)
        high = np.where(lmbda < 0, -1.0 / np.where(lmbda < 0, lmbda, 1.0), np.inf)
    return low, high


def _support(family: str) -> tuple[float, float]:
    return (0.0, np.inf) if family == "boxcox" else (-np.inf, np.inf)


def _back(t: NDArray[np.float64], lmbda: float, family: str, end: str) -> NDArray[np.float64]:
    """An interval end mapped back; beyond the range, the support's limit on that side."""
    with np.errstate(all="ignore"):
        out = inverse_unchecked(t, lmbda, family)
    low, high = _support(family)
    return np.where(np.isnan(out) & ~np.isnan(t), low if end == "lower" else high, out)


def _mixture_quantiles(b: NDArray, sd: NDArray, mix: LambdaMixture, df: int,
                       p: NDArray, family: str) -> NDArray[np.float64]:
    """Quantile ``p[j]`` of the mixture ``sum_k w_k T_df((g_k(y) - b[j, k]) / sd[j, k])``."""
    lam, w = mix.lmbda, mix.weight
    low, high = _range(lam, family)
    with np.errstate(divide="ignore", invalid="ignore"):
        f_low = stats.t.cdf((low[None, :] - b) / sd, df) @ w
        f_high = stats.t.cdf((high[None, :] - b) / sd, df) @ w
    s_low, s_high = _support(family)
    out = np.where(p <= f_low, s_low, np.where(p >= f_high, s_high, np.nan))
    todo = np.flatnonzero(np.isnan(out) & np.all(np.isfinite(b), axis=1))
    if todo.size == 0:
        return out
    q = b[todo] + stats.t.ppf(p[todo], df)[:, None] * sd[todo]
    with np.errstate(all="ignore"):
        comp = inverse_unchecked(q, lam[None, :], family)
    # the coordinate in which the quantile is solved: log y for Box-Cox (y > 0), else y
    to_u = np.log if family == "boxcox" else (lambda v: v)
    with np.errstate(divide="ignore"):
        cu = np.where(np.isfinite(comp), to_u(np.where(np.isfinite(comp), comp, 1.0)), np.nan)
    a = np.nanmin(cu, axis=1)
    c = np.nanmax(cu, axis=1)
    c = np.maximum(c, a + 1e-6 * np.maximum(1.0, np.abs(a)))

    def f(uu: NDArray[np.float64], idx: NDArray[np.intp]) -> NDArray[np.float64]:
        yy = np.exp(np.clip(uu, -745.0, 709.0)) if family == "boxcox" else uu
        with np.errstate(all="ignore"):
            g = forward_unchecked(yy[:, None], lam[None, :], family)
            cdf = stats.t.cdf((g - b[todo[idx]]) / sd[todo[idx]], df)
        return np.where(np.isnan(cdf), 1.0, cdf) @ w - p[todo[idx]]

    a, c, fa, fc, ok, _ = bracket_increasing(f, a, c, limit=1e300)
    res = find_root(f, a, c, fa, fc, xatol=1e-12, xrtol=1e-12)
    # a quantile beyond the bracket's reach (|y| > about 1e60 on the Yeo-Johnson scale) is
    # reported as the support's limit on its side, like any unbounded end
    u = np.where(ok, res.x, np.where(fc < 0, np.inf, -np.inf))
    out[todo] = np.exp(u) if family == "boxcox" else u
    return out


def linear_predictor(x0: NDArray[np.float64],
                     fit: LinearFit) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The linear predictor ``x0 beta`` of each row and its variance ``x0' V x0`` (``V`` the
    coefficients' covariance); NaN for a row with a missing value."""
    with np.errstate(invalid="ignore", over="ignore"):  # beyond float64: inf, then NaN + warning
        eta = x0 @ fit.params
        var = np.einsum("ij,jk,ik->i", x0, fit.cov, x0)
    return eta, var


def t_interval(eta: NDArray[np.float64], var: Any, alpha: float,
               df: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``eta -+ t_{df}(1 - alpha/2) sqrt(var)``: the intervals of the linear model."""
    half = stats.t.isf(alpha / 2.0, df) * np.sqrt(var)
    return eta - half, eta + half


def predict_frame(
    x0: NDArray[np.float64], index: pd.Index, fit: LinearFit, *, interval: str | None,
    alpha: float, kind: str, mean_estimator: str, which: str,
    residuals: NDArray[np.float64] | None, mixture: LambdaMixture | None,
) -> pd.DataFrame:
    """The prediction frame (``fit``; ``lower``, ``upper`` with an interval); see the module
    docstring. ``mixture`` given: intervals carry lambda's uncertainty."""
    lam, family = fit.lmbda, fit.family
    eta, var_mean = linear_predictor(x0, fit)
    missing = np.isnan(eta)
    with np.errstate(over="ignore", invalid="ignore"):
        h = var_mean / fit.scale  # x0' (X'WX)^-1 x0
    cols: dict[str, NDArray[np.float64]] = {}
    if which == "transformed":
        cols["fit"] = eta
    else:
        with np.errstate(all="ignore"):
            med = inverse_unchecked(eta, lam, family)
        outside = ~missing & ~np.isfinite(med)
        if outside.any():
            warn_rows(f"the linear predictor lies outside the range of the {family} transform "
                      f"at lambda = {lam:.6g}, so it has no back-transform; the prediction is "
                      "NaN", list(index[outside]))
        ok = ~missing & ~outside
        cols["fit"] = np.where(ok, med, np.nan)
        if kind == "mean":
            cols["fit"] = _mean(eta, ok, fit, mean_estimator, residuals, index)
    if interval is not None:
        extra = 1.0 if interval == "prediction" else 0.0
        if which == "transformed" or mixture is None:
            lo_t, hi_t = t_interval(eta, var_mean + fit.scale * extra, alpha, fit.df_resid)
            if which == "transformed":
                cols["lower"], cols["upper"] = lo_t, hi_t
            else:
                cols["lower"] = np.where(ok, _back(lo_t, lam, family, "lower"), np.nan)
                cols["upper"] = np.where(ok, _back(hi_t, lam, family, "upper"), np.nan)
        else:
            bk = x0 @ mixture.params.T  # (m, K)
            sd = np.sqrt(np.outer(h + extra, mixture.scale))
            m = x0.shape[0]
            rows = np.flatnonzero(ok)
            p = np.r_[np.full(rows.size, alpha / 2.0), np.full(rows.size, 1.0 - alpha / 2.0)]
            qs = _mixture_quantiles(np.r_[bk[rows], bk[rows]], np.r_[sd[rows], sd[rows]],
                                    mixture, fit.df_resid, p, family)
            cols["lower"], cols["upper"] = np.full(m, np.nan), np.full(m, np.nan)
            cols["lower"][rows], cols["upper"][rows] = qs[: rows.size], qs[rows.size:]
        unbounded = np.isinf(cols["lower"]) | np.isinf(cols["upper"])
        if unbounded.any():
            warn_rows(f"the {100 * (1 - alpha):g}% {interval} interval reaches beyond the "
                      f"range of the {family} transform, so it is unbounded (an end is "
                      "infinite)", list(index[unbounded]))
    return pd.DataFrame(cols, index=index)


def _mean(eta: NDArray[np.float64], ok: NDArray[np.bool_], fit: LinearFit, estimator: str,
          residuals: NDArray[np.float64] | None, index: pd.Index) -> NDArray[np.float64]:
    """Duan's smearing or the normal-theory mean; NaN, with one warning naming the rows, where
    the mean does not exist: where the fitted model's normal errors (to ``bt.Z_MAX`` sigma)
    or, for smearing, the residuals reach a pole of the inverse transform. Whether the mean
    exists is one question with one answer for both estimators: smearing's finite average
    over bounded residuals is not reported where the model says the mean is infinite."""
    sigma = float(np.sqrt(fit.scale))
    d_low, d_high = -bt.Z_MAX * sigma, bt.Z_MAX * sigma
    if estimator == "smearing":
        assert residuals is not None
        d_low = min(d_low, float(np.min(residuals)))
        d_high = max(d_high, float(np.max(residuals)))
    diverges = ~bt.mean_exists(eta, d_low, d_high, fit.lmbda, fit.family)
    out = np.full(eta.shape, np.nan)
    rows = np.flatnonzero(ok & ~diverges)
    if estimator == "smearing":
        assert residuals is not None
        out[rows] = bt.mean_smearing(eta[rows], residuals, fit.lmbda, fit.family)
    else:
        out[rows] = bt.mean_normal(eta[rows], float(np.sqrt(fit.scale)), fit.lmbda, fit.family)
    bad = ok & diverges
    if bad.any():
        warn_rows(f"the mean on the response scale does not exist at lambda = {fit.lmbda:.6g} "
                  f"(the model's normal errors, within {bt.Z_MAX:g} sigma, reach where the "
                  "inverse transform diverges); the prediction is NaN with either "
                  "mean_estimator; use kind='median'", list(index[bad]), stacklevel=5)
    return out


def check_kind(kind: str, interval: Any) -> None:
    """A confidence interval is an interval for the median (the back-transformed interval of
    the linear predictor); for the mean there is none here."""
    if kind == "mean" and interval == "confidence":
        raise BoxCoxError("interval='confidence' is an interval for the conditional median "
                          "(the back-transform of the linear predictor's interval); use "
                          "kind='median' with it, or interval='prediction' for a new "
                          "observation")


# --------------------------------------------------------------------------- statsmodels' API
@dataclass(frozen=True)
class ResponseMap:
    """From the transformed scale back to the response: the inverse power (``family`` at
    ``lmbda``), then, for a shifted response, the shift undone (bcnPower's base, or the
    ``gamma`` added before Box-Cox)."""

    lmbda: float
    family: str  # the family of the power itself: "boxcox" or "yeojohnson"
    gamma: float | None = None
    bcnpower: bool = False

    def unshift(self, b: NDArray[np.float64]) -> NDArray[np.float64]:
        """Base values to the response (finite values; an infinite end stays as it is)."""
        if self.gamma is None:
            return b
        out = np.array(b, dtype=np.float64, copy=True)
        ok = np.isfinite(out)
        out[ok] = (bcnpower_unbase(out[ok], self.gamma) if self.bcnpower
                   else out[ok] - self.gamma)
        return out

    def median(self, eta: NDArray[np.float64]) -> NDArray[np.float64]:
        """``g^{-1}(eta)``: NaN where ``eta`` is outside the transform's range."""
        with np.errstate(all="ignore"):
            b = inverse_unchecked(eta, self.lmbda, self.family)
        return self.unshift(np.where(np.isfinite(b), b, np.nan))

    def end(self, t: NDArray[np.float64], side: str) -> NDArray[np.float64]:
        """An interval end mapped back (beyond the range: the support's limit on ``side``)."""
        return self.unshift(_back(t, self.lmbda, self.family, side))

    def slope(self, eta: NDArray[np.float64]) -> NDArray[np.float64]:
        """``d g^{-1}(eta) / d eta``: ``1 / psi'(b)`` at ``b = g^{-1}(eta)`` (``b^(1 - lmbda)``
        for Box-Cox), times ``d x / d b = 1 + gamma^2 / (4 b^2)`` for bcnPower's base."""
        with np.errstate(all="ignore"):
            b = inverse_unchecked(eta, self.lmbda, self.family)
            out = np.exp(-log_jacobian(b, self.lmbda, self.family))
            if self.bcnpower and self.gamma is not None:
                out = out * (1.0 + (0.5 * self.gamma / b) ** 2)
        return np.where(np.isfinite(b), out, np.nan)


@dataclass(frozen=True, repr=False)
class LmPrediction:
    """Predictions of an :class:`~boxcoxstat.LmResult` with statsmodels' prediction surface.

    Returned by :meth:`LmResult.get_prediction <boxcoxstat.LmResult.get_prediction>`; the
    counterpart of statsmodels' ``PredictionResults``. Immutable; every number is on one
    scale, ``which``:

    * ``"transformed"``: the linear model of the transformed response, exactly as statsmodels'
      ``OLS(...).get_prediction(...)`` of the same design computes it: ``predicted_mean`` is
      the linear predictor, ``se_mean`` its standard error, the intervals
      ``eta -+ t_{df}(1 - alpha/2) se`` (``se_obs`` adds the residual variance).
    * ``"response"``: the same intervals mapped back by the inverse transform (a monotone map
      keeps coverage; an end beyond the transform's range is its limit, 0 or infinity, with a
      warning naming the rows). ``predicted_mean`` (the column ``mean``) is the conditional
      **median** ``g^{-1}(eta)`` (the package's ``kind="median"``; the conditional mean is
      ``LmResult.predict(kind="mean")``, for which no confidence interval is given), and
      ``se_mean`` is the delta-method standard error of that median,
      ``|d g^{-1}/d eta| se``, as statsmodels' GLM reports ``mean_se`` on the mean scale: a
      local scale, not what the (asymmetric) intervals are built from.

    Attributes
    ----------
    which : {"response", "transformed"}
        The scale of every number (the ``which=`` it was asked for).
    linpred, se_linpred : ndarray
        The linear predictor and its standard error (transformed scale, on either scale).
    var_resid : ndarray
        The residual variance of a new observation on the transformed scale, ``scale / w``.
    df : int
        Degrees of freedom of the t quantiles (the residual degrees of freedom).
    row_labels : pandas.Index
        The index of the new data (of the fitted rows without new data).

    Examples
    --------
    >>> import pandas as pd, boxcoxstat as bcs
    >>> m = bcs.lm("Volume ~ np.log(Girth) + np.log(Height)", bcs.datasets.load("trees"),
    ...            lmbda=0)
    >>> new = pd.DataFrame({"Height": [70, 80], "Girth": [10, 15]})
    >>> m.get_prediction(new).summary_frame().round(2)
        mean  mean_se  mean_ci_lower  mean_ci_upper  obs_ci_lower  obs_ci_upper
    0  14.58     0.33          13.92          15.27         12.26         17.34
    1  37.82     0.69          36.43          39.26         31.88         44.86
    >>> m.get_prediction(new, which="transformed").summary_frame()["mean"].round(4)
    0    2.6797
    1    3.6328
    Name: mean, dtype: float64
    """

    linpred: NDArray[np.float64]
    se_linpred: NDArray[np.float64]
    var_resid: NDArray[np.float64]
    df: int
    row_labels: pd.Index
    which: str
    response: ResponseMap
    like: Any = None  # a polars (or other non-pandas) frame: frames are returned in its kind

    @property
    def predicted(self) -> NDArray[np.float64]:
        """The prediction: the linear predictor, or on the response scale the median."""
        if self.which == "transformed":
            return self.linpred
        return self.response.median(self.linpred)

    @property
    def predicted_mean(self) -> NDArray[np.float64]:
        """statsmodels' name for :attr:`predicted` (on the response scale: the median)."""
        return self.predicted

    @property
    def se_mean(self) -> NDArray[np.float64]:
        """Standard error of :attr:`predicted` (delta method on the response scale)."""
        if self.which == "transformed":
            return self.se_linpred
        return np.abs(self.response.slope(self.linpred)) * self.se_linpred

    @property
    def var_pred_mean(self) -> NDArray[np.float64]:
        """The square of :attr:`se_mean` (statsmodels' name)."""
        return self.se_mean ** 2

    def _ends(self, obs: bool, alpha: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        var = self.se_linpred ** 2 + (self.var_resid if obs else 0.0)
        lo, hi = t_interval(self.linpred, var, alpha, self.df)
        if self.which == "transformed":
            return lo, hi
        ok = np.isfinite(self.response.median(self.linpred))
        return (np.where(ok, self.response.end(lo, "lower"), np.nan),
                np.where(ok, self.response.end(hi, "upper"), np.nan))

    def _frame(self, cols: dict[str, NDArray[np.float64]], what: str, alpha: float) -> Any:
        """The frame of ``cols``; one warning naming the rows whose interval ``what`` (the
        widest in ``cols``: a prediction interval contains the confidence interval) has an
        infinite end."""
        ends = [v for k, v in cols.items() if k.endswith(("lower", "upper"))]
        unbounded = np.any(np.isinf(np.vstack(ends)), axis=0)
        if unbounded.any():
            warn_rows(f"the {100 * (1 - alpha):g}% {what} reaches beyond the range of the "
                      f"{self.response.family} transform, so it is unbounded (an end is "
                      "infinite)", list(self.row_labels[unbounded]))
        out = pd.DataFrame(cols, index=self.row_labels)
        if self.like is not None:  # polars in, polars out
            return like_native(out.to_numpy(dtype=np.float64), list(out.columns), self.like)
        return out

    def conf_int(self, obs: bool = False, alpha: float = 0.05) -> Any:
        """Interval for the median (``obs=False``) or for a new observation (``obs=True``):
        a DataFrame ``lower``, ``upper`` indexed as the rows (statsmodels returns an array;
        the package's intervals are frames)."""
        from ..base.results import check_alpha

        check_option("obs", obs, (False, True))
        alpha = check_alpha(alpha)
        lo, hi = self._ends(bool(obs), alpha)
        what = "prediction interval" if obs else "confidence interval"
        return self._frame({"lower": lo, "upper": hi}, what, alpha)

    def summary_frame(self, alpha: float = 0.05) -> Any:
        """statsmodels' table: ``mean``, ``mean_se``, ``mean_ci_lower``, ``mean_ci_upper``,
        ``obs_ci_lower``, ``obs_ci_upper``, one row per predicted row (see the class
        docstring for what ``mean`` and ``mean_se`` are on the response scale)."""
        from ..base.results import check_alpha

        alpha = check_alpha(alpha)
        mean_lo, mean_hi = self._ends(False, alpha)
        obs_lo, obs_hi = self._ends(True, alpha)
        cols = {"mean": self.predicted, "mean_se": self.se_mean, "mean_ci_lower": mean_lo,
                "mean_ci_upper": mean_hi, "obs_ci_lower": obs_lo, "obs_ci_upper": obs_hi}
        return self._frame(cols, "prediction interval", alpha)

    def __repr__(self) -> str:
        return f"<LmPrediction: {len(self.row_labels)} row(s), {self.which} scale>"


def make_prediction(x0: NDArray[np.float64], index: pd.Index, fit: LinearFit,
                    response: ResponseMap, *, which: str, var_resid: NDArray[np.float64],
                    like: Any = None) -> LmPrediction:
    """An :class:`LmPrediction` of the rows ``x0``; on the response scale one warning names
    the rows whose linear predictor has no back-transform (their numbers are NaN)."""
    eta, var = linear_predictor(x0, fit)
    if which == "response":
        outside = ~np.isnan(eta) & np.isnan(response.median(eta))
        if outside.any():
            warn_rows(f"the linear predictor lies outside the range of the {fit.family} "
                      f"transform at lambda = {fit.lmbda:.6g}, so it has no back-transform; "
                      "the prediction is NaN", list(index[outside]))
    se, vr = np.sqrt(var), np.array(var_resid, dtype=np.float64)
    for a in (eta, se, vr):
        a.flags.writeable = False  # immutable, as every result
    return LmPrediction(eta, se, vr, fit.df_resid, index, which, response, like)
