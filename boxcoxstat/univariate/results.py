"""Result objects: immutable, labelled when built, with a short repr and a rich summary.

Layer 5. ``PowerTransformResult`` holds what ``boxcoxstat.fit`` estimated, one entry per
column. Quantities that depend on an option (another ``alpha``, another null value) are
recomputed from the stored data through the inference layer; rendering is delegated to
``summary`` and plotting to ``plotting``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from .. import families as fam
from .._validation import BoxCoxError, TransformOverflowError, check_option, to_matrix
from ..base.summary import Summary, format_number, format_power, format_pvalue
from ..core import inference as inf
from ..core.likelihood import llf_constant
from ..core.profile import SampleProfile

__all__ = ["LambdaTest", "PowerTransformResult"]

def _shape(values: NDArray, names: tuple[str, ...], kind: str, name: str = "") -> Any:
    """Float for one-column input, Series for DataFrames, ndarray for 2-D arrays."""
    if kind in ("series", "array1d"):
        v = values[0]
        return v.item() if isinstance(v, np.generic) else v
    if kind == "frame":
        return pd.Series(values, index=list(names), name=name or None)
    return np.asarray(values)


@dataclass(frozen=True)
class LambdaTest:
    """Likelihood-ratio test of ``H0: lambda = lmbda0`` (per column).

    Attributes
    ----------
    statistic, pvalue : float, Series or ndarray
        ``2 (llf(hat) - llf(lmbda0))`` and its chi-square(``df``) upper tail.
    df : int
    lmbda0 : float or ndarray
    null : str
        The hypothesis in words.
    """

    statistic: Any
    pvalue: Any
    df: int
    lmbda0: Any
    null: str
    names: tuple[str, ...]

    def frame(self) -> pd.DataFrame:
        """The test as a DataFrame (one row per column)."""
        return pd.DataFrame(
            {
                "lmbda0": np.broadcast_to(np.asarray(self.lmbda0, float), len(self.names)),
                "LR": np.atleast_1d(np.asarray(self.statistic, float)),
                "df": self.df,
                "p-value": np.atleast_1d(np.asarray(self.pvalue, float)),
            },
            index=list(self.names),
        )

    def __str__(self) -> str:
        s = Summary(
            "Likelihood-ratio test",
            [(f"H0: {self.null}", self.frame())],
            formatters={"p-value": format_pvalue},
        )
        return s.as_text()

    __repr__ = __str__


@dataclass(frozen=True)
class PowerTransformResult:
    """Maximum-likelihood power transformation of one or more columns.

    Build with :func:`boxcoxstat.fit`. Numbers are stored as arrays with one entry per
    column; the public properties return a float for one-column input, a Series (indexed by
    column name) for a DataFrame and an ndarray for a 2-D array.
    """

    names: tuple[str, ...]
    kind: str
    families: tuple[str, ...]
    family_reasons: tuple[str, ...]
    requested_family: str
    method: str
    lmbda_mle: NDArray[np.float64]
    lmbda_used: NDArray[np.float64]
    nll_mle: NDArray[np.float64]
    llf_values: NDArray[np.float64]
    nobs_values: NDArray[np.int64]
    n_missing: NDArray[np.int64]
    converged_values: NDArray[np.bool_]
    ymax: float | None
    lambda_limits: NDArray[np.float64]
    data: NDArray[np.float64] | None = field(default=None, repr=False, compare=False)
    stored: dict[str, NDArray[np.float64]] | None = field(default=None, repr=False,
                                                          compare=False)
    # fits that never pooled the data (boxcoxstat.federated, Dask): clients, rounds, bytes
    federated: dict[str, Any] | None = field(default=None, repr=False, compare=False)

    # Inference at the default level is computed on first use and cached (the object stays
    # immutable from the outside); a result rebuilt from JSON carries it in ``stored``.
    @cached_property
    def _inference(self) -> dict[str, NDArray[np.float64]]:
        if self.stored is not None:
            return self.stored
        p = len(self.names)
        out = {k: np.empty(p) for k in ("bse", "lower", "upper", "lr0", "lr1")}
        for idx, profile in self._samples():
            part = inf.standard_inference(profile, self.lmbda_mle[idx], self.nll_mle[idx])
            for key, val in part.items():
                out[key][idx] = val
        return out

    @property
    def bse_values(self) -> NDArray[np.float64]:
        return self._inference["bse"]

    @property
    def profile_ci(self) -> NDArray[np.float64]:
        return np.column_stack([self._inference["lower"], self._inference["upper"]])

    @property
    def lr0(self) -> NDArray[np.float64]:
        return self._inference["lr0"]

    @property
    def lr1(self) -> NDArray[np.float64]:
        return self._inference["lr1"]

    @property
    def rounded_values(self) -> NDArray[np.float64]:
        ci = self.profile_ci
        return inf.rounded_power(self.lmbda_mle, ci[:, 0], ci[:, 1])

    # ----------------------------------------------------------------- estimates
    @property
    def lmbda(self) -> Any:
        """The estimated power(s) (the bounded estimate when ``ymax`` is active)."""
        return _shape(self.lmbda_used, self.names, self.kind, "lmbda")

    @property
    def params(self) -> pd.Series:
        """Estimated powers as a Series indexed by column name (statsmodels convention)."""
        return pd.Series(self.lmbda_used, index=list(self.names), name="lmbda")

    @property
    def llf(self) -> Any:
        """Maximised Gaussian log-likelihood of the data (Jacobian included)."""
        return _shape(self.llf_values, self.names, self.kind, "llf")

    @property
    def bse(self) -> Any:
        """Standard error of lambda from the observed information."""
        return _shape(self.bse_values, self.names, self.kind, "bse")

    @property
    def nobs(self) -> Any:
        """Number of observations used (missing values dropped)."""
        return _shape(self.nobs_values, self.names, self.kind, "nobs")

    @property
    def rounded(self) -> Any:
        """Convenient power: the one in the 95% profile interval nearest the estimate, else
        the estimate to two decimals (see :func:`boxcoxstat.core.inference.rounded_power`)."""
        return _shape(self.rounded_values, self.names, self.kind, "rounded")

    @property
    def converged(self) -> Any:
        """Whether the score's sign change was bracketed and closed."""
        return _shape(self.converged_values, self.names, self.kind, "converged")

    @property
    def bound_active(self) -> Any:
        """Whether ``ymax`` moved the estimate away from the unconstrained MLE."""
        return _shape(self.lmbda_used != self.lmbda_mle, self.names, self.kind, "bound_active")

    @property
    def family(self) -> Any:
        """Family per column (``"boxcox"`` or ``"yeojohnson"``)."""
        return _shape(np.array(self.families, dtype=object), self.names, self.kind, "family")

    # ----------------------------------------------------------------- inference
    @cached_property
    def _groups(self) -> dict[str, tuple[NDArray[np.intp], SampleProfile]]:
        """Column positions and the profile of each family's columns (built once)."""
        if self.data is None and self.federated is not None:
            raise BoxCoxError(
                "this result was fitted without pooling the data (federated or Dask); its "
                "95% profile interval, standard error and tests at 0 and 1 are stored, other "
                "levels and plots need the data"
            )
        if self.data is None:
            raise BoxCoxError(
                "this result holds no data (it was loaded from JSON); refit to compute new "
                "intervals, tests or plots"
            )
        out = {}
        for f in sorted(set(self.families)):
            idx = np.array([j for j, g in enumerate(self.families) if g == f], dtype=np.intp)
            out[f] = (idx, SampleProfile.from_array(self.data[:, idx], f))
        return out

    def _samples(self):
        return self._groups.values()

    def _column_profile(self, j: int) -> tuple[SampleProfile, int]:
        """The profile holding column ``j`` and the column's position in it."""
        idx, profile = self._groups[self.families[j]]
        return profile, int(np.flatnonzero(idx == j)[0])

    def conf_int(
        self, alpha: float = 0.05, kind: Literal["profile", "wald"] = "profile"
    ) -> Any:
        """Confidence interval for lambda.

        Parameters
        ----------
        alpha : float, default=0.05
            Significance level (0.05 gives a 95% interval).
        kind : {"profile", "wald"}, default="profile"
            Profile likelihood (endpoints solved exactly) or ``estimate -+ z * bse``.

        Returns
        -------
        ndarray of shape (2,) for 1-D array or list input; Series (``lower``, ``upper``) for a
        Series; DataFrame (``lower``, ``upper`` by column) for a DataFrame; ndarray of shape
        (p, 2) for a 2-D array.
        """
        check_option("kind", kind, ("profile", "wald"))
        if not 0 < alpha < 1:
            raise BoxCoxError(f"alpha must lie strictly between 0 and 1, got {alpha!r}")
        if kind == "wald":
            lo, hi = inf.wald_interval(self.lmbda_mle, self.bse_values, alpha)
            ci = np.column_stack([lo, hi])
        elif alpha == 0.05:
            ci = self.profile_ci
        else:
            ci = np.empty((len(self.names), 2))
            for idx, profile in self._samples():
                lo, hi = inf.profile_interval(
                    profile, self.lmbda_mle[idx], self.nll_mle[idx], self.bse_values[idx], alpha
                )
                ci[idx, 0], ci[idx, 1] = lo, hi
        if self.kind == "array1d":
            return ci[0].copy()
        if self.kind == "series":
            return pd.Series(ci[0], index=["lower", "upper"], name=self.names[0])
        if self.kind == "frame":
            return pd.DataFrame(ci, index=list(self.names), columns=["lower", "upper"])
        return ci.copy()

    def test(self, lmbda0: ArrayLike) -> LambdaTest:
        """Likelihood-ratio test of ``lambda = lmbda0`` (a number, or one per column).

        Examples
        --------
        >>> import numpy as np, boxcoxstat as bcs
        >>> x = np.random.default_rng(1).lognormal(size=200)
        >>> t = bcs.fit(x).test(1)
        >>> t.df, round(t.statistic, 1), t.pvalue < 1e-10
        (1, 311.9, True)
        """
        lam0 = np.broadcast_to(np.asarray(lmbda0, dtype=np.float64), len(self.names)).copy()
        if not np.all(np.isfinite(lam0)):
            raise BoxCoxError("lmbda0 must be finite")
        if np.array_equal(lam0, np.zeros_like(lam0)):
            stat = self.lr0
        elif np.array_equal(lam0, np.ones_like(lam0)):
            stat = self.lr1
        else:
            stat = np.empty(len(self.names))
            for idx, profile in self._samples():
                stat[idx] = inf.lr_statistic(profile, self.nll_mle[idx], lam0[idx])
        pval = inf.chi2_pvalue(stat)
        null = "lambda = " + ", ".join(sorted({format_number(v) for v in lam0}))
        return LambdaTest(
            _shape(stat, self.names, self.kind, "LR"),
            _shape(pval, self.names, self.kind, "p-value"),
            1,
            lam0[0] if self.kind in ("series", "array1d") else lam0,
            null,
            self.names,
        )

    def profile(self, column: str | int | None = None, lmbda: ArrayLike | None = None):
        """Profile log-likelihood of one column on a grid (DataFrame ``lmbda``, ``llf``).

        The default grid spans the 95% profile interval with half its width on each side.
        """
        j = self.column_index(column)
        profile, k = self._column_profile(j)
        if lmbda is None:
            lo, hi = self.profile_ci[j]
            width = hi - lo
            lmbda = np.linspace(lo - 0.5 * width, hi + 0.5 * width, 201)
        lam = np.asarray(lmbda, dtype=np.float64).reshape(-1)
        val, _ = profile.evaluate(lam, k, score=False)
        llf = -val + llf_constant(self.nobs_values[j])
        return pd.DataFrame({"lmbda": lam, "llf": llf})

    def column_index(self, column: str | int | None) -> int:
        """Position of ``column`` (a name or a position; ``None`` for a one-column result)."""
        if column is None:
            if len(self.names) > 1:
                raise BoxCoxError(
                    f"the result has {len(self.names)} columns; pass column= one of "
                    f"{list(self.names)}"
                )
            return 0
        if isinstance(column, (int, np.integer)) and not isinstance(column, bool):
            if not 0 <= int(column) < len(self.names):
                raise BoxCoxError(f"column index {column} is out of range")
            return int(column)
        if str(column) not in self.names:
            raise BoxCoxError(f"unknown column {column!r}; the result has {list(self.names)}")
        return self.names.index(str(column))

    # ----------------------------------------------------------------- transforms
    def _as_matrix(self, data: Any) -> tuple[NDArray[np.float64], Any]:
        if isinstance(data, pd.DataFrame):
            missing = [n for n in self.names if n not in map(str, data.columns)]
            if missing:
                raise BoxCoxError(f"the data lack column(s) {missing} that were fitted")
            cols = {str(c): c for c in data.columns}
            x, *_ = to_matrix(data[[cols[n] for n in self.names]])
            return x, data
        x, _, _, kind = to_matrix(data)
        if x.shape[1] != len(self.names):
            shape = "1-D data" if kind in ("series", "array1d") else f"{x.shape[1]} column(s)"
            raise BoxCoxError(f"{shape} given, but the result has {len(self.names)} columns")
        return x, data

    def _wrap(self, out: NDArray[np.float64], like: Any) -> Any:
        if isinstance(like, pd.DataFrame):
            return pd.DataFrame(out, index=like.index, columns=list(self.names))
        if isinstance(like, pd.Series):
            return pd.Series(out[:, 0], index=like.index, name=like.name)
        return out[:, 0] if np.ndim(like) == 1 else out

    def transform(self, data: Any) -> Any:
        """Transform data with the fitted powers (same layout in as out; NaN stays NaN).

        Raises
        ------
        TransformOverflowError
            If a transformed value would exceed float64's range; refit with ``ymax=``.
        """
        x, like = self._as_matrix(data)
        out = np.full_like(x, np.nan)
        for j, name in enumerate(self.names):
            ok = ~np.isnan(x[:, j])
            xj, lam, f = x[ok, j], self.lmbda_used[j], self.families[j]
            if f == "boxcox" and np.any(xj <= 0):
                raise BoxCoxError(
                    f"Box-Cox requires strictly positive data, but column {name!r} has values "
                    "<= 0"
                )
            try:
                out[ok, j] = fam.transform(xj, lam, f)
            except TransformOverflowError:
                raise TransformOverflowError(
                    f"column {name!r}: transformed values at lambda = {lam:.6g} exceed the "
                    "float64 range (about 1.8e308); refit with ymax= (for example ymax=1e300) "
                    "to bound lambda, or rescale the data"
                ) from None
        return self._wrap(out, like)

    def inverse_transform(self, data: Any) -> Any:
        """Map transformed values back to the original scale."""
        y, like = self._as_matrix(data)
        out = np.full_like(y, np.nan)
        for j, name in enumerate(self.names):
            ok = ~np.isnan(y[:, j])
            try:
                out[ok, j] = fam.inverse_transform(y[ok, j], self.lmbda_used[j], self.families[j])
            except BoxCoxError as err:
                raise type(err)(f"column {name!r}: {err}") from None
        return self._wrap(out, like)

    # ----------------------------------------------------------------- reports
    def summary(self, alpha: float = 0.05) -> Summary:
        """The full report: estimates, profile intervals, convenient powers, LR tests.

        Parameters
        ----------
        alpha : float, default=0.05
            Significance level of the profile-likelihood interval shown.
        """
        ci = np.asarray(self.conf_int(alpha), dtype=float).reshape(-1, 2)
        lo, hi = ci[:, 0], ci[:, 1]
        est = pd.DataFrame(
            {
                "lambda": self.lmbda_used,
                "std err": self.bse_values,
                f"[{alpha / 2:g}": lo,
                f"{1 - alpha / 2:g}]": hi,
                "rounded": self.rounded_values,
            },
            index=list(self.names),
        )
        tests = pd.DataFrame(
            {
                "LR(l=0)": self.lr0,
                "p(l=0)": inf.chi2_pvalue(self.lr0),
                "LR(l=1)": self.lr1,
                "p(l=1)": inf.chi2_pvalue(self.lr1),
            },
            index=list(self.names),
        )
        info = pd.DataFrame(
            {
                "family": list(self.families),
                "n": self.nobs_values,
                "missing": self.n_missing,
                "llf": self.llf_values,
            },
            index=list(self.names),
        )
        level = f"{100 * (1 - alpha):g}%"
        notes = [f"Interval: {level} profile likelihood; SE from the observed information;",
                 "tests: likelihood ratio, chi-square with 1 df."]
        if self.requested_family == "auto":
            notes += [f"{n}: {r}" for n, r in zip(self.names, self.family_reasons, strict=True)]
        for j, n in enumerate(self.names):
            if self.lmbda_used[j] != self.lmbda_mle[j]:
                notes.append(
                    f"{n}: bound active (ymax={self.ymax:.3g}); the unconstrained MLE is "
                    f"{self.lmbda_mle[j]:.10g}"
                )
            if not self.converged_values[j]:
                notes.append(f"{n}: the solver did not converge; treat lambda with caution")
        if self.federated is not None:
            fed = self.federated
            cost = f"{fed['clients']} {fed['unit']}, {fed['rounds']} rounds"
            if "bytes_up" in fed:
                cost += f", {fed['bytes_up'] + fed['bytes_down']} bytes"
            notes.append(f"Fitted without pooling the data: {cost}.")
            if fed.get("dropped"):
                notes.append("Left out (bad messages): " + ", ".join(fed["dropped"]))
        kinds = {"boxcox": "Box-Cox", "yeojohnson": "Yeo-Johnson"}
        fams = " and ".join(kinds[f] for f in sorted(set(self.families)))
        title = f"{fams} power transformation, maximum likelihood"
        fmts = {"p(l=0)": format_pvalue, "p(l=1)": format_pvalue, "rounded": format_power}
        return Summary(title, [("", est), ("", tests), ("", info)], notes, fmts)

    def __repr__(self) -> str:
        pairs = ", ".join(
            f"{n}={format_number(v)}" for n, v in zip(self.names, self.lmbda_used, strict=True)
        )
        fams = sorted(set(self.families))
        return f"<PowerTransformResult {'/'.join(fams)}: lmbda {pairs}>"

    def plot_profile(self, column: str | int | None = None, *, ax=None, alpha: float = 0.05):
        """Profile log-likelihood with the interval cut-off (see ``plotting.plot_profile``)."""
        from .plotting import plot_profile

        return plot_profile(self, column, ax=ax, alpha=alpha)

    def qqplot(self, column: str | int | None = None, *, axes=None):
        """Normal QQ plots before and after the transform (see ``plotting.qqplot``)."""
        from .plotting import qqplot

        return qqplot(self, column, axes=axes)

    # ----------------------------------------------------------------- persistence
    _JSON_FIELDS = (
        "lmbda_mle", "lmbda_used", "nll_mle", "llf_values", "nobs_values", "n_missing",
        "converged_values", "lambda_limits",
    )

    def to_json(self) -> str:
        """Serialise everything but the data (enough to transform, report and reload)."""
        doc: dict[str, Any] = {
            "format": "boxcoxstat.PowerTransformResult/1",
            "names": list(self.names),
            "kind": self.kind,
            "families": list(self.families),
            "family_reasons": list(self.family_reasons),
            "requested_family": self.requested_family,
            "method": self.method,
            "ymax": self.ymax,
        }
        for name in self._JSON_FIELDS:
            doc[name] = np.asarray(getattr(self, name)).tolist()
        doc["inference"] = {k: v.tolist() for k, v in self._inference.items()}
        if self.federated is not None:
            doc["federated"] = self.federated
        return json.dumps(doc, allow_nan=True)

    @classmethod
    def from_json(cls, text: str) -> PowerTransformResult:
        """Rebuild a result written by :meth:`to_json` (without data)."""
        doc = json.loads(text)
        if doc.get("format") != "boxcoxstat.PowerTransformResult/1":
            raise BoxCoxError("not a boxcoxstat PowerTransformResult JSON document")
        arrays: dict[str, Any] = {
            name: np.asarray(doc[name], dtype=bool if name == "converged_values" else None)
            for name in cls._JSON_FIELDS
        }
        stored = {k: np.asarray(v, dtype=np.float64) for k, v in doc["inference"].items()}
        return cls(
            names=tuple(doc["names"]), kind=doc["kind"], families=tuple(doc["families"]),
            family_reasons=tuple(doc["family_reasons"]),
            requested_family=doc["requested_family"], method=doc["method"], ymax=doc["ymax"],
            data=None, stored=stored, federated=doc.get("federated"), **arrays,
        )
