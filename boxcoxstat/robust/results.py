"""Result of a robust power-transformation fit (RewML, Carroll, MTL).

``RobustTransformResult`` is a sibling of
:class:`~boxcoxstat.univariate.results.PowerTransformResult` on the shared
:class:`~boxcoxstat.base.transform.ColumnTransforms`: the robust diagnostics (final weights,
flagged rows, the robust location and scale of the transformed data, standardized transformed
values, the outlier cut-offs carried back to the original scale) and the prestandardization
that ``transform`` applies to new data. Likelihood inference (intervals, tests, profiles)
belongs to maximum likelihood and raises the package's error saying so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .. import families as fam
from .._validation.columns import BoxCoxError, new_columns
from ..base import jsonio
from ..base.jsonio import saved
from ..base.results import LIKELIHOOD, refusals
from ..base.summary import Summary, format_number
from ..base.transform import ColumnTransforms, Provenance
from . import huber as rb
from .registry import METHODS, ROBUST_METHODS

__all__ = ["RobustTransformResult"]

_NBSTEPS = METHODS["rewml"].options["nbsteps"].default
_FAMILY_LABEL = {"boxcox": "Box-Cox", "yeojohnson": "Yeo-Johnson"}
_NO_LIKELIHOOD = ("likelihood inference (standard errors, intervals, tests, profiles) belongs "
                  "to maximum likelihood; fit with method='mle' for it")


def _plain_label(v: Any) -> Any:
    """A row label as JSON writes it: numbers and strings as they are, anything else as text."""
    if isinstance(v, np.generic):
        v = v.item()
    return v if isinstance(v, (int, float, str)) and not isinstance(v, bool) else str(v)


@dataclass(frozen=True, repr=False)
class RobustTransformResult(ColumnTransforms):
    """Robust power transformation of one or more columns (build with ``bcs.fit(method=...)``).

    A sibling of :class:`~boxcoxstat.PowerTransformResult` on the same base: the same
    ``lmbda``, ``params``, ``transform``, ``summary()`` and JSON, plus the robust diagnostics
    (``weights``, ``outliers``, ``cutoffs``, ``standardized``). ``lmbda`` refers to the
    *prestandardized* data (Yeo-Johnson: ``(x - median)/MAD``; Box-Cox: ``x / median``, as
    cellWise 2.5.3), which ``transform`` applies to new data too. Likelihood inference
    (``conf_int``, ``test``, ``bse``, ``profile``) raises the package's error saying why.

    Columns that ``bcs.fit`` could not fit robustly -- constant ones, and ones whose MAD is
    zero (at least half the values equal), which cellWise's ``transfo`` also drops -- are
    not columns of the result: ``skipped`` maps each to the reason, ``summary()`` and the
    ``repr`` report them, and ``lmbda``, ``weights``, ``transform`` and the rest cover the
    fitted columns only (a DataFrame passed to ``transform`` is matched by name, so its
    skipped columns are ignored). Every fitted column has the numbers it has when fitted
    alone.

    Examples
    --------
    >>> import numpy as np, boxcoxstat as bcs
    >>> r = bcs.fit(np.exp(np.linspace(-2, 2, 50)), method="rewml")
    >>> back = bcs.RobustTransformResult.from_json(r.to_json())
    >>> bool(np.allclose(back.transform([1.0, 2.0]), r.transform([1.0, 2.0])))
    True

    A column with MAD 0 is left out and reported:

    >>> import pandas as pd
    >>> x = np.exp(np.linspace(-2, 2, 50))
    >>> df = pd.DataFrame({"a": x, "flat": np.r_[np.full(30, 1.0), x[:20]]})
    >>> r = bcs.fit(df, method="rewml")
    >>> list(r.lmbda.index), list(r.skipped)
    (['a'], ['flat'])
    """

    _vocabulary_why: ClassVar[dict[str, str]] = refusals(_NO_LIKELIHOOD, *LIKELIHOOD)

    _family_reasons: tuple[str, ...] = saved(jsonio.Strs(length_of="names"))
    _requested_family: str = saved(jsonio.Str(choices=("boxcox", "yeojohnson", "auto")))
    method: str = saved(jsonio.Str(choices=ROBUST_METHODS))
    _nobs_values: NDArray[np.int64] = saved(jsonio.Ints(length_of="names"))
    n_missing: NDArray[np.int64] = saved(jsonio.Ints(length_of="names"))
    _converged_values: NDArray[np.bool_] = saved(jsonio.Bools(length_of="names"))
    _lambda_limits: NDArray[np.float64] = saved(jsonio.Matrix(length_of="names"))
    _lmbda_initial: NDArray[np.float64] = saved(jsonio.Floats(length_of="names"))
    _objective_values: NDArray[np.float64] = saved(jsonio.Floats(length_of="names"))
    _location_values: NDArray[np.float64] = saved(jsonio.Floats(length_of="names"))
    _scale_values: NDArray[np.float64] = saved(jsonio.Floats(length_of="names"))
    _muhat_values: NDArray[np.float64] = saved(jsonio.Floats(length_of="names"))
    _sigmahat_values: NDArray[np.float64] = saved(jsonio.Floats(length_of="names"))
    _locx_values: NDArray[np.float64] = saved(jsonio.Floats(length_of="names"))
    _scalex_values: NDArray[np.float64] = saved(jsonio.Floats(length_of="names"))
    _prestandardize: str = saved(jsonio.Str(choices=rb.PRESTANDARDIZE))
    _cutoff: float = saved(jsonio.Float())
    # median and MAD (R's 1.4826) of each column's transformed prestandardized values: the
    # paper's cut-offs (cutoffs(rule="paper"))
    _median_values: NDArray[np.float64] = saved(jsonio.Floats(length_of="names"))
    _mad_values: NDArray[np.float64] = saved(jsonio.Floats(length_of="names"))
    _tuning: dict[str, Any] = saved(jsonio.Mapping_(), compare=False)
    # the flagged rows by column (labels, or positions for NumPy input): computed from the
    # weights, saved so that a loaded result still names its outliers
    _flagged: dict[str, list[Any]] | None = saved(jsonio.Mapping_(optional=True), default=None,
                                                  compare=False)
    # input columns left out (constant, or MAD 0), each with the reason, in input order
    skipped: dict[str, str] = saved(jsonio.Mapping_(), default_factory=dict)
    # the fitted data, their row labels and the final 0/1 weights (not saved)
    _source: Provenance = field(default_factory=Provenance, repr=False, compare=False)

    # ----------------------------------------------------------------- refused inference
    def conf_int(self, alpha: float = 0.05, interval: str = "profile") -> Any:
        """Not available: robust fits have no likelihood interval (see the class notes)."""
        self._not_available("conf_int", _NO_LIKELIHOOD)

    def test(self, lmbda0: Any) -> Any:
        """Not available: robust fits have no likelihood-ratio test."""
        self._not_available("test", _NO_LIKELIHOOD)

    @property
    def bse(self) -> Any:
        """Not available: robust fits have no standard error from the likelihood."""
        self._not_available("bse", _NO_LIKELIHOOD)

    def profile(self, column: str | int | None = None, lmbda: Any = None) -> Any:
        """Not available: the profile likelihood belongs to ``method="mle"``."""
        self._not_available("profile", _NO_LIKELIHOOD)

    @property
    def pvalues(self) -> Any:
        """Not available: robust fits have no standard error, so no Wald p-value."""
        self._not_available("pvalues", _NO_LIKELIHOOD)

    def cov_params(self) -> Any:
        """Not available: robust fits have no covariance from the likelihood."""
        self._not_available("cov_params", _NO_LIKELIHOOD)

    @property
    def nobs(self) -> Any:
        """Number of observations used (missing values dropped)."""
        return self._shape(self._nobs_values, "nobs")

    @property
    def converged(self) -> Any:
        """Whether the lambda search interval stopped growing (cellWise's expansion)."""
        return self._shape(self._converged_values, "converged")

    # ----------------------------------------------------------------- diagnostics
    def _rows(self, values: NDArray) -> Any:
        if self._layout == "series":
            return pd.Series(values[:, 0], index=self._source.index, name=self.names[0])
        if self._layout == "frame":
            return pd.DataFrame(values, index=self._source.index, columns=list(self.names))
        return values[:, 0].copy() if self._layout == "array1d" else values.copy()

    def _need_data(self, what: str) -> NDArray[np.float64]:
        if self._source.data is None or self._source.weights is None:
            self._not_available(what, "the result holds no data (it was loaded from JSON); "
                                "weights, outliers, standardized values and plots need a refit")
        return self._source.weights

    @property
    def weights(self) -> Any:
        """Final 0/1 weights (1 = used in the last weighted ML step; NaN where missing)."""
        return self._rows(self._need_data("weights"))

    def _labels(self, j: int) -> list:
        if self._source.weights is None and self._flagged is not None:
            return list(self._flagged[self.names[j]])
        rows = np.flatnonzero(self._need_data("outliers")[:, j] == 0)
        if self._source.index is None:
            return [int(i) for i in rows]
        return list(self._source.index[rows])

    def _json_value(self, name: str) -> Any:
        if name == "_flagged" and self._flagged is None and self._source.weights is not None:
            return {n: [_plain_label(v) for v in self._labels(j)]
                    for j, n in enumerate(self.names)}
        return getattr(self, name)

    @staticmethod
    def _check_loaded(values: dict[str, Any]) -> None:
        skipped = values.get("skipped", {})
        if not all(isinstance(v, str) for v in skipped.values()) or \
                set(skipped) & set(values["names"]):
            raise jsonio._Bad("field 'skipped' must map columns that are not fitted to the "
                              "reason (a string)")
        flagged = values.get("flagged")
        if flagged is not None and (sorted(flagged) != sorted(values["names"]) or not all(
                isinstance(v, list) for v in flagged.values())):
            raise jsonio._Bad("field 'flagged' must map every column name to a list of rows")

    @property
    def outliers(self) -> Any:
        """Row labels (positions for NumPy input) of flagged rows: a list for one column,
        a dict ``{column: list}`` for several."""
        if len(self.names) == 1:
            return self._labels(0)
        return {n: self._labels(j) for j, n in enumerate(self.names)}

    @property
    def location(self) -> Any:
        """Huber location of the transformed prestandardized data (defines the weights)."""
        return self._shape(self._location_values, "location")

    @property
    def scale(self) -> Any:
        """Huber scale of the transformed prestandardized data (defines the weights)."""
        return self._shape(self._scale_values, "scale")

    @property
    def objective(self) -> Any:
        """Robust criterion (Raymaekers & Rousseeuw 2021, eq. 5) at the estimate, all points."""
        return self._shape(self._objective_values, "objective")

    def _prepare(self, x: NDArray[np.float64], j: int) -> NDArray[np.float64]:
        u = rb.apply_prestandardization(x, self._locx_values[j], self._scalex_values[j],
                                        self._families[j], self._prestandardize)
        if self._families[j] == "boxcox" and np.any(~(u > 0)):
            raise BoxCoxError("Box-Cox requires strictly positive prestandardized values")
        return u

    def _unprepare(self, u: NDArray[np.float64], j: int) -> NDArray[np.float64]:
        return rb.undo_prestandardization(u, self._locx_values[j], self._scalex_values[j],
                                          self._families[j], self._prestandardize)

    def transform(self, data: Any, *, standardized: bool = False) -> Any:
        """Prestandardize ``data`` as in the fit and transform it with the fitted powers.

        With ``standardized=True`` the result is further centred and scaled by the mean and
        sd of the transformed weight-1 points (cellWise's ``transfo_newdata``). Only the
        fitted columns are transformed: a DataFrame's other columns (the ``skipped`` ones
        among them) are ignored; other input must hold the fitted columns only.
        """
        self._refuse_skipped_width(data)
        out = self._transform_matrix(new_columns(data, self.names, self._families))
        if standardized:
            out = (out - self._muhat_values) / self._sigmahat_values
        return self._wrap(out, data)

    def _refuse_skipped_width(self, data: Any) -> None:
        """Array input as wide as the fitted data *with* the skipped columns: say which
        columns were left out instead of only counting columns."""
        if not self.skipped or hasattr(data, "columns") or hasattr(data, "name"):
            return
        shape = np.shape(data) if isinstance(data, (list, tuple, np.ndarray)) else ()
        if len(shape) == 2 and shape[1] == len(self.names) + len(self.skipped):
            raise BoxCoxError(
                f"{shape[1]} columns given, but the fit left out {list(self.skipped)} "
                f"(see .skipped: constant or MAD 0) and transforms the other "
                f"{len(self.names)}; pass those columns only, or a DataFrame (its columns are "
                "matched by name)")

    def inverse_transform(self, data: Any, *, standardized: bool = False) -> Any:
        """Map transformed values back to the original scale (undoing the prestandardization;
        with ``standardized=True`` also the post-standardization)."""
        if standardized:
            y = new_columns(data, self.names, None) * self._sigmahat_values + self._muhat_values
            data = self._wrap(y, data)
        return super().inverse_transform(data)

    @property
    def standardized(self) -> Any:
        """The fitted data transformed and standardized by the weight-1 mean and sd
        (cellWise's ``Y``; Raymaekers & Rousseeuw 2021, section 4.2)."""
        self._need_data("standardized")
        return self._rows(np.asarray(self._standardized_matrix()))

    def _standardized_matrix(self) -> NDArray:
        self._need_data("standardized")
        assert self._source.data is not None
        out = np.full_like(self._source.data, np.nan)
        for j in range(len(self.names)):
            ok = ~np.isnan(self._source.data[:, j])
            y = fam.forward_unchecked(self._prepare(self._source.data[ok, j], j),
                                      self._lmbda_used[j], self._families[j])
            out[ok, j] = (y - self._muhat_values[j]) / self._sigmahat_values[j]
        return out

    def cutoffs(self, rule: str = "huber", *, width: float | None = None) -> pd.DataFrame:
        """Outlier cut-offs on the original scale: cut-offs on the transformed scale mapped
        back through the inverse transform and the prestandardization (the transforms are
        increasing). Beyond the transform's range a cut-off is 0 (Box-Cox) or -inf/inf.

        Parameters
        ----------
        rule : {"huber", "paper"}, default="huber"
            ``"huber"``: ``location -+ width * scale`` with the Huber location and scale of
            the fit and ``width = Phi^-1((1 + quant)/2)`` (2.576), the rule that flags the
            rows (cellWise's weights). ``"paper"``: ``median -+ width * MAD`` of the
            transformed values with ``width = 2`` (Raymaekers & Rousseeuw 2021, section 5:
            "their median plus or minus two median absolute deviations"; the MAD with R's
            1.4826, so that it estimates the sd at the normal).
        width : float, optional
            Another multiple of the scale.

        Returns
        -------
        DataFrame
            ``lower``, ``upper``, one row per column.

        Examples
        --------
        >>> import numpy as np, boxcoxstat as bcs
        >>> x = np.r_[np.exp(np.linspace(-2, 2, 60)), 400.0]
        >>> r = bcs.fit(x, family="boxcox", method="rewml")
        >>> r.cutoffs().round(2).values.tolist(), r.cutoffs("paper").round(2).values.tolist()
        ([[0.03, 34.58]], [[0.05, 21.1]])
        """
        if rule not in ("huber", "paper"):
            raise BoxCoxError(f"rule={rule!r} is not valid; use 'huber' or 'paper'")
        if width is None:
            width = self._cutoff if rule == "huber" else 2.0
        elif isinstance(width, bool) or not isinstance(width, (int, float)) or \
                not (np.isfinite(width) and width > 0):
            raise BoxCoxError(f"width must be a positive number, got {width!r}")
        centre, spread = ((self._location_values, self._scale_values) if rule == "huber"
                          else (self._median_values, self._mad_values))
        p = len(self.names)
        lo, hi = np.empty(p), np.empty(p)
        for j in range(p):
            f, lam = self._families[j], self._lmbda_used[j]
            with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
                ends = centre[j] + np.array([-1.0, 1.0]) * float(width) * spread[j]
                u = fam.inverse_unchecked(ends, lam, f)
                x = rb.undo_prestandardization(u, self._locx_values[j], self._scalex_values[j],
                                               f, self._prestandardize)
            lo[j] = x[0] if np.isfinite(x[0]) else (0.0 if f == "boxcox" else -np.inf)
            hi[j] = x[1] if np.isfinite(x[1]) else np.inf
        return pd.DataFrame({"lower": lo, "upper": hi}, index=list(self.names))

    # ----------------------------------------------------------------- reports
    def summary(self, alpha: float = 0.05) -> Summary:
        """Estimates, robust location/scale, cut-offs and the flagged rows of every column.

        ``alpha`` is accepted for a uniform interface; robust fits report no intervals.
        """
        cut = self.cutoffs()
        nflag = np.array([len(self._labels(j)) for j in range(len(self.names))],
                         dtype=np.int64)
        est = pd.DataFrame(
            {
                "lambda": self._lmbda_used,
                "step 1": self._lmbda_initial,
                "objective": self._objective_values,
                "location": self._location_values,
                "scale": self._scale_values,
            },
            index=list(self.names),
        )
        info = pd.DataFrame(
            {
                "family": list(self._families),
                "n": self._nobs_values,
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
               "none": "none"}[self._prestandardize]
        notes = [
            "No likelihood interval or test: the estimate is robust, not maximum likelihood.",
            f"Prestandardization: {pre}; lambda refers to the prestandardized data.",
            f"Flagged: |y - location| > {self._cutoff:.4f} * scale on the transformed scale; "
            "cut-offs are on the original scale.",
        ]
        if self.method == "rewml":
            notes.append("step 1: Tukey bisquare criterion on the rectified transform; then "
                         f"{self._tuning.get('nbsteps', _NBSTEPS)} reweighted "
                         "ML steps (Raymaekers & Rousseeuw 2021; cellWise 2.5.3).")
        if self._requested_family == "auto":
            notes += [f"{n}: {r}" for n, r in zip(self.names, self._family_reasons, strict=True)]
        notes += self._skipped_notes()
        for j, n in enumerate(self.names):
            labels = self._labels(j)
            if labels:
                shown = ", ".join(str(v) for v in labels[:20])
                more = f" ... ({len(labels)} in all)" if len(labels) > 20 else ""
                notes.append(f"{n}: flagged rows {shown}{more}")
            if not self._converged_values[j]:
                notes.append(f"{n}: the lambda interval kept growing; treat lambda with caution")
        fams = " and ".join(_FAMILY_LABEL[f] for f in sorted(set(self._families)))
        title = f"{fams} power transformation, {METHODS[self.method].title}"
        return Summary(title, [("", est), ("", info)], notes, {})

    def _skipped_notes(self) -> list[str]:
        """One note per reason, naming the columns left out for it."""
        if not self.skipped:
            return []
        by_reason: dict[str, list[str]] = {}
        for name, reason in self.skipped.items():
            by_reason.setdefault(reason, []).append(name)
        total = len(self.names) + len(self.skipped)
        notes = [f"Not fitted: {len(self.skipped)} of {total} columns (constant or MAD 0; "
                 "cellWise's transfo drops them too), listed in .skipped:"]
        for reason, names in by_reason.items():
            shown = ", ".join(names[:20]) + (f" ... ({len(names)} in all)"
                                             if len(names) > 20 else "")
            notes.append(f"{shown}: {reason}")
        return notes

    def __repr__(self) -> str:
        pairs = ", ".join(
            f"{n}={format_number(v)}" for n, v in zip(self.names, self._lmbda_used, strict=True)
        )
        nflag = sum(len(self._labels(j)) for j in range(len(self.names)))
        left = f"; {len(self.skipped)} not fitted" if self.skipped else ""
        return (f"<RobustTransformResult {self.method} {'/'.join(sorted(set(self._families)))}: "
                f"lmbda {pairs}; {nflag} flagged{left}>")

    def qqplot(self, column: str | int | None = None, *, alpha: float = 0.05,
               ax: Any = None) -> Any:
        """car's normal QQ plot with a ``1 - alpha`` envelope around the robust line, before
        and after the transform (two Axes), flagged points marked in red."""
        from .plotting import qqplot_robust

        return qqplot_robust(self, column, alpha=alpha, ax=ax)
