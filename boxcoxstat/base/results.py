"""What every result shares: one base class, one test-statistic class, one vocabulary.

Results are frozen dataclasses labelled when built. The
base gives each of them the same surface:

* ``summary()`` returns a :class:`~boxcoxstat.base.summary.Summary` (text, HTML, LaTeX), and
  the result shows that HTML in a notebook (``_repr_html_``); ``repr`` stays one line;
* ``to_json()`` / ``from_json(str | dict | path)`` with the fields declared once on the
  dataclass (``jsonio.saved``), a format name and a version;
* a method that does not apply to a result raises the package's error saying why, the same
  way everywhere (:meth:`ResultBase._not_available`).

The vocabulary (statsmodels' names): ``params``, ``bse``, ``pvalues`` are Series indexed by
parameter; ``conf_int(alpha=0.05)`` is a DataFrame with columns ``lower`` and ``upper`` and the
same index; ``test(...)`` returns a :class:`HypothesisTest`; ``llf``, ``nobs``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, NoReturn

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import stats

from .._validation.columns import BoxCoxError
from . import jsonio
from .summary import Summary, format_pvalue

__all__ = ["ResultBase", "HypothesisTest", "interval_frame", "check_alpha", "wald_pvalues",
           "diagonal_cov", "VOCABULARY"]

# The names every result answers or refuses with the package's error (the vocabulary table
# of docs/architecture.rst); summary, to_json and from_json are defined on the base itself.
VOCABULARY = ("lmbda", "params", "bse", "pvalues", "conf_int", "cov_params", "test", "llf",
              "nobs", "aic", "bic", "summary", "to_json", "from_json")

# Why a vocabulary name does not apply, where a result class says nothing more specific.
UNCERTAINTY = ("bse", "pvalues", "cov_params", "conf_int", "test")  # a fit's uncertainty
LIKELIHOOD = ("llf", "aic", "bic")  # its likelihood and the criteria from it


def refusals(why: str, *names: str) -> dict[str, str]:
    """``{name: why}``: the vocabulary names a result class cannot answer, for one reason (a
    class's ``_vocabulary_why``).

    Examples
    --------
    >>> from boxcoxstat.base.results import refusals
    >>> refusals("no likelihood", "llf", "aic")
    {'llf': 'no likelihood', 'aic': 'no likelihood'}
    """
    return dict.fromkeys(names, why)


_GENERIC_WHY = {
    "lmbda": "the result estimates no power",
    "params": "the result estimates no parameters",
    "bse": "the result has no standard errors",
    "pvalues": "the result has no standard errors, so no Wald p-values",
    "cov_params": "the result has no standard errors, so no covariance of the estimates",
    "conf_int": "the result has no confidence intervals",
    "test": "the result has no hypothesis test of its parameters",
    "llf": "the result has no likelihood",
    "nobs": "the result is not fitted to one sample",
    "aic": "the result has no likelihood, so no AIC",
    "bic": "the result has no likelihood, so no BIC",
}


_TINY = float(np.finfo(np.float64).tiny)  # smallest normal float, about 2.2e-308


def check_alpha(alpha: Any) -> float:
    """``alpha`` as a float strictly between 0 and 1 (the significance level), else the
    package's error."""
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.integer, np.floating)):
        raise BoxCoxError(f"alpha must be a number between 0 and 1 (e.g. 0.05), got {alpha!r}")
    a = float(alpha)
    if not _TINY <= a < 1.0:  # a subnormal alpha halves to 0: no finite quantile
        raise BoxCoxError(f"alpha must lie strictly between 0 and 1 (e.g. 0.05), got {alpha!r}")
    return a


def wald_pvalues(params: pd.Series, bse: pd.Series) -> pd.Series:
    """Two-sided Wald p-values of ``params = 0`` (statsmodels' ``pvalues``): ``2 * P(Z >
    |params / bse|)`` with ``Z`` standard normal, a Series with ``params``' index (NaN where
    ``bse`` is NaN: no standard error, e.g. at a bound)."""
    z = np.asarray(params, dtype=np.float64) / np.asarray(bse, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        p = 2.0 * stats.norm.sf(np.abs(z))
    return pd.Series(p, index=params.index, name="pvalues")


def diagonal_cov(bse: pd.Series) -> pd.DataFrame:
    """The covariance of estimates that are independent of each other (one per column,
    fitted separately): a diagonal DataFrame of ``bse**2`` indexed by parameter."""
    values = np.asarray(bse, dtype=np.float64)
    return pd.DataFrame(np.diag(values**2), index=bse.index, columns=bse.index)


def interval_frame(lower: Any, upper: Any, index: Any) -> pd.DataFrame:
    """The one shape of a confidence interval: columns ``lower``, ``upper``, one row per
    parameter."""
    return pd.DataFrame({"lower": np.asarray(lower, dtype=np.float64).reshape(-1),
                         "upper": np.asarray(upper, dtype=np.float64).reshape(-1)},
                        index=pd.Index(list(index)))


class ResultBase:
    """The base of every boxcoxstat result (see the module docstring).

    Subclasses are frozen dataclasses; they implement :meth:`summary`, and declare the fields
    that are saved with ``jsonio.saved(codec)``. ``_json_version`` is the newest document
    version the class writes and reads.
    """

    _json_version: ClassVar[int] = 1
    # why a name of :data:`VOCABULARY` that the class does not define is not available
    # (name -> reason); names not listed get a generic reason
    _vocabulary_why: ClassVar[dict[str, str]] = {}

    def summary(self) -> Summary:  # pragma: no cover - every result overrides it
        raise NotImplementedError

    def _repr_html_(self) -> str:
        return self.summary().as_html()

    def __str__(self) -> str:
        return self.summary().as_text()

    # ------------------------------------------------------------------ persistence
    def to_json(self) -> str:
        """The result as a JSON document (strict JSON: no NaN tokens), without its data.

        A loaded result reports, transforms and predicts as the original; what needs the
        data (new intervals, profiles, plots of the data) raises an error that says so.
        """
        return jsonio.dump(self)

    def _json_value(self, name: str) -> Any:
        """The value :meth:`to_json` writes for field ``name`` (the field itself, unless a
        result computes it on demand)."""
        return getattr(self, name)

    @classmethod
    def from_json(cls, source: Any) -> Any:
        """Rebuild a result from :meth:`to_json`'s document: a JSON string, a dict, or the
        path of a file holding it. A malformed document raises
        :class:`~boxcoxstat.BoxCoxError` naming the field that is wrong."""
        return jsonio.load(cls, source)

    # ------------------------------------------------------------------ refusals
    def _not_available(self, what: str, why: str) -> NoReturn:
        """Raise the package's error for a method that does not apply to this result."""
        raise BoxCoxError(f"{type(self).__name__}.{what} is not available: {why}")

    if not TYPE_CHECKING:  # a type checker still flags a misspelt attribute
        def __getattr__(self, name: str) -> Any:
            """A vocabulary name the class does not define: the uniform refusal (never an
            ``AttributeError``); any other missing name: the usual ``AttributeError``."""
            if name in VOCABULARY:
                why = type(self)._vocabulary_why.get(name, _GENERIC_WHY.get(name, ""))
                self._not_available(name, why)
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


@dataclass(frozen=True)
class HypothesisTest(ResultBase):
    """A test statistic with its null hypothesis: the one class every ``test()`` returns.

    One row per tested column (or one row for a joint test). ``statistic`` and ``pvalue`` are
    floats when one row was tested as a scalar, else Series indexed by ``names``.

    Attributes
    ----------
    null : str
        The null hypothesis in words, e.g. ``"lambda = 0"``.
    df : int
        Degrees of freedom of the chi-square reference distribution.
    test_name : str
        ``"likelihood ratio"`` for every test in the package so far.

    Examples
    --------
    >>> from boxcoxstat.base.results import HypothesisTest
    >>> t = HypothesisTest(("MPG",), [2.0528], 1, "lambda = 0", scalar=True)
    >>> round(t.statistic, 4), round(t.pvalue, 4)
    (2.0528, 0.1519)
    """

    names: tuple[str, ...] = field(metadata={"json": jsonio.Strs()})
    statistic_values: NDArray[np.float64] = field(
        metadata={"json": jsonio.Floats(length_of="names")})
    df: int = field(metadata={"json": jsonio.Int(minimum=1)})
    null: str = field(metadata={"json": jsonio.Str()})
    scalar: bool = field(default=False, metadata={"json": jsonio.Bool()})
    test_name: str = field(default="likelihood ratio", metadata={"json": jsonio.Str()})

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", tuple(str(n) for n in self.names))
        object.__setattr__(self, "statistic_values",
                           np.asarray(self.statistic_values, dtype=np.float64).reshape(-1))
        if self.statistic_values.size != len(self.names):
            raise BoxCoxError(f"HypothesisTest: {self.statistic_values.size} statistic(s) for "
                              f"{len(self.names)} row name(s) {list(self.names)}")
        if isinstance(self.df, bool) or not isinstance(self.df, (int, np.integer)) \
                or self.df < 1:
            raise BoxCoxError(f"HypothesisTest: df must be an integer >= 1, got {self.df!r}")
        object.__setattr__(self, "df", int(self.df))
        if self.scalar and len(self.names) != 1:
            raise BoxCoxError(f"HypothesisTest: scalar=True needs exactly one row, got "
                              f"{len(self.names)}")

    @staticmethod
    def _check_loaded(values: dict[str, Any]) -> None:
        if values["scalar"] and len(values["names"]) != 1:
            raise jsonio._Bad(f"field 'scalar' is true but 'names' has {len(values['names'])} "
                              "rows")

    @property
    def pvalue_values(self) -> NDArray[np.float64]:
        return np.asarray(stats.chi2.sf(self.statistic_values, self.df), dtype=np.float64)

    def _shaped(self, values: NDArray[np.float64], name: str) -> Any:
        if self.scalar:
            return float(values[0])
        return pd.Series(values, index=list(self.names), name=name)

    @property
    def statistic(self) -> Any:
        """The test statistic (float, or Series by column)."""
        return self._shaped(self.statistic_values, "statistic")

    @property
    def pvalue(self) -> Any:
        """Upper-tail chi-square(``df``) probability of the statistic."""
        return self._shaped(self.pvalue_values, "pvalue")

    def frame(self) -> pd.DataFrame:
        """The test as a DataFrame: ``statistic``, ``df``, ``pvalue`` per row."""
        return pd.DataFrame({"statistic": self.statistic_values, "df": self.df,
                             "pvalue": self.pvalue_values}, index=list(self.names))

    def summary(self) -> Summary:
        title = f"{self.test_name[:1].upper()}{self.test_name[1:]} test"
        notes = [f"Reference distribution: chi-square with {self.df} df."]
        return Summary(title, [(f"H0: {self.null}", self.frame())], notes,
                       {"pvalue": format_pvalue})

    def __repr__(self) -> str:
        stat = ", ".join(f"{v:.4g}" for v in self.statistic_values)
        return f"<HypothesisTest H0: {self.null}; statistic {stat}, df {self.df}>"
