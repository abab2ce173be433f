"""Stylized sensitivity curves of lambda estimators (Raymaekers & Rousseeuw 2021, s. 2.6).

``SC_n(z) = n (T(X_z) - T(X_0))`` where ``X_0`` holds the ``n - 1`` quantiles
``F^-1(i/n)`` of the model distribution (the inverse transform of the standard normal at the
true lambda) and ``X_z`` adds one point ``z`` (Andrews et al. 1972, p. 96). All ``z`` of the
grid are fitted at once, as the columns of one matrix. Estimators are those of
:mod:`.registry` (a name or a ``(method, {options})`` pair).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from .. import families as fam
from .._validation.columns import BoxCoxError, normalize_family
from ..base import jsonio
from ..base.jsonio import saved
from ..base.results import LIKELIHOOD, UNCERTAINTY, ResultBase, refusals
from ..base.summary import Summary, format_number
from .registry import EstimatorLike, Spec, lambdas, parse_specs

__all__ = ["SensitivityCurve", "sensitivity_curve", "describe_specs", "check_specs"]

_FAMILIES = ("boxcox", "yeojohnson")


def describe_specs(specs: list[Spec]) -> dict[str, Any]:
    """``{label: {"method": ..., "options": {...}}}``: what a result saves about its
    estimators (the options given; the others are the registry's defaults)."""
    return {s.label: {"method": s.method, "options": dict(s.given)} for s in specs}


def check_specs(estimators: dict[str, Any], labels: list[str]) -> None:
    """A loaded document's estimator descriptions must name exactly the table's estimators."""
    if list(estimators) != labels:
        raise jsonio._Bad(f"field 'estimators' names {list(estimators)} but the table has "
                          f"{labels}")


_NOT_A_LIKELIHOOD_FIT = (
    "a sensitivity curve is the estimates as one value moves (its table), not one fit"
)


@dataclass(frozen=True, repr=False, eq=False)
class SensitivityCurve(ResultBase):
    """Sensitivity curves of one or more estimators (build with
    :func:`boxcoxstat.sensitivity_curve`).

    Attributes
    ----------
    values : DataFrame
        ``SC_n(z)``: index ``z``, one column per estimator (named by its label, e.g.
        ``"mtl(h=0.9)"``).
    family : {"boxcox", "yeojohnson"}
    lmbda : float
        The model's true lambda.
    n : int
        Sample size including the added point.
    baseline : Series
        ``T(X_0)`` per estimator.

    Examples
    --------
    >>> import boxcoxstat as bcs
    >>> sc = bcs.sensitivity_curve(["mle", "rewml"], "yeojohnson", z=[-8.0, 0.5, 8.0])
    >>> back = bcs.SensitivityCurve.from_json(sc.to_json())
    >>> back.values.equals(sc.values), list(back.baseline.index)
    (True, ['mle', 'rewml'])
    """

    _vocabulary_why: ClassVar[dict[str, str]] = refusals(
        _NOT_A_LIKELIHOOD_FIT, "params", "nobs", *UNCERTAINTY, *LIKELIHOOD)

    values: pd.DataFrame = saved(jsonio.Frame())
    family: str = saved(jsonio.Str(choices=_FAMILIES))
    lmbda: float = saved(jsonio.Float())
    n: int = saved(jsonio.Int(minimum=10))
    baseline_values: NDArray[np.float64] = saved(jsonio.Floats())
    estimators: dict[str, Any] = saved(jsonio.Mapping_())

    @staticmethod
    def _check_loaded(values: dict[str, Any]) -> None:
        frame = values["values"]
        if list(frame.index.names) != ["z"]:
            raise jsonio._Bad("field 'values' must be indexed by 'z'")
        if len(values["baseline_values"]) != frame.shape[1]:
            raise jsonio._Bad(f"field 'baseline_values' has {len(values['baseline_values'])} "
                              f"entries but 'values' has {frame.shape[1]} columns")
        check_specs(values["estimators"], list(frame.columns))

    @property
    def baseline(self) -> pd.Series:
        """``T(X_0)``, the estimate without the added point, per estimator."""
        return pd.Series(self.baseline_values, index=list(self.values.columns), name="T(X0)")

    @property
    def x_axis(self) -> NDArray[np.float64]:
        """``z`` for Yeo-Johnson, ``log z`` for Box-Cox (as the paper's Fig. 5)."""
        z = self.values.index.to_numpy(dtype=np.float64)
        return np.log(z) if self.family == "boxcox" else z

    def plot(self, *, ax: Any = None) -> Any:
        """Draw the curves (see :func:`boxcoxstat.robust.plotting.plot_sensitivity`)."""
        from .plotting import plot_sensitivity

        return plot_sensitivity(self, ax=ax)

    def _zero_beyond(self, sc: NDArray[np.float64]) -> float:
        """Smallest ``t`` on the grid with ``SC = 0`` exactly wherever ``|x| >= t``."""
        t = np.abs(self.x_axis)
        nonzero = t[sc != 0]
        beyond = t[t > (nonzero.max() if nonzero.size else -np.inf)]
        return float(beyond.min()) if beyond.size else float("nan")

    def summary(self) -> Summary:
        """``T(X_0)``, the range of ``SC`` and where it is exactly 0, per estimator."""
        sc = self.values.to_numpy(dtype=np.float64)
        axis = "|log z|" if self.family == "boxcox" else "|z|"
        table = pd.DataFrame(
            {
                "T(X0)": self.baseline_values,
                "min SC": sc.min(axis=0),
                "max SC": sc.max(axis=0),
                "max |SC|": np.abs(sc).max(axis=0),
                f"SC = 0 for {axis} >=": [self._zero_beyond(sc[:, j])
                                          for j in range(sc.shape[1])],
            },
            index=list(self.values.columns),
        )
        x = self.x_axis
        label = "Box-Cox" if self.family == "boxcox" else "Yeo-Johnson"
        notes = [
            "SC_n(z) = n (T(X_z) - T(X_0)); X_0 holds the n - 1 quantiles F^-1(i/n) of the "
            f"{label} model at lambda = {format_number(self.lmbda)} (Raymaekers & Rousseeuw "
            "2021, section 2.6).",
            f"n = {self.n}; {x.size} values of {axis.strip('|')} from {format_number(x.min())} "
            f"to {format_number(x.max())}; the last column is empty where SC is not 0 at the "
            "ends of the grid.",
            "Robust estimators run without prestandardization unless their options say so.",
        ]
        return Summary(f"Sensitivity curves of lambda estimators ({label})", [("", table)],
                       notes, {})

    def __repr__(self) -> str:
        return (f"<SensitivityCurve {self.family}, lambda {format_number(self.lmbda)}, "
                f"n {self.n}: {', '.join(self.values.columns)}; {len(self.values)} points>")


def sensitivity_curve(
    estimators: EstimatorLike | Sequence[EstimatorLike] = "rewml",
    family: str = "yeojohnson",
    *,
    n: int = 100,
    z: ArrayLike | None = None,
    lmbda: float | None = None,
    **options: Any,
) -> SensitivityCurve:
    """Stylized sensitivity curve ``SC_n(z) = n (T(X_z) - T(X_0))`` of lambda estimators.

    Parameters
    ----------
    estimators : str, (str, dict) or list of them, default="rewml"
        Estimator(s) of :mod:`boxcoxstat.robust.registry`: ``"mle"``, ``"carroll"``,
        ``"rewml"``, ``"mtl"``, or a pair such as ``("mtl", {"h": 0.9})`` or
        ``("rewml", {"rectified": False})`` (the paper's RewMLnr). Their labels
        (``"mtl(h=0.9)"``) name the columns of ``values``. The same as :func:`simulate`'s
        ``estimators``.
    family : {"boxcox", "yeojohnson"}, default="yeojohnson"
    n : int, default=100
        Sample size including the added point ``z``.
    z : array_like, optional
        Points to add. Default: 201 values of ``z`` in [-10, 10] (Yeo-Johnson) or of
        ``log z`` in [-10, 10] (Box-Cox).
    lmbda : float, optional
        True lambda of the model: 1 (Yeo-Johnson, F = standard normal) or 0 (Box-Cox,
        lognormal), as in the paper.
    **options
        Options of a single estimator, as in :func:`boxcoxstat.fit` (``h=0.9`` for
        ``"mtl"``). Robust estimators run with ``prestandardize="none"`` unless their
        options say otherwise, so lambda refers to the data themselves.

    Returns
    -------
    SensitivityCurve

    Raises
    ------
    BoxCoxError
        An unknown estimator or an option it does not take (the message lists the valid ones),
        ``n < 10``, non-finite ``z`` (or ``z <= 0`` for Box-Cox).

    References
    ----------
    - Raymaekers, J. and Rousseeuw, P. J. (2021). Transforming variables to central normality.
      Machine Learning 113, 4953-4975.

    Examples
    --------
    >>> import boxcoxstat as bcs
    >>> sc = bcs.sensitivity_curve(["mle", "rewml"], "yeojohnson", z=[-8.0, 0.5, 8.0])
    >>> sc.values.round(2).abs().max().gt(1).tolist()  # ML moves, RewML ignores z = -+8
    [True, True]
    >>> float(sc.values.loc[8.0, "rewml"])
    0.0
    >>> list(bcs.sensitivity_curve("mtl", "yeojohnson", z=[8.0], h=0.9).values.columns)
    ['mtl(h=0.9)']
    """
    family = normalize_family(family, allow_auto=False)
    specs = parse_specs(estimators, **options)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 10:
        raise BoxCoxError(f"n must be an integer of at least 10, got {n!r}")
    n = int(n)
    if lmbda is not None and (isinstance(lmbda, bool) or not isinstance(
            lmbda, (int, float, np.integer, np.floating)) or not np.isfinite(lmbda)):
        raise BoxCoxError(f"lmbda must be a finite number, got {lmbda!r}")
    lam = (1.0 if family == "yeojohnson" else 0.0) if lmbda is None else float(lmbda)
    grid = np.linspace(-10.0, 10.0, 201)
    zz = np.asarray(
        (grid if family == "yeojohnson" else np.exp(grid)) if z is None else z, dtype=np.float64
    ).reshape(-1)
    if zz.size == 0 or not np.all(np.isfinite(zz)) or (family == "boxcox" and np.any(zz <= 0)):
        raise BoxCoxError("z must be finite (and strictly positive for Box-Cox)")
    x0 = fam.inverse_transform(stats.norm.ppf(np.arange(1, n) / n), lam, family)
    xz = np.vstack([np.repeat(x0[:, None], zz.size, axis=1), zz[None, :]])
    values, base = {}, []
    for spec in specs:
        run = spec.with_defaults(prestandardize="none")
        t0 = lambdas(x0[:, None], family, run)[0]
        values[spec.label] = n * (lambdas(xz, family, run) - t0)
        base.append(t0)
    frame = pd.DataFrame(values, index=pd.Index(zz, name="z"))
    return SensitivityCurve(frame, family, lam, n, np.array(base), describe_specs(specs))
