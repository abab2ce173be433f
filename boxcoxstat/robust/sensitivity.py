"""Stylized sensitivity curves of lambda estimators (Raymaekers & Rousseeuw 2021, s. 2.6).

Layer 4. ``SC_n(z) = n (T(X_z) - T(X_0))`` where ``X_0`` holds the ``n - 1`` quantiles
``F^-1(i/n)`` of the model distribution (the inverse transform of the standard normal at the
true lambda) and ``X_z`` adds one point ``z`` (Andrews et al. 1972, p. 96). All ``z`` of the
grid are fitted at once, as the columns of one matrix.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from .. import families as fam
from .._validation import BoxCoxError, normalize_family
from ..core.profile import SampleProfile
from ..core.solve import solve
from .estimators import robust_lambda

__all__ = ["SensitivityCurve", "sensitivity_curve", "estimate_columns", "estimator_names"]


def estimator_names() -> tuple[str, ...]:
    """The estimator labels understood by :func:`estimate_columns` (``mtlNN`` for any NN)."""
    return ("mle", "carroll", "rewml", "rewmlnr", "mtl95", "mtl90", "mtl85")


def estimate_columns(
    x: NDArray[np.float64], family: str, estimator: str, **tuning: Any
) -> NDArray[np.float64]:
    """lambda of every column of ``x`` by one estimator of the paper's section 3.1.

    ``"mle"`` (exact ML), ``"carroll"``, ``"rewml"``, ``"rewmlnr"`` (RewML whose first step
    uses the plain transform) and ``"mtlNN"`` (trimmed likelihood keeping NN% of the points).
    Robust estimators get ``prestandardize="none"`` unless ``tuning`` says otherwise, so the
    estimate refers to ``x`` itself.
    """
    key = estimator.lower()
    if key == "mle":
        return np.asarray(solve(SampleProfile.from_array(x, family)).lmbda, dtype=np.float64)
    opts = {"prestandardize": "none", **tuning}
    if key == "rewmlnr":
        return robust_lambda(x, family, "rewml", rectified=False, **opts).lmbda
    mtl = re.fullmatch(r"mtl(\d{2})", key)
    if mtl:
        return robust_lambda(x, family, "mtl", h=int(mtl.group(1)) / 100, **opts).lmbda
    if key in ("rewml", "carroll"):
        return robust_lambda(x, family, key, **opts).lmbda
    raise BoxCoxError(
        f"unknown estimator {estimator!r}; use one of {list(estimator_names())} "
        "(mtlNN for any two-digit percentage)"
    )


@dataclass(frozen=True)
class SensitivityCurve:
    """Sensitivity curves: ``values`` (DataFrame, index ``z``, one column per estimator)."""

    values: pd.DataFrame
    family: str
    lmbda: float
    n: int
    baseline: pd.Series

    @property
    def x_axis(self) -> NDArray[np.float64]:
        """``z`` for Yeo-Johnson, ``log z`` for Box-Cox (as the paper's Fig. 5)."""
        z = self.values.index.to_numpy(dtype=np.float64)
        return np.log(z) if self.family == "boxcox" else z

    def plot(self, *, ax: Any = None):
        """Draw the curves (see :func:`boxcoxstat.robust.plotting.plot_sensitivity`)."""
        from .plotting import plot_sensitivity

        return plot_sensitivity(self, ax=ax)


def sensitivity_curve(
    method: str | Sequence[str] = "rewml",
    family: str = "yeojohnson",
    *,
    n: int = 100,
    z: ArrayLike | None = None,
    lmbda: float | None = None,
    **tuning: Any,
) -> SensitivityCurve:
    """Stylized sensitivity curve ``SC_n(z) = n (T(X_z) - T(X_0))`` of lambda estimators.

    Parameters
    ----------
    method : str or list of str, default="rewml"
        Estimator(s): ``"mle"``, ``"carroll"``, ``"rewml"``, ``"rewmlnr"``, ``"mtl95"``...
    family : {"boxcox", "yeojohnson"}, default="yeojohnson"
    n : int, default=100
        Sample size including the added point ``z``.
    z : array_like, optional
        Points to add. Default: 201 values of ``z`` in [-10, 10] (Yeo-Johnson) or of
        ``log z`` in [-10, 10] (Box-Cox).
    lmbda : float, optional
        True lambda of the model: 1 (Yeo-Johnson, F = standard normal) or 0 (Box-Cox,
        lognormal), as in the paper.
    **tuning
        Passed to the robust estimators.

    Returns
    -------
    SensitivityCurve

    Examples
    --------
    >>> import boxcoxstat as bcs
    >>> sc = bcs.sensitivity_curve(["mle", "rewml"], "yeojohnson", z=[-8.0, 0.5, 8.0])
    >>> sc.values.round(2).abs().max().gt(1).tolist()  # ML moves, RewML ignores z = -+8
    [True, True]
    >>> float(sc.values.loc[8.0, "rewml"])
    0.0
    """
    family = normalize_family(family, allow_auto=False)
    methods = [method] if isinstance(method, str) else list(method)
    if int(n) < 10:
        raise BoxCoxError(f"n must be at least 10, got {n!r}")
    n = int(n)
    lam = (1.0 if family == "yeojohnson" else 0.0) if lmbda is None else float(lmbda)
    grid = np.linspace(-10.0, 10.0, 201)
    zz = np.asarray(
        (grid if family == "yeojohnson" else np.exp(grid)) if z is None else z, dtype=np.float64
    ).reshape(-1)
    if not np.all(np.isfinite(zz)) or (family == "boxcox" and np.any(zz <= 0)):
        raise BoxCoxError("z must be finite (and strictly positive for Box-Cox)")
    x0 = fam.inverse_transform(stats.norm.ppf(np.arange(1, n) / n), lam, family)
    xz = np.vstack([np.repeat(x0[:, None], zz.size, axis=1), zz[None, :]])
    values = {}
    base = {}
    for m in methods:
        t0 = estimate_columns(x0[:, None], family, m, **tuning)[0]
        values[m] = n * (estimate_columns(xz, family, m, **tuning) - t0)
        base[m] = t0
    return SensitivityCurve(pd.DataFrame(values, index=pd.Index(zz, name="z")), family, lam, n,
                            pd.Series(base, name="T(X0)"))
