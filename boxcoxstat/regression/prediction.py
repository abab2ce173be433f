"""Predictions of a transformed-response linear model on the response scale, with intervals.

Layer 5 (statistics, no rendering). Given the rows of a new design (NaN rows allowed) and the
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

from .._validation import BoxCoxError
from ..core import inference as inf
from ..core.profile import Profile
from ..core.roots import bracket_increasing, find_root
from ..families import forward_unchecked, inverse_unchecked, transform
from . import backtransform as bt
from .formula import warn_rows

__all__ = ["LinearFit", "LambdaMixture", "lambda_mixture", "predict_frame", "GL_NODES"]

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


def predict_frame(
    x0: NDArray[np.float64], index: pd.Index, fit: LinearFit, *, interval: str | None,
    alpha: float, kind: str, mean: str, scale: str,
    residuals: NDArray[np.float64] | None, mixture: LambdaMixture | None,
) -> pd.DataFrame:
    """The prediction frame (``fit``; ``lower``, ``upper`` with an interval); see the module
    docstring. ``mixture`` given: intervals carry lambda's uncertainty."""
    lam, family = fit.lmbda, fit.family
    eta = x0 @ fit.params
    missing = np.isnan(eta)
    with np.errstate(invalid="ignore", over="ignore"):
        h = np.einsum("ij,jk,ik->i", x0, fit.cov, x0) / fit.scale  # x0' (X'WX)^-1 x0
    cols: dict[str, NDArray[np.float64]] = {}
    if scale == "transformed":
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
            cols["fit"] = _mean(eta, ok, fit, mean, residuals, index)
    if interval is not None:
        extra = 1.0 if interval == "prediction" else 0.0
        if scale == "transformed" or mixture is None:
            t = stats.t.isf(alpha / 2.0, fit.df_resid)
            half = t * np.sqrt(fit.scale * (h + extra))
            lo_t, hi_t = eta - half, eta + half
            if scale == "transformed":
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


def _mean(eta: NDArray[np.float64], ok: NDArray[np.bool_], fit: LinearFit, mean: str,
          residuals: NDArray[np.float64] | None, index: pd.Index) -> NDArray[np.float64]:
    """Duan's smearing or the normal-theory mean; NaN, with one warning naming the rows, where
    the mean does not exist: where the fitted model's normal errors (to ``bt.Z_MAX`` sigma)
    or, for smearing, the residuals reach a pole of the inverse transform. Whether the mean
    exists is one question with one answer for both estimators: smearing's finite average
    over bounded residuals is not reported where the model says the mean is infinite."""
    sigma = float(np.sqrt(fit.scale))
    d_low, d_high = -bt.Z_MAX * sigma, bt.Z_MAX * sigma
    if mean == "smearing":
        assert residuals is not None
        d_low = min(d_low, float(np.min(residuals)))
        d_high = max(d_high, float(np.max(residuals)))
    diverges = ~bt.mean_exists(eta, d_low, d_high, fit.lmbda, fit.family)
    out = np.full(eta.shape, np.nan)
    rows = np.flatnonzero(ok & ~diverges)
    if mean == "smearing":
        assert residuals is not None
        out[rows] = bt.mean_smearing(eta[rows], residuals, fit.lmbda, fit.family)
    else:
        out[rows] = bt.mean_normal(eta[rows], float(np.sqrt(fit.scale)), fit.lmbda, fit.family)
    bad = ok & diverges
    if bad.any():
        warn_rows(f"the mean on the response scale does not exist at lambda = {fit.lmbda:.6g} "
                  f"(the model's normal errors, within {bt.Z_MAX:g} sigma, reach where the "
                  "inverse transform diverges); the prediction is NaN with either mean= "
                  "estimator; use kind='median'", list(index[bad]), stacklevel=5)
    return out


def check_kind(kind: str, interval: Any) -> None:
    """A confidence interval is an interval for the median (the back-transformed interval of
    the linear predictor); for the mean there is none here."""
    if kind == "mean" and interval == "confidence":
        raise BoxCoxError("interval='confidence' is an interval for the conditional median "
                          "(the back-transform of the linear predictor's interval); use "
                          "kind='median' with it, or interval='prediction' for a new "
                          "observation")
