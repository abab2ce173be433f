"""Result of a robust power-transformation fit (RewML, Carroll, MTL).

Layer 5. ``RobustTransformResult`` extends
:class:`~boxcoxstat.univariate.results.PowerTransformResult` with the robust diagnostics: final
weights, flagged rows, the robust location and scale of the transformed data, standardized
transformed values, the outlier cut-offs carried back to the original scale, and the
prestandardization that ``transform`` applies to new data. Likelihood inference (intervals,
tests, profiles) belongs to maximum likelihood and is refused.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .. import families as fam
from .._validation import BoxCoxError, TransformOverflowError
from ..base.summary import Summary, format_number
from ..univariate.results import PowerTransformResult, _shape
from . import estimators as rb

__all__ = ["RobustTransformResult"]

_METHOD_LABEL = {"rewml": "reweighted ML (RewML)", "carroll": "Carroll's robustified ML",
                 "mtl": "maximum trimmed likelihood (MTL)"}
_FAMILY_LABEL = {"boxcox": "Box-Cox", "yeojohnson": "Yeo-Johnson"}


def _empty() -> NDArray[np.float64]:
    return np.empty(0)


@dataclass(frozen=True)
class RobustTransformResult(PowerTransformResult):
    """Robust power transformation of one or more columns (build with ``bcs.fit(method=...)``).

    ``lmbda`` refers to the *prestandardized* data (Yeo-Johnson: ``(x - median)/MAD``;
    Box-Cox: ``x / median``, as cellWise 2.5.3), which ``transform`` applies to new data too.
    """

    lmbda_initial: NDArray[np.float64] = field(default_factory=_empty)
    objective_values: NDArray[np.float64] = field(default_factory=_empty)
    weights_matrix: NDArray[np.float64] = field(default_factory=_empty, repr=False)
    location_values: NDArray[np.float64] = field(default_factory=_empty)
    scale_values: NDArray[np.float64] = field(default_factory=_empty)
    muhat_values: NDArray[np.float64] = field(default_factory=_empty)
    sigmahat_values: NDArray[np.float64] = field(default_factory=_empty)
    locx_values: NDArray[np.float64] = field(default_factory=_empty)
    scalex_values: NDArray[np.float64] = field(default_factory=_empty)
    prestandardize: str = "cellwise"
    cutoff: float = float("nan")
    index: Any = field(default=None, repr=False, compare=False)
    tuning: dict[str, Any] | None = field(default=None, repr=False, compare=False)

    # ----------------------------------------------------------------- refused inference
    @cached_property
    def _inference(self) -> dict[str, NDArray[np.float64]]:
        raise BoxCoxError(
            f"likelihood inference (standard errors, intervals, tests, profiles) is available "
            f"for method='mle' only; this fit used method={self.method!r}"
        )

    def profile(self, column: str | int | None = None, lmbda: Any = None):
        """Refused: the profile likelihood belongs to ``method="mle"``."""
        return self._inference

    # ----------------------------------------------------------------- diagnostics
    def _rows(self, values: NDArray) -> Any:
        if self.kind == "series":
            return pd.Series(values[:, 0], index=self.index, name=self.names[0])
        if self.kind == "frame":
            return pd.DataFrame(values, index=self.index, columns=list(self.names))
        return values[:, 0].copy() if self.kind == "array1d" else values.copy()

    def _need_data(self) -> None:
        if self.data is None:
            raise BoxCoxError("this result holds no data (it was loaded from JSON); weights, "
                              "outliers, standardized values and plots need a refit")

    @property
    def weights(self) -> Any:
        """Final 0/1 weights (1 = used in the last weighted ML step; NaN where missing)."""
        self._need_data()
        return self._rows(self.weights_matrix)

    def _labels(self, j: int) -> list:
        rows = np.flatnonzero(self.weights_matrix[:, j] == 0)
        if self.index is None:
            return [int(i) for i in rows]
        return list(self.index[rows])

    @property
    def outliers(self) -> Any:
        """Row labels (positions for NumPy input) of flagged rows: a list for one column,
        a dict ``{column: list}`` for several."""
        self._need_data()
        if len(self.names) == 1:
            return self._labels(0)
        return {n: self._labels(j) for j, n in enumerate(self.names)}

    @property
    def location(self) -> Any:
        """Huber location of the transformed prestandardized data (defines the weights)."""
        return _shape(self.location_values, self.names, self.kind, "location")

    @property
    def scale(self) -> Any:
        """Huber scale of the transformed prestandardized data (defines the weights)."""
        return _shape(self.scale_values, self.names, self.kind, "scale")

    @property
    def objective(self) -> Any:
        """Robust criterion (Raymaekers & Rousseeuw 2021, eq. 5) at the estimate, all points."""
        return _shape(self.objective_values, self.names, self.kind, "objective")

    def _pre(self, x: NDArray, j: int) -> NDArray:
        return rb.apply_prestandardization(x, self.locx_values[j], self.scalex_values[j],
                                           self.families[j], self.prestandardize)

    def transform(self, data: Any, *, standardized: bool = False) -> Any:
        """Prestandardize ``data`` as in the fit and transform it with the fitted powers.

        With ``standardized=True`` the result is further centred and scaled by the mean and
        sd of the transformed weight-1 points (cellWise's ``transfo_newdata``).
        """
        x, like = self._as_matrix(data)
        out = np.full_like(x, np.nan)
        for j, name in enumerate(self.names):
            ok = ~np.isnan(x[:, j])
            u = self._pre(x[ok, j], j)
            if self.families[j] == "boxcox" and np.any(~(u > 0)):
                raise BoxCoxError(
                    f"Box-Cox requires strictly positive data, but column {name!r} has values "
                    "<= 0"
                )
            try:
                y = fam.transform(u, self.lmbda_used[j], self.families[j])
            except TransformOverflowError:
                raise TransformOverflowError(
                    f"column {name!r}: transformed values overflow float64 at lambda = "
                    f"{self.lmbda_used[j]:.6g}"
                ) from None
            if standardized:
                y = (y - self.muhat_values[j]) / self.sigmahat_values[j]
            out[ok, j] = y
        return self._wrap(out, like)

    def inverse_transform(self, data: Any, *, standardized: bool = False) -> Any:
        """Map transformed values back to the original scale (undoing the prestandardization)."""
        y, like = self._as_matrix(data)
        out = np.full_like(y, np.nan)
        for j, name in enumerate(self.names):
            ok = ~np.isnan(y[:, j])
            v = y[ok, j]
            if standardized:
                v = v * self.sigmahat_values[j] + self.muhat_values[j]
            try:
                u = fam.inverse_transform(v, self.lmbda_used[j], self.families[j])
            except BoxCoxError as err:
                raise type(err)(f"column {name!r}: {err}") from None
            out[ok, j] = rb.undo_prestandardization(
                u, self.locx_values[j], self.scalex_values[j], self.families[j],
                self.prestandardize)
        return self._wrap(out, like)

    @property
    def standardized(self) -> Any:
        """The fitted data transformed and standardized by the weight-1 mean and sd
        (cellWise's ``Y``; Raymaekers & Rousseeuw 2021, section 4.2)."""
        if self.data is None:
            raise BoxCoxError("this result holds no data")
        return self._rows(np.asarray(self._standardized_matrix()))

    def _standardized_matrix(self) -> NDArray:
        if self.data is None:
            raise BoxCoxError("this result holds no data")
        out = np.full_like(self.data, np.nan)
        for j in range(len(self.names)):
            ok = ~np.isnan(self.data[:, j])
            y = fam.forward_unchecked(self._pre(self.data[ok, j], j), self.lmbda_used[j],
                                      self.families[j])
            out[ok, j] = (y - self.muhat_values[j]) / self.sigmahat_values[j]
        return out

    @property
    def cutoffs(self) -> pd.DataFrame:
        """Outlier cut-offs on the original scale: ``location -+ z * scale`` on the transformed
        scale (``z = Phi^-1((1 + quant)/2)``) mapped back through the inverse transform and the
        prestandardization. Beyond the transform's range a cut-off is 0 (Box-Cox) or -inf/inf.
        """
        p = len(self.names)
        lo, hi = np.empty(p), np.empty(p)
        for j in range(p):
            f, lam = self.families[j], self.lmbda_used[j]
            ends = self.location_values[j] + np.array([-1.0, 1.0]) * self.cutoff * \
                self.scale_values[j]
            u = fam.inverse_unchecked(ends, lam, f)
            x = rb.undo_prestandardization(u, self.locx_values[j], self.scalex_values[j], f,
                                           self.prestandardize)
            lo[j] = x[0] if np.isfinite(x[0]) else (0.0 if f == "boxcox" else -np.inf)
            hi[j] = x[1] if np.isfinite(x[1]) else np.inf
        return pd.DataFrame({"lower": lo, "upper": hi}, index=list(self.names))

    # ----------------------------------------------------------------- reports
    def summary(self, alpha: float = 0.05) -> Summary:
        """Estimates, robust location/scale, cut-offs and the flagged rows of every column.

        ``alpha`` is accepted for a uniform interface; robust fits report no intervals.
        """
        cut = self.cutoffs
        nflag = np.nansum(self.weights_matrix == 0, axis=0).astype(np.int64)
        if self.data is None:  # loaded from JSON: weights are not stored
            nflag = np.full(len(self.names), -1)
        est = pd.DataFrame(
            {
                "lambda": self.lmbda_used,
                "step 1": self.lmbda_initial,
                "objective": self.objective_values,
                "location": self.location_values,
                "scale": self.scale_values,
            },
            index=list(self.names),
        )
        info = pd.DataFrame(
            {
                "family": list(self.families),
                "n": self.nobs_values,
                "missing": self.n_missing,
                "flagged": nflag,
                "lower cut": cut["lower"].to_numpy(),
                "upper cut": cut["upper"].to_numpy(),
            },
            index=list(self.names),
        )
        pre = {"cellwise": "Yeo-Johnson on (x - median)/MAD, Box-Cox on x/median",
               "paper": "Yeo-Johnson on (x - median)/MAD, Box-Cox on "
                        "exp((log x - median)/MAD of log x)",
               "none": "none"}[self.prestandardize]
        notes = [
            f"Prestandardization: {pre}; lambda refers to the prestandardized data.",
            f"Flagged: |y - location| > {self.cutoff:.4f} * scale on the transformed scale; "
            "cut-offs are on the original scale.",
        ]
        if self.method == "rewml":
            notes.append("step 1: Tukey bisquare criterion on the rectified transform; then "
                         f"{self.tuning.get('nbsteps', 2) if self.tuning else 2} reweighted "
                         "ML steps (Raymaekers & Rousseeuw 2021; cellWise 2.5.3).")
        if self.data is None:
            notes.append("Loaded from JSON: the flagged rows are not stored (shown as -1).")
        if self.requested_family == "auto":
            notes += [f"{n}: {r}" for n, r in zip(self.names, self.family_reasons, strict=True)]
        for j, n in enumerate(self.names):
            labels = self._labels(j) if self.data is not None else []
            if labels:
                shown = ", ".join(str(v) for v in labels[:20])
                more = f" ... ({len(labels)} in all)" if len(labels) > 20 else ""
                notes.append(f"{n}: flagged rows {shown}{more}")
            if not self.converged_values[j]:
                notes.append(f"{n}: the lambda interval kept growing; treat lambda with caution")
        fams = " and ".join(_FAMILY_LABEL[f] for f in sorted(set(self.families)))
        title = f"{fams} power transformation, {_METHOD_LABEL[self.method]}"
        return Summary(title, [("", est), ("", info)], notes, {})

    def __repr__(self) -> str:
        pairs = ", ".join(
            f"{n}={format_number(v)}" for n, v in zip(self.names, self.lmbda_used, strict=True)
        )
        nflag = int(np.nansum(self.weights_matrix == 0))
        return (f"<RobustTransformResult {self.method} {'/'.join(sorted(set(self.families)))}: "
                f"lmbda {pairs}; {nflag} flagged>")

    def qqplot(self, column: str | int | None = None, *, axes=None):
        """QQ plots before and after the transform, flagged points marked in red."""
        from .plotting import qqplot_robust

        return qqplot_robust(self, column, axes=axes)

    _ROBUST_JSON = (
        "lmbda_mle", "lmbda_used", "nobs_values", "n_missing", "converged_values",
        "lambda_limits", "lmbda_initial", "objective_values", "location_values",
        "scale_values", "muhat_values", "sigmahat_values", "locx_values", "scalex_values",
    )

    def to_json(self) -> str:
        """Serialise everything needed to transform and report, without the data and weights.

        Examples
        --------
        >>> import numpy as np, boxcoxstat as bcs
        >>> r = bcs.fit(np.exp(np.linspace(-2, 2, 50)), method="rewml")
        >>> back = bcs.RobustTransformResult.from_json(r.to_json())
        >>> bool(np.allclose(back.transform([1.0, 2.0]), r.transform([1.0, 2.0])))
        True
        """
        doc: dict[str, Any] = {
            "format": "boxcoxstat.RobustTransformResult/1",
            "names": list(self.names), "kind": self.kind, "families": list(self.families),
            "family_reasons": list(self.family_reasons),
            "requested_family": self.requested_family, "method": self.method,
            "prestandardize": self.prestandardize, "cutoff": self.cutoff,
            "tuning": {k: list(v) if isinstance(v, tuple) else v
                       for k, v in (self.tuning or {}).items()},
        }
        for name in self._ROBUST_JSON:
            doc[name] = np.asarray(getattr(self, name)).tolist()
        return json.dumps(doc, allow_nan=True)

    @classmethod
    def from_json(cls, text: str) -> RobustTransformResult:
        """Rebuild a result written by :meth:`to_json` (no data, so no weights or outliers)."""
        doc = json.loads(text)
        if doc.get("format") != "boxcoxstat.RobustTransformResult/1":
            raise BoxCoxError("not a boxcoxstat RobustTransformResult JSON document")
        arrays: dict[str, Any] = {
            name: np.asarray(doc[name], dtype=bool if name == "converged_values" else None)
            for name in cls._ROBUST_JSON
        }
        p = len(doc["names"])
        return cls(
            names=tuple(doc["names"]), kind=doc["kind"], families=tuple(doc["families"]),
            family_reasons=tuple(doc["family_reasons"]),
            requested_family=doc["requested_family"], method=doc["method"], ymax=None,
            nll_mle=np.full(p, np.nan), llf_values=np.full(p, np.nan), data=None,
            weights_matrix=np.empty((0, p)), prestandardize=doc["prestandardize"],
            cutoff=float(doc["cutoff"]), tuning=doc["tuning"], **arrays,
        )
