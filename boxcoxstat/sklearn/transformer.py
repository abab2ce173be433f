"""``PowerTransformer``: scikit-learn's transformer, on the package's exact core.

A drop-in for ``sklearn.preprocessing.PowerTransformer``: the same
constructor (``method="yeo-johnson" | "box-cox"``, ``standardize=True``, ``copy=True``), the
same fitted attributes (``lambdas_``, ``n_features_in_``, ``feature_names_in_``, the
standardiser ``_scaler``) and the same behaviour on missing values, constant columns,
``copy``, ``set_output`` and inverse transforms outside the range. What differs is the lambda:
every column is solved by the package's one solver (:func:`boxcoxstat.core.solve.solve`) on
the stable likelihood, so it is the exact maximum-likelihood power, also where scikit-learn's
Brent search stops at the wrong place or overflows (Xu & Cormode 2025, Table 1), and all
columns are solved at once instead of in a Python loop.

One deliberate exception to the package's option names: here ``method`` names the family, as
in scikit-learn (``"yeo-johnson"``, ``"box-cox"``, and ``"auto"``), so that replacing the
import is the only change a user makes; the estimator, ``method=`` everywhere else in
boxcoxstat, is ``estimator=`` here.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.preprocessing import StandardScaler
from sklearn.utils.validation import (
    FLOAT_DTYPES,
    _check_sample_weight,
    check_array,
    check_is_fitted,
    validate_data,
)

from .. import api
from .. import families as fam
from .._validation import BoxCoxError, ColumnReport, check_bounds, is_dask
from .._validation.features import check_feature
from .._validation.routes import ESTIMATORS
from ..base import jsonio
from ..base.jsonio import saved
from ..core.sample import length_unit
from ..robust.results import RobustTransformResult
from ..univariate.results import PowerTransformResult

__all__ = ["PowerTransformer"]

FAMILY_OF_METHOD = {"yeo-johnson": "yeojohnson", "box-cox": "boxcox", "auto": "auto"}
_RESULTS = {cls.__name__: cls for cls in (PowerTransformResult, RobustTransformResult)}


@dataclass(frozen=True)
class PowerTransformerState:
    """What :meth:`PowerTransformer.to_json` saves: the settings, the powers, the standardiser
    and the full result's own document."""

    method: str = saved(jsonio.Str(choices=tuple(FAMILY_OF_METHOD)))
    standardize: bool = saved(jsonio.Bool())
    copy: bool = saved(jsonio.Bool())
    estimator: str = saved(jsonio.Str(choices=ESTIMATORS))
    ymax: float | None = saved(jsonio.Float(optional=True))
    lmbda: str | None = saved(jsonio.Str(optional=True, choices=("safe",)))
    bounds: NDArray[np.float64] | None = saved(jsonio.Floats(optional=True), default=None,
                                               kw_only=True)
    feature_names: tuple[str, ...] | None = saved(jsonio.Strs(optional=True,
                                                              length_of="lambdas"))
    lambdas: NDArray[np.float64] = saved(jsonio.Floats(finite=True))
    families: tuple[str, ...] = saved(jsonio.Strs(length_of="lambdas",
                                                  choices=("boxcox", "yeojohnson")))
    fitted: NDArray[np.int64] = saved(jsonio.Ints())
    scaler_mean: NDArray[np.float64] | None = saved(jsonio.Floats(optional=True,
                                                                  length_of="lambdas"))
    scaler_scale: NDArray[np.float64] | None = saved(jsonio.Floats(optional=True,
                                                                   length_of="lambdas"))
    scaler_var: NDArray[np.float64] | None = saved(jsonio.Floats(optional=True,
                                                                 length_of="lambdas"))
    scaler_n: NDArray[np.float64] | None = saved(jsonio.Floats(optional=True,
                                                               length_of="lambdas"))
    result_class: str | None = saved(jsonio.Str(optional=True, choices=tuple(_RESULTS)))
    result: dict[str, Any] | None = saved(jsonio.Mapping_(optional=True))

    @staticmethod
    def _check_loaded(values: dict[str, Any]) -> None:
        p = values["lambdas"].size
        bounds = values.get("bounds")
        if bounds is not None:
            try:
                check_bounds(bounds)
            except BoxCoxError as err:
                raise jsonio._Bad(f"field 'bounds': {err}") from None
        fitted = values["fitted"]
        if fitted.size and (fitted.min() < 0 or fitted.max() >= p
                            or np.unique(fitted).size != fitted.size):
            raise jsonio._Bad(f"field 'fitted' must list distinct positions below {p}")
        if (values["result"] is None) != (values["result_class"] is None) or (
                fitted.size and values["result"] is None):
            raise jsonio._Bad("fields 'result' and 'result_class' must both be given when "
                              "columns were fitted")
        if values["standardize"] and values["scaler_mean"] is None:
            raise jsonio._Bad("field 'scaler_mean' is needed with standardize=true")


class PowerTransformer(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Apply a power transform featurewise to make data more Gaussian-like (exact lambdas).

    A drop-in for ``sklearn.preprocessing.PowerTransformer``: replace the import and nothing
    else changes, except that each lambda is the exact maximum-likelihood power (computed by
    the package's stable likelihood and score root, all columns at once) and that what
    scikit-learn's cannot do is here as keyword-only extras.

    Parameters
    ----------
    method : {"yeo-johnson", "box-cox", "auto"}, default="yeo-johnson"
        The family, named as in scikit-learn (this is the one place where boxcoxstat's
        ``method`` means the family; the estimator is ``estimator=``). ``"auto"`` uses
        Yeo-Johnson for features with values <= 0 and, for positive features, the family
        with the larger log-likelihood (as ``boxcoxstat.fit(family="auto")``).
    standardize : bool, default=True
        Apply zero-mean, unit-variance scaling to the transformed output (scikit-learn's
        ``StandardScaler``, fitted with the same sample weights).
    copy : bool, default=True
        ``False`` transforms in place in ``transform`` and ``inverse_transform`` (``fit``
        never modifies its input).
    estimator : {"mle", "rewml", "carroll", "mtl"}, default="mle"
        Maximum likelihood, or a robust estimator of Raymaekers & Rousseeuw (2021): RewML
        (reweighted ML, as cellWise's ``transfo()``), Carroll's or trimmed likelihood. With a
        robust estimator each feature is prestandardised before its power (see
        :class:`~boxcoxstat.RobustTransformResult`), so ``lambdas_`` refer to those
        prestandardised values; ``sample_weight`` and ``ymax`` then do not apply.
    ymax : float or None, default=1e100
        Bound on the magnitude of the transformed training values (maximum likelihood
        only). lambda is the exact maximum-likelihood power unless that power would take
        some value beyond ``ymax``; then it is the most likely power within the bound (the
        Lambert W inverse of Xu & Cormode 2025), and ``result_.bound_active`` and its
        summary say so. The default only acts where the exact power would overflow float64
        or the standardiser (a year column under Yeo-Johnson: lambda 99 sends 2009 to
        1e329). ``None``: the unconstrained power always (Table 1's exact lambdas); the
        transform then refuses values beyond float64.
    lmbda : {None, "safe"}, default=None
        ``None``: each feature's maximum-likelihood power (within ``ymax``). ``"safe"``:
        each feature's safe power instead where that power loses the feature's resolution
        in float64 (distinct values mapped to one output, or a round trip off by more than
        1e-8): the most likely power whose transformed values map back within 1e-10 and
        stay within 1e100 (:attr:`boxcoxstat.PowerTransformResult.safe`, the same as
        ``boxcoxstat.fit(X, lmbda="safe")``). Maximum likelihood only. Without it, such a
        power gives a :class:`~boxcoxstat.ResolutionWarning` naming the feature, at ``fit``
        and at ``transform``.
    bounds : (lo, hi) or None, default=None
        Restrict every feature's lambda to ``[lo, hi]`` (recipes' ``step_BoxCox(limits=)``,
        forecast's ``lower``/``upper``): the maximum of its profile likelihood on the
        interval, as :func:`boxcoxstat.fit`'s ``bounds=`` (``result_`` then measures its
        interval and tests from that bounded maximum). Maximum likelihood only, not with
        ``lmbda="safe"``; ``ymax`` still bounds the transformed values.

    Attributes
    ----------
    lambdas_ : ndarray of shape (n_features,)
        The power of each feature (1 for a constant feature, left unchanged as in
        scikit-learn). ``transform`` uses these values, so setting them changes it.
    families_ : tuple of str
        ``"boxcox"`` or ``"yeojohnson"`` per feature (differs by feature under ``"auto"``).
    result_ : PowerTransformResult or RobustTransformResult
        The full result of the non-constant features: standard errors, profile-likelihood
        intervals (``conf_int()``), likelihood-ratio tests (``test(0)``), ``rounded``
        powers, ``summary()``, plots. It keeps the training data for these (computed when
        asked for).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        As in scikit-learn (only when ``X`` has string column names).

    See Also
    --------
    boxcoxstat.fit : the same estimate with its report, for one call on a DataFrame.
    boxcoxstat.BoxCoxRegressor : a target transform chosen given the predictors.

    Notes
    -----
    Like scikit-learn's: missing values (NaN) are ignored in ``fit`` and kept in
    ``transform``; a constant feature gets lambda = 1 under Yeo-Johnson (the identity) and
    is refused under Box-Cox; ``inverse_transform`` of values outside the transform's range
    gives NaN with a ``UserWarning`` naming the column. Unlike it: a feature whose values
    agree to 12 significant digits (float64 cannot determine lambda there) and a transform
    that would overflow float64 raise :class:`~boxcoxstat.BoxCoxError` instead of returning
    an arbitrary lambda or ``inf``; ``lambdas_`` are exact (Xu & Cormode 2025, Table 1:
    scikit-learn's are 15-100% off there).

    References
    ----------
    - Box, G. E. P. and Cox, D. R. (1964). An analysis of transformations. JRSS B 26, 211-243.
    - Yeo, I.-K. and Johnson, R. A. (2000). Biometrika 87, 954-959.
    - Xu, X. and Cormode, G. (2025). Power transform revisited: numerically stable, and
      federated.
    - Raymaekers, J. and Rousseeuw, P. J. (2021). Transforming variables to central normality.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat import PowerTransformer
    >>> pt = PowerTransformer()
    >>> data = [[1, 2], [3, 2], [4, 5]]
    >>> print(pt.fit(data))
    PowerTransformer()
    >>> print(pt.lambdas_.round(3))
    [ 1.387 -3.101]
    >>> print(pt.transform(data).round(3))
    [[-1.316 -0.707]
     [ 0.21  -0.707]
     [ 1.106  1.414]]
    >>> pt.result_.conf_int().round(2)
        lower  upper
    x0  -2.87   6.01
    x1 -10.70   2.76
    """

    def __init__(
        self,
        method: Literal["yeo-johnson", "box-cox", "auto"] = "yeo-johnson",
        *,
        standardize: bool = True,
        copy: bool = True,
        estimator: Literal["mle", "rewml", "carroll", "mtl"] = "mle",
        ymax: float | None = 1e100,
        lmbda: Literal["safe"] | None = None,
        bounds: tuple[float, float] | None = None,
    ) -> None:
        self.method = method
        self.standardize = standardize
        self.copy = copy
        self.estimator = estimator
        self.ymax = ymax
        self.lmbda = lmbda
        self.bounds = bounds

    # ------------------------------------------------------------------ fitting
    def fit(self, X: ArrayLike, y: Any = None, sample_weight: ArrayLike | None = None
            ) -> PowerTransformer:
        """Estimate the maximum-likelihood lambda of every feature.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            NumPy, pandas or polars; missing values (NaN) are ignored.
        y : None
            Ignored.
        sample_weight : array-like of shape (n_samples,), optional
            Case weights (frequency weights: weight 2 counts a row twice) for the likelihood
            and the standardiser.

        Returns
        -------
        self : PowerTransformer
        """
        self._fit(X, sample_weight, keep=False)
        return self

    def fit_transform(self, X: ArrayLike, y: Any = None,
                      sample_weight: ArrayLike | None = None) -> Any:
        """Fit to ``X``, then transform it (one pass: the transformed data standardised by
        ``fit`` are returned)."""
        return self._fit(X, sample_weight, keep=True)

    def _check_settings(self) -> None:
        """scikit-learn's own settings (the fit's options are the gate's, in
        :func:`boxcoxstat.api._fit`)."""
        for name in ("standardize", "copy"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise BoxCoxError(f"{name} must be True or False, got {getattr(self, name)!r}")
        ymax = self.ymax
        if ymax is not None and (isinstance(ymax, bool) or not isinstance(
                ymax, (int, float, np.integer, np.floating)) or not 1.0 < float(ymax) < 1e300):
            raise BoxCoxError(f"ymax must be None or a number between 1 and 1e300, got {ymax!r}")

    def _route(self, data: Any, names: list[str], layout: str,
               sample_weight: NDArray[np.float64] | None) -> Any:
        """The fit through the estimator table (:func:`boxcoxstat.api._fit`, as
        ``boxcoxstat.fit``): the gate (this transformer's options, scikit-learn's rules for
        constant features), then the table's row for the estimator and the container. The
        ``ymax`` bound is the maximum-likelihood fit's only."""
        return api._fit(api.PT, data, family=self.method, estimator=self.estimator,
                        ymax=self.ymax if self.estimator == "mle" else None, lmbda=self.lmbda,
                        bounds=self.bounds, frequency=sample_weight, names=names,
                        layout=layout, stacklevel=6,
                        safe_option="PowerTransformer(lmbda='safe')")

    def _fitted_positions(self, names: list[str]) -> NDArray[np.intp]:
        """Where the result's columns are among the features (constant ones are not)."""
        if self.result_ is None:
            return np.zeros(0, dtype=np.intp)
        at = {n: j for j, n in enumerate(names)}
        return np.array([at[n] for n in self.result_.names], dtype=np.intp)

    def _fit(self, X: Any, sample_weight: Any, keep: bool) -> Any:
        self._check_settings()
        if hasattr(X, "__dask_graph__"):  # lazy: Dask's own collections are read by the gate
            from dask.base import DaskMethodsMixin  # (the base of Dask's collections; not the

            if isinstance(X, DaskMethodsMixin):  # gate's is_dask: the door enters it once)
                return self._fit_dask(X, sample_weight, keep)
        Xv = validate_data(self, X, ensure_2d=True, dtype=FLOAT_DTYPES, copy=False,
                           ensure_all_finite="allow-nan", reset=True)
        values = np.array(Xv, dtype=np.float64, copy=True)  # fit never writes into X
        n, p = values.shape
        names = ([str(c) for c in self.feature_names_in_] if hasattr(self, "feature_names_in_")
                 else [f"x{j}" for j in range(p)])
        w = None if sample_weight is None else _check_sample_weight(
            sample_weight, values, dtype=np.float64, ensure_non_negative=True)
        self.result_: PowerTransformResult | RobustTransformResult | None = self._route(
            values, names, "frame" if hasattr(self, "feature_names_in_") else "array2d", w)
        fitted = self._fitted_positions(names)
        constant = np.ones(p, dtype=bool)
        constant[fitted] = False
        self.lambdas_ = np.ones(p)
        fams = ["yeojohnson"] * p
        if self.result_ is not None:
            self.lambdas_[fitted] = self.result_._lmbda_used
            for k, j in enumerate(fitted):
                fams[j] = self.result_._families[k]
        self.families_ = tuple(fams)
        self._fitted = fitted
        if not (keep or self.standardize):
            return None
        Z = self._forward(values)
        if self.standardize:
            self._scaler = StandardScaler(copy=False).set_output(transform="default")
            with np.errstate(invalid="ignore"):  # an all-missing feature is refused above
                size = np.nanmax(np.abs(Z), axis=0, initial=0.0)
            unit = np.where(constant, 1.0, length_unit(size))
            if np.all(unit == 1.0):
                Z = self._scaler.fit_transform(Z, sample_weight=w)
            else:  # Yeo-Johnson features on a tiny scale, whose variance would underflow
                sc = self._scaler.fit(Z / unit, sample_weight=w)  # exact: powers of two
                sc.mean_, sc.scale_ = sc.mean_ * unit, sc.scale_ * unit
                with np.errstate(under="ignore"):
                    sc.var_ = sc.var_ * unit * unit  # 0 below about 1e-154, as float64 must
                Z = sc.transform(Z)
        return self._output(Xv, Z) if keep else None

    def _fit_dask(self, X: Any, sample_weight: Any, keep: bool) -> Any:
        """Fit on a Dask array or DataFrame without materialising it: lambda from the
        partitions' merged moments (:mod:`boxcoxstat.core.partitioned`, the engine of
        ``boxcoxstat.fit`` on Dask input; a constant Yeo-Johnson feature keeps lambda 1), the
        standardiser from one more pass (Dask's merged per-chunk means and variances of the
        transformed values)."""
        import dask
        import dask.array as da

        if isinstance(X, da.Array):
            if X.ndim != 2:
                raise BoxCoxError(f"Expected a 2-D Dask array (n_samples, n_features), got "
                                  f"{X.ndim} dimension(s); reshape it with x[:, None]")
            names = [f"x{j}" for j in range(X.shape[1])]
            if hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
        elif hasattr(X, "columns") and hasattr(X, "map_partitions"):
            names = [str(c) for c in X.columns]
            if all(isinstance(c, str) for c in X.columns):
                setattr(self, "feature_names_in_",  # noqa: B010 (mypy: set by scikit-learn)
                        np.asarray(list(X.columns), dtype=object))
            elif hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
        else:
            raise BoxCoxError(f"PowerTransformer takes a 2-D Dask array or a Dask DataFrame, "
                              f"got {type(X).__name__}")
        self.n_features_in_ = p = len(names)
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        self.result_ = self._route(X, names, "frame", w)  # constant features: lambda 1
        fitted = self._fitted_positions(names)
        self.lambdas_ = np.ones(p)
        fams = ["yeojohnson"] * p
        if self.result_ is not None:
            self.lambdas_[fitted] = self.result_._lmbda_used
            for k, j in enumerate(fitted):
                fams[j] = self.result_._families[k]
        self.families_ = tuple(fams)
        self._fitted = fitted
        if self.standardize:
            Z = self._dask_matrix(X, self._forward)
            mean, var, count = dask.compute(da.nanmean(Z, axis=0), da.nanvar(Z, axis=0),
                                            (~da.isnan(Z)).sum(axis=0))
            sc = StandardScaler(copy=False).set_output(transform="default")
            sc.mean_, sc.var_ = np.asarray(mean, dtype=np.float64), np.asarray(var)
            sc.scale_ = np.where(sc.var_ > 0, np.sqrt(sc.var_), 1.0)
            sc.n_samples_seen_ = np.asarray(count, dtype=np.int64)
            sc.n_features_in_ = len(names)
            self._scaler = sc
        return self.transform(X) if keep else None

    @staticmethod
    def _dask_matrix(X: Any, fn: Any) -> Any:
        """``fn`` (a float matrix to a float matrix of the same shape) on every partition of
        ``X`` as a lazy 2-D Dask array (a DataFrame's partitions by their values)."""
        import dask.array as da

        if isinstance(X, da.Array):
            return X.rechunk({1: -1}).map_blocks(
                lambda b: fn(np.asarray(b, dtype=np.float64)), dtype=np.float64)
        return X.to_dask_array(lengths=True).rechunk({1: -1}).map_blocks(
            lambda b: fn(np.asarray(b, dtype=np.float64)), dtype=np.float64)

    def _dask_apply(self, X: Any, fn: Any) -> Any:
        """``fn`` on every partition, lazily, in ``X``'s own kind of collection: a Dask array
        (columns in one chunk) or a Dask DataFrame with the same columns and index."""
        import dask.array as da
        import pandas as pd

        if isinstance(X, da.Array):
            if X.ndim != 2 or X.shape[1] != self.n_features_in_:
                raise BoxCoxError(f"X has shape {X.shape}, but PowerTransformer is expecting "
                                  f"{self.n_features_in_} features as input.")
            return X.rechunk({1: -1}).map_blocks(
                lambda b: fn(np.asarray(b, dtype=np.float64)), dtype=np.float64)
        if len(X.columns) != self.n_features_in_:
            raise BoxCoxError(f"X has {len(X.columns)} features, but PowerTransformer is "
                              f"expecting {self.n_features_in_} features as input.")

        def part(df: Any) -> Any:
            return pd.DataFrame(fn(df.to_numpy(dtype=np.float64)), index=df.index,
                                columns=df.columns)

        meta = pd.DataFrame({c: pd.Series([], dtype=np.float64) for c in X.columns})
        return X.map_partitions(part, meta=meta)

    # ------------------------------------------------------------------ transforming
    def _columns(self) -> Any:
        """The fitted result at the current ``lambdas_`` (which a user may have set)."""
        lam = np.asarray(self.lambdas_, dtype=np.float64).reshape(-1)
        if lam.shape[0] != self.n_features_in_:
            raise BoxCoxError(f"lambdas_ has {lam.shape[0]} entries for "
                              f"{self.n_features_in_} features")
        if self.result_ is None:
            return None
        sub = lam[self._fitted]
        if np.array_equal(sub, self.result_._lmbda_used):
            return self.result_
        return replace(self.result_, _lmbda_used=sub)

    def _forward(self, x: NDArray[np.float64], warn: int | None = None) -> NDArray[np.float64]:
        """The power transform of every feature of ``x`` (NaN stays NaN); with ``warn`` (a
        stack level counted from the caller), a ``ResolutionWarning`` for every feature
        whose power loses the values' resolution."""
        res = self._columns()
        lam = np.asarray(self.lambdas_, dtype=np.float64).reshape(-1)
        level = None if warn is None else warn + 1
        hint = "fit PowerTransformer(lmbda='safe') (the safe power), or set another power"
        if res is not None and self._fitted.size == lam.size:  # no constant feature
            return res._transform_matrix(x, warn=level, hint=hint)
        out = np.array(x, dtype=np.float64, copy=True)
        if res is not None:
            out[:, self._fitted] = res._transform_matrix(x[:, self._fitted], warn=level,
                                                         hint=hint)
        for j in np.setdiff1d(np.arange(lam.size), self._fitted):
            out[:, j] = fam.forward_unchecked(x[:, j], lam[j], self.families_[j])
        return out

    def _output(self, X: NDArray, Z: NDArray[np.float64]) -> NDArray:
        """``Z`` in ``X``'s float dtype; written into ``X`` itself when ``copy=False``."""
        if not self.copy and isinstance(X, np.ndarray) and X.flags.writeable:
            X[...] = Z
            return X
        return Z.astype(X.dtype, copy=False)

    def transform(self, X: ArrayLike) -> Any:
        """Apply the power transform (and the standardiser) with the fitted lambdas.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        X_trans : ndarray of shape (n_samples, n_features)
            A pandas or polars DataFrame instead after ``set_output(transform="pandas")`` or
            ``"polars"`` (scikit-learn's mechanism), with the feature names.

        Raises
        ------
        BoxCoxError
            A ``ValueError``: Box-Cox features with values <= 0, or transformed values
            beyond float64 (``TransformOverflowError``).
        """
        check_is_fitted(self)
        if is_dask(X):  # lazy: every partition transformed where it lives
            return self._dask_apply(X, self._transform_values)
        Xv = validate_data(self, X, ensure_2d=True, dtype=FLOAT_DTYPES, copy=self.copy,
                           force_writeable=True, ensure_all_finite="allow-nan", reset=False)
        return self._output(Xv, self._transform_values(np.asarray(Xv, dtype=np.float64),
                                                       warn=4))

    def _transform_values(self, x: NDArray[np.float64], warn: int | None = None
                          ) -> NDArray[np.float64]:
        """The power transform (and standardiser) of a float matrix (a copy)."""
        for j in np.flatnonzero(np.array(self.families_) == "boxcox"):
            if np.any(x[:, j] <= 0):
                check_feature(ColumnReport.of(x[:, j]), self.get_feature_names_out()[j],
                              "boxcox", spread=False, min_n=0)
        Z = self._forward(x, warn=warn)  # warn: the user's call, above set_output's wrapper
        if self.standardize:
            Z = self._scaler.transform(Z)
        return Z

    def inverse_transform(self, X: ArrayLike) -> NDArray:
        """Map transformed (and standardised) values back to the original scale.

        Values without an inverse (outside the transform's range at the fitted lambda, as
        scikit-learn's) come back as NaN, with a ``UserWarning`` naming the column.
        """
        check_is_fitted(self)
        if is_dask(X):  # lazy, partition by partition
            return self._dask_apply(X, self._inverse_values)
        Xv = check_array(X, copy=self.copy, dtype=FLOAT_DTYPES, force_writeable=True,
                         ensure_all_finite="allow-nan")
        if Xv.shape[1] != self.n_features_in_:
            raise BoxCoxError(f"X has {Xv.shape[1]} features, but PowerTransformer is "
                              f"expecting {self.n_features_in_} features as input.")
        return self._output(Xv, self._inverse_values(np.asarray(Xv, dtype=np.float64)))

    def _inverse_values(self, y: NDArray[np.float64]) -> NDArray[np.float64]:
        """The inverse standardiser and power transform of a float matrix (a copy)."""
        if self.standardize:
            y = self._scaler.inverse_transform(y.copy())
        out = np.array(y, copy=True)
        res = self._columns()
        if res is not None:
            out[:, self._fitted], bad = res._inverse_matrix(y[:, self._fitted])
            if bad.any():
                warnings.warn(res._inverse_problem(bad, out[:, self._fitted]) + "; they are "
                              "NaN (or infinite) in the output", UserWarning, stacklevel=3)
        lam = np.asarray(self.lambdas_, dtype=np.float64).reshape(-1)
        for j in np.setdiff1d(np.arange(lam.size), self._fitted):
            out[:, j] = fam.inverse_unchecked(y[:, j], lam[j], self.families_[j])
        return out

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.positive_only = self.method == "box-cox"
        return tags

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> str:
        """The fitted transformer as a JSON document (no pickle needed to deploy it).

        The full result is saved with it (its 95% intervals and tests included, computed
        now if they were not yet), without the training data.
        """
        check_is_fitted(self)
        scaler = getattr(self, "_scaler", None) if self.standardize else None
        state = PowerTransformerState(
            method=self.method, standardize=bool(self.standardize), copy=bool(self.copy),
            estimator=self.estimator, ymax=None if self.ymax is None else float(self.ymax),
            lmbda=self.lmbda,
            bounds=None if self.bounds is None else check_bounds(self.bounds)[0],  # type: ignore[index]
            feature_names=(tuple(str(c) for c in self.feature_names_in_)
                           if hasattr(self, "feature_names_in_") else None),
            lambdas=np.asarray(self.lambdas_, dtype=np.float64), families=self.families_,
            fitted=self._fitted.astype(np.int64),
            scaler_mean=None if scaler is None else scaler.mean_,
            scaler_scale=None if scaler is None else scaler.scale_,
            scaler_var=None if scaler is None else scaler.var_,
            scaler_n=(None if scaler is None else
                      np.broadcast_to(scaler.n_samples_seen_, scaler.mean_.shape)),
            result_class=None if self.result_ is None else type(self.result_).__name__,
            result=None if self.result_ is None else jsonio.document(self.result_),
        )
        return jsonio.dump(state)

    @classmethod
    def from_json(cls, source: Any) -> PowerTransformer:
        """A fitted transformer from :meth:`to_json`'s document (a JSON string, a dict or a
        path). Its ``result_`` reports as the original; new intervals need the data."""
        s = jsonio.load(PowerTransformerState, source)
        pt = cls(s.method, standardize=s.standardize, copy=s.copy, estimator=s.estimator,
                 ymax=s.ymax, lmbda=s.lmbda,  # type: ignore[arg-type]
                 bounds=None if s.bounds is None else (float(s.bounds[0]), float(s.bounds[1])))
        pt.n_features_in_ = int(s.lambdas.size)
        if s.feature_names is not None:
            pt.feature_names_in_ = np.asarray(s.feature_names, dtype=object)
        pt.lambdas_ = s.lambdas.copy()
        pt.families_ = tuple(s.families)
        pt._fitted = s.fitted.astype(np.intp)
        pt.result_ = None if s.result is None else _RESULTS[s.result_class].from_json(s.result)
        if s.standardize:
            sc = StandardScaler(copy=False).set_output(transform="default")
            sc.mean_, sc.scale_, sc.var_ = s.scaler_mean, s.scaler_scale, s.scaler_var
            sc.n_samples_seen_ = np.asarray(s.scaler_n, dtype=np.float64)
            sc.n_features_in_ = pt.n_features_in_
            pt._scaler = sc
        return pt
