"""``BoxCoxRegressor``: a regressor on a response transformed with the power chosen given X.

scikit-learn's ``TransformedTargetRegressor(transformer=
PowerTransformer())`` chooses the response's power from the marginal distribution of y, so a
skewed predictor, not the errors, decides it. The Box-Cox model is about the errors:
``g_lambda(y) = X beta + e`` with normal ``e``, and the power that makes them normal maximises
the profile likelihood of the linear model given X (Box & Cox 1964; ``MASS::boxcox(lm(...))``).
:class:`BoxCoxRegressor` computes that power with the package's core (the response's profile,
:func:`boxcoxstat.core.response.response_profile`, on a QR of ``[1, X]``, and the one solver),
fits any regressor to ``g_lambda(y)`` and back-transforms its predictions to the conditional
median or, by Duan's (1983) smearing, the conditional mean.
"""

from __future__ import annotations

import warnings
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import families as fam
from .._validation import (
    BoxCoxError,
    ColumnReport,
    case_weights,
    check_column,
    check_option,
    normalize_family,
)
from ..base.transform import Provenance, rows_text
from ..core.design import qr_design
from ..core.resolution import loss_messages
from ..core.response import ResponseProfile, response_profile
from ..core.solve import solve
from ..exceptions import ResolutionWarning
from ..regression import backtransform as bt
from ..univariate.results import PowerTransformResult

__all__ = ["BoxCoxRegressor"]


class BoxCoxRegressor(RegressorMixin, BaseEstimator):
    """Fit a regressor to a power-transformed response, the power chosen given X (MASS's).

    ``fit`` finds the Box-Cox (or Yeo-Johnson) power of ``y`` that maximises the profile
    likelihood of the linear model of ``y`` on ``X`` with an intercept (exactly, with the
    package's solver), transforms ``y``, and fits a clone of ``regressor`` to it. ``predict``
    back-transforms the regressor's predictions.

    Parameters
    ----------
    regressor : scikit-learn regressor, default=None
        The model of the transformed response; ``None`` means ``LinearRegression()``.
    family : {"boxcox", "yeojohnson", "auto"}, default="boxcox"
        The response's family. ``"auto"``: Yeo-Johnson if ``y`` has values <= 0, else the
        family with the larger profile log-likelihood given X.
    kind : {"median", "mean"}, default="median"
        ``"median"``: ``g^-1(prediction)``, the conditional median (a monotone transform keeps
        quantiles); ``"mean"``: Duan's (1983) smearing estimate of the conditional mean, the
        average of ``g^-1(prediction + e_i)`` over the training residuals ``e_i`` on the
        transformed scale (in-sample residuals: for a very flexible regressor they are too
        small and the mean is pulled towards the median).
    lmbda : float, optional
        A fixed power instead of the estimate.

    Attributes
    ----------
    lmbda_ : float
        The power used.
    family_ : str
    power_ : PowerTransformResult
        The power's own inference given X, as ``bcs.lm(...).power``: ``bse``,
        ``conf_int()`` (profile likelihood), ``test(0)``, ``rounded``, ``summary()``.
    regressor_ : the fitted clone of ``regressor``
    residuals_ : ndarray of shape (n_samples,)
        Training residuals on the transformed scale (used by ``kind="mean"``).
    n_features_in_, feature_names_in_ : as in scikit-learn.

    Notes
    -----
    The power is a property of the linear model in X: with a non-linear ``regressor`` it is
    still the power that makes the errors of a linear fit most normal (MASS's), which is the
    usual choice. X must be numeric and complete (encode and impute in a ``Pipeline`` before
    this step). ``fit(X, y, sample_weight=w)`` takes case weights: the power maximises the
    likelihood of ``lm(y ~ X, weights=w)`` (car's ``powerTransform`` of that model; rows of
    weight 0 left out), and the regressor is fitted with the same ``sample_weight``.

    References
    ----------
    - Box, G. E. P. and Cox, D. R. (1964). An analysis of transformations. JRSS B 26, 211-243.
    - Duan, N. (1983). Smearing estimate: a nonparametric retransformation method. JASA 78,
      605-610.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat import BoxCoxRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(1, 3, size=(200, 1))
    >>> y = (1 + 2 * X[:, 0] + rng.normal(scale=0.3, size=200)) ** 2   # sqrt(y) is linear
    >>> reg = BoxCoxRegressor().fit(X, y)
    >>> round(reg.lmbda_, 2), reg.power_.rounded
    (0.45, 0.5)
    >>> reg.predict([[2.0]]).round(1)
    array([24.6])
    """

    def __init__(
        self,
        regressor: Any = None,
        *,
        family: Literal["boxcox", "yeojohnson", "auto"] = "boxcox",
        kind: Literal["median", "mean"] = "median",
        lmbda: float | None = None,
    ) -> None:
        self.regressor = regressor
        self.family = family
        self.kind = kind
        self.lmbda = lmbda

    def _base(self) -> Any:
        if self.regressor is None:
            from sklearn.linear_model import LinearRegression

            return LinearRegression()
        return self.regressor

    def _model(self, p: int) -> str:
        """The linear model the power refers to, for the report: ``y ~ a + b``."""
        names = ([str(c) for c in self.feature_names_in_] if hasattr(self, "feature_names_in_")
                 else [f"x{j}" for j in range(p)])
        shown = " + ".join(names[:5]) + (f" + ... ({p} predictors)" if p > 5 else "")
        return f"y ~ {shown}"

    def _power(self, y: NDArray[np.float64], X: NDArray[np.float64], family: str,
               w: NDArray[np.float64] | None = None) -> PowerTransformResult:
        """The response power given X (and case weights ``w``): the profile of y on [1, X]
        and the one solver."""
        if w is not None:  # rows of weight 0 do not enter lm's likelihood
            keep = w > 0
            y, X, w = y[keep], X[keep], w[keep]
        design = qr_design(np.column_stack([np.ones(y.shape[0]), X]), w)
        profile = response_profile(y, design, family, w)
        sol = solve(profile)
        lam = sol.lmbda.copy()
        if isinstance(profile, ResponseProfile) and profile.fits_exactly_at(lam[0]):
            # the likelihood is unbounded at this power: it is the estimate, and the
            # regressor fits the transformed response exactly (power_ has no inference)
            warnings.warn(f"the predictors fit the transformed response exactly at lambda = "
                          f"{lam[0]:.6g}; that power is used, and its likelihood is unbounded "
                          "(power_ intervals and tests do not apply)", UserWarning,
                          stacklevel=3)
        elif not sol.converged[0]:
            warnings.warn("the response power did not converge", RuntimeWarning, stacklevel=3)
        return PowerTransformResult._build(
            ("y",), "series", (family,), lam, nll=sol.nll, llf=profile.llf_offset() - sol.nll,
            nobs=[y.shape[0]],  # rows of positive weight
            converged=sol.converged, model=self._model(X.shape[1]),
            source=Provenance(profile=profile))

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
            ) -> BoxCoxRegressor:
        """Choose the response's power given ``X``, then fit the regressor to ``g(y)``.

        ``sample_weight``: case weights (``lm(weights=)``'s likelihood for the power; passed
        on to the regressor's ``fit``)."""
        check_option("kind", self.kind, ("median", "mean"))
        family = normalize_family(self.family)
        Xv, yv = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        Xa, y = np.asarray(Xv, dtype=np.float64), np.asarray(yv, dtype=np.float64)
        w = case_weights(sample_weight, y.shape[0])
        if w is not None and int(np.sum(w > 0)) < 3:
            raise BoxCoxError("BoxCoxRegressor needs at least 3 samples of positive weight")
        if y.shape[0] < 3:
            raise BoxCoxError(f"BoxCoxRegressor needs at least 3 samples, got {y.shape[0]} "
                              f"sample{'s' if y.shape[0] != 1 else ''}")
        if family == "auto":
            family = "yeojohnson" if np.min(y) <= 0 else "auto"
        check_column(ColumnReport.of(y), "y", family="yeojohnson" if family == "auto"
                     else family, missing="raise", remedy="use family='yeojohnson'",
                     tiny_scale=True)  # the response's profile reaches 1 / range
        if family == "auto":
            fits = [self._power(y, Xa, f, w) for f in ("boxcox", "yeojohnson")]
            self.power_ = max(fits, key=lambda r: float(r._llf_values[0]))
        else:
            self.power_ = self._power(y, Xa, family, w)
        self.family_ = self.power_._families[0]
        self.lmbda_ = float(self.power_._lmbda_used[0]) if self.lmbda is None else float(
            self.lmbda)
        for text in loss_messages(y.reshape(-1, 1), [self.lmbda_], [self.family_], ["y"],
                                  "set lmbda= to a rounded power (power_.rounded_power()) or to "
                                  "bcs.fit(y, lmbda='safe')'s safe power", what="response"):
            warnings.warn(text, ResolutionWarning, stacklevel=2)
        z = fam.transform(y, self.lmbda_, self.family_)
        self.regressor_ = (clone(self._base()).fit(Xv, z) if w is None else
                           clone(self._base()).fit(Xv, z, sample_weight=w))
        self.residuals_ = z - np.asarray(self.regressor_.predict(Xv), dtype=np.float64)
        return self

    def predict(self, X: ArrayLike) -> NDArray[np.float64]:
        """Predictions on the response's scale: the conditional median or (``kind="mean"``)
        the smearing mean.

        A row without one is NaN, with one ``UserWarning`` naming the rows (the package's
        rule for inverses, as ``LmResult.predict``): for the median, a prediction outside
        the transform's range at the power (no response transforms to it); for the mean, a
        prediction whose errors reach a pole of the inverse (the mean is infinite there):
        the residuals, or the normal errors of the linear model the power was chosen under
        (``12 sigma``, sigma from the residuals with the linear model's degrees of freedom),
        as ``LmResult.predict`` decides it.
        """
        check_is_fitted(self)
        Xv = validate_data(self, X, dtype=np.float64, reset=False)
        eta = np.asarray(self.regressor_.predict(Xv), dtype=np.float64).reshape(-1)
        out = np.full(eta.shape, np.nan)
        if self.kind == "mean":  # where the mean exists: as bcs.lm's predict decides it
            e = self.residuals_
            sigma = float(np.sqrt(e @ e / max(1, e.size - self.n_features_in_ - 1)))
            reach = bt.Z_MAX * sigma  # the normal errors of the model lambda was chosen under
            ok = bt.mean_exists(eta, min(float(np.min(e)), -reach), max(float(np.max(e)), reach),
                                self.lmbda_, self.family_)
            out[ok] = bt.mean_smearing(eta[ok], e, self.lmbda_, self.family_)
            what = ("the mean does not exist (the errors reach where the inverse transform "
                    "diverges); use kind='median'")
        else:
            with np.errstate(all="ignore"):
                med = fam.inverse_unchecked(eta, self.lmbda_, self.family_)
            ok = ~np.isnan(med)
            if np.any(np.isinf(med)):
                out[ok] = bt.median(eta[ok], self.lmbda_, self.family_)  # raises: overflow
            out[ok] = med[ok]
            what = ("the prediction lies outside the range of the transform, so it has no "
                    "back-transform")
        if not ok.all():
            warnings.warn(f"{rows_text(~ok)} at lambda = {self.lmbda_:.6g}: {what}; they are "
                          "NaN", UserWarning, stacklevel=2)
        return out

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.target_tags.positive_only = self.family == "boxcox"
        return tags
