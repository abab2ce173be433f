"""Result of a joint (multivariate) lambda fit: immutable, labelled, with a car-style summary.

Layer 5. ``JointTransformResult`` holds the powers that together make several columns as close
to multivariate normal (around a linear model) as possible, their covariance from the observed
information, and the data needed to recompute likelihood-ratio tests. Rendering goes through
``summary.Summary``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from .. import families as fam
from .._validation import BoxCoxError, TransformOverflowError, to_matrix
from ..base.summary import Summary, format_power, format_pvalue
from ..core import inference as inf
from ..core.joint import JointProfile

__all__ = ["JointLambdaTest", "JointTransformResult"]

_FAMILY_NAMES = {"boxcox": "Box-Cox", "yeojohnson": "Yeo-Johnson"}


@dataclass(frozen=True)
class JointLambdaTest:
    """Likelihood-ratio test of ``H0: lambda = lmbda0`` for all columns at once.

    Attributes
    ----------
    statistic : float
        ``2 (llf(hat) - llf(lmbda0))``.
    df : int
        Number of columns.
    pvalue : float
        Upper tail of chi-square(``df``).
    lmbda0 : pandas.Series
        The hypothesised powers by column.
    """

    statistic: float
    df: int
    pvalue: float
    lmbda0: pd.Series

    @property
    def null(self) -> str:
        """The hypothesis in words, e.g. ``lambda = (0, 0.5)``."""
        return "lambda = (" + ", ".join(f"{v:g}" for v in self.lmbda0) + ")"

    def frame(self) -> pd.DataFrame:
        """The test as a one-row DataFrame."""
        return pd.DataFrame({"LR": [self.statistic], "df": [self.df],
                             "p-value": [self.pvalue]}, index=[self.null])

    def __str__(self) -> str:
        return Summary("Likelihood-ratio test (joint)", [("", self.frame())],
                       formatters={"p-value": format_pvalue}).as_text()

    __repr__ = __str__


@dataclass(frozen=True)
class JointTransformResult:
    """Powers estimated jointly for several columns (multivariate normal likelihood).

    Build with :func:`boxcoxstat.fit_joint`. Per-column quantities are pandas Series indexed
    by column name.
    """

    names: tuple[str, ...]
    family: str
    design: str
    lmbda_values: NDArray[np.float64]
    cov_values: NDArray[np.float64]
    nll_hat: float
    nobs: int
    n_missing: int
    design_rank: int
    converged: bool
    start_values: NDArray[np.float64]
    problem: JointProfile | None = field(default=None, repr=False, compare=False)

    def _problem(self) -> JointProfile:
        if self.problem is None:
            raise BoxCoxError(
                "this result holds no data (it was loaded from JSON); refit to compute new tests"
            )
        return self.problem

    # ----------------------------------------------------------------- estimates
    @property
    def lmbda(self) -> pd.Series:
        """The jointly estimated powers."""
        return pd.Series(self.lmbda_values, index=list(self.names), name="lmbda")

    params = lmbda

    @property
    def bse(self) -> pd.Series:
        """Standard errors: square roots of the diagonal of the inverse observed information."""
        return pd.Series(np.sqrt(np.diag(self.cov_values)), index=list(self.names), name="bse")

    def cov_params(self) -> pd.DataFrame:
        """Covariance of the estimates (inverse Hessian of the negative log-likelihood)."""
        return pd.DataFrame(self.cov_values, index=list(self.names), columns=list(self.names))

    @property
    def llf(self) -> float:
        """Maximised Gaussian log-likelihood, Jacobians included (covariance divisor n)."""
        return -0.5 * self.nobs * len(self.names) * (np.log(2.0 * np.pi) + 1.0) - self.nll_hat

    @property
    def df_resid(self) -> int:
        """Rows minus the rank of the design."""
        return self.nobs - self.design_rank

    def conf_int(self, alpha: float = 0.05) -> pd.DataFrame:
        """Wald intervals ``lambda -+ z_{1-alpha/2} se`` per column (as car's summary).

        Examples
        --------
        >>> import boxcoxstat as bcs
        >>> r = bcs.fit_joint(bcs.datasets.load("highway1")[["len", "adt"]])
        >>> r.conf_int().round(3)
             lower  upper
        len -0.261  0.630
        adt -0.126  0.402
        """
        lo, hi = inf.wald_interval(self.lmbda_values, self.bse.to_numpy(), alpha)
        return pd.DataFrame({"lower": lo, "upper": hi}, index=list(self.names))

    @property
    def rounded(self) -> pd.Series:
        """Convenient powers: per column, the one among -2, -1, -1/2, -1/3, 0, 1/3, 1/2, 1, 2
        inside the 95% Wald interval nearest the estimate, else the estimate to two decimals
        (the package's rule, :func:`boxcoxstat.core.inference.rounded_power`; car takes the first
        inside in the order 1, 0, -1, 1/2, 1/3, ... instead of the nearest)."""
        ci = self.conf_int(0.05)
        out = inf.rounded_power(self.lmbda_values, ci["lower"].to_numpy(),
                                ci["upper"].to_numpy())
        return pd.Series(out, index=list(self.names), name="rounded")

    # ----------------------------------------------------------------- tests
    def _null_vector(self, lmbda0: ArrayLike) -> NDArray[np.float64]:
        p = len(self.names)
        if isinstance(lmbda0, pd.Series):
            missing = [n for n in self.names if n not in lmbda0.index]
            if missing:
                raise BoxCoxError(f"lmbda0 has no value for column(s) {missing}")
            lmbda0 = lmbda0[list(self.names)].to_numpy()
        arr = np.asarray(lmbda0, dtype=np.float64)
        if arr.ndim == 0:
            arr = np.full(p, float(arr))
        if arr.shape != (p,):
            raise BoxCoxError(
                f"lmbda0 must be a number or {p} numbers (one per column {list(self.names)}), "
                f"got shape {arr.shape}"
            )
        if not np.all(np.isfinite(arr)):
            raise BoxCoxError("lmbda0 must be finite")
        return arr

    def test(self, lmbda0: ArrayLike = 1.0) -> JointLambdaTest:
        """Likelihood-ratio test that all powers equal ``lmbda0`` (a number or one per column);
        chi-square with as many degrees of freedom as columns (car's ``testTransform``).

        Examples
        --------
        >>> import boxcoxstat as bcs
        >>> r = bcs.fit_joint(bcs.datasets.load("highway1")[["len", "adt"]])
        >>> t = r.test(0)
        >>> round(t.statistic, 4), t.df
        (1.717, 2)
        """
        lam0 = self._null_vector(lmbda0)
        val = self._problem().nll(lam0)
        stat = float(max(2.0 * (val - self.nll_hat), 0.0))
        p = len(self.names)
        return JointLambdaTest(stat, p, float(inf.chi2_pvalue(np.array(stat), p)),
                               pd.Series(lam0, index=list(self.names), name="lmbda0"))

    # ----------------------------------------------------------------- transform
    def transform(self, data: Any) -> pd.DataFrame:
        """Transform the fitted columns of ``data`` (a DataFrame holding them, or an array
        with exactly these columns in order) with the joint powers; NaN stays NaN."""
        if isinstance(data, pd.DataFrame):
            absent = [n for n in self.names if n not in data.columns]
            if absent:
                raise BoxCoxError(f"data has no column(s) {absent}")
            x, _, index, _ = to_matrix(data[list(self.names)])
        else:
            x, _, index, _ = to_matrix(data)
            if x.shape[1] != len(self.names):
                raise BoxCoxError(
                    f"expected {len(self.names)} columns {list(self.names)}, got {x.shape[1]}"
                )
        out = np.full_like(x, np.nan)
        for j, name in enumerate(self.names):
            ok = ~np.isnan(x[:, j])
            if self.family == "boxcox" and np.any(x[ok, j] <= 0):
                raise BoxCoxError(
                    f"Box-Cox requires strictly positive data, but column {name!r} has "
                    "values <= 0"
                )
            try:
                out[ok, j] = fam.transform(x[ok, j], self.lmbda_values[j], self.family)
            except TransformOverflowError:
                raise TransformOverflowError(
                    f"column {name!r}: transformed values at lambda = "
                    f"{self.lmbda_values[j]:.6g} exceed the float64 range; rescale the data"
                ) from None
        return pd.DataFrame(out, index=index, columns=list(self.names))

    # ----------------------------------------------------------------- reports
    @cached_property
    def _standard_tests(self) -> list[JointLambdaTest]:
        return [self.test(0.0), self.test(1.0), self.test(self.rounded.to_numpy())]

    def summary(self) -> Summary:
        """car-style report: estimates with Wald bounds (lambda -+ 1.96 se, as car prints
        them), convenient powers, and the joint LR tests of all 0, all 1 and the rounded
        powers.

        Examples
        --------
        >>> import boxcoxstat as bcs
        >>> r = bcs.fit_joint(bcs.datasets.load("highway1")[["len", "adt"]])
        >>> print(r.summary())  # doctest: +ELLIPSIS
        Box-Cox transformations to multinormality (joint maximum likelihood)
        ...
        """
        bse = self.bse.to_numpy()
        est = pd.DataFrame(
            {
                "Est Power": self.lmbda_values,
                "Std Err": bse,
                "Rounded Pwr": self.rounded.to_numpy(),
                "Wald Lwr Bnd": self.lmbda_values - 1.96 * bse,
                "Wald Upr Bnd": self.lmbda_values + 1.96 * bse,
            },
            index=list(self.names),
        )
        t0, t1, tr = self._standard_tests
        labels = ["all 0 (log)" if self.family == "boxcox" else "all 0",
                  "all 1 (none)", "rounded"]
        tests = pd.DataFrame(
            {
                "lambda0": ["(" + ", ".join(format_power(v) for v in t.lmbda0) + ")"
                            for t in (t0, t1, tr)],
                "LRT": [t.statistic for t in (t0, t1, tr)],
                "df": [t.df for t in (t0, t1, tr)],
                "p-value": [t.pvalue for t in (t0, t1, tr)],
            },
            index=labels,
        )
        notes = [
            f"n = {self.nobs} complete rows ({self.n_missing} dropped for missing values); "
            f"design {self.design} (rank {self.design_rank}).",
            f"Log-likelihood {self.llf:.4f}.",
            "SE from the observed information; Wald bounds lambda -+ 1.96 SE; LR tests "
            f"chi-square with {len(self.names)} df.",
        ]
        if not self.converged:
            notes.append("The optimiser did not converge; treat the estimates with caution.")
        title = (f"{_FAMILY_NAMES[self.family]} transformations to multinormality "
                 "(joint maximum likelihood)")
        fmts: dict[str, Callable[[Any], str]] = {
            "p-value": format_pvalue, "Rounded Pwr": format_power, "lambda0": str}
        return Summary(title, [("Estimated powers", est), ("Likelihood-ratio tests", tests)],
                       notes, fmts)

    # ----------------------------------------------------------------- persistence
    _FORMAT = "boxcoxstat.JointTransformResult/1"

    def to_json(self) -> str:
        """Serialise everything but the data: enough to transform, report and reload.

        The summary's LR tests are stored; new tests need the data (refit).
        """
        doc = {
            "format": self._FORMAT, "names": list(self.names), "family": self.family,
            "design": self.design, "lmbda": self.lmbda_values.tolist(),
            "cov": self.cov_values.tolist(), "nll_hat": self.nll_hat, "nobs": self.nobs,
            "n_missing": self.n_missing, "design_rank": self.design_rank,
            "converged": self.converged, "start": self.start_values.tolist(),
            "tests": [[t.lmbda0.tolist(), t.statistic] for t in self._standard_tests],
        }
        return json.dumps(doc, allow_nan=True)

    @classmethod
    def from_json(cls, text: str) -> JointTransformResult:
        """Rebuild a result written by :meth:`to_json` (without data).

        Examples
        --------
        >>> import boxcoxstat as bcs
        >>> r = bcs.fit_joint(bcs.datasets.load("highway1")[["len", "adt"]])
        >>> back = bcs.JointTransformResult.from_json(r.to_json())
        >>> back.lmbda.equals(r.lmbda), str(back.summary()) == str(r.summary())
        (True, True)
        """
        doc = json.loads(text)
        if doc.get("format") != cls._FORMAT:
            raise BoxCoxError("not a boxcoxstat JointTransformResult JSON document")
        out = cls(
            names=tuple(doc["names"]), family=doc["family"], design=doc["design"],
            lmbda_values=np.asarray(doc["lmbda"], dtype=np.float64),
            cov_values=np.asarray(doc["cov"], dtype=np.float64), nll_hat=float(doc["nll_hat"]),
            nobs=int(doc["nobs"]), n_missing=int(doc["n_missing"]),
            design_rank=int(doc["design_rank"]), converged=bool(doc["converged"]),
            start_values=np.asarray(doc["start"], dtype=np.float64), problem=None,
        )
        p = len(out.names)
        tests = [JointLambdaTest(float(stat), p, float(inf.chi2_pvalue(np.array(stat), p)),
                                 pd.Series(lam0, index=list(out.names), name="lmbda0"))
                 for lam0, stat in doc["tests"]]
        out.__dict__["_standard_tests"] = tests  # the cached property's slot
        return out

    def __repr__(self) -> str:
        pairs = ", ".join(f"{n}={v:.4g}" for n, v in zip(self.names, self.lmbda_values,
                                                           strict=True))
        return f"<JointTransformResult {self.family} ({self.design}): lmbda {pairs}>"

    def _repr_html_(self) -> str:
        return self.summary().as_html()
