"""Formulas: ``bc(x)`` / ``yj(x)`` predictor transforms and design matrices (all patsy here).

``bc`` and ``yj`` are patsy stateful transforms: when a design is built, the power
of the variable is estimated once by marginal maximum likelihood on the data the design is
built from (``mle.py``), remembered, and applied unchanged to new data (``predict``). They
work in :func:`boxcoxstat.lm` and in statsmodels' own formula API::

    import statsmodels.formula.api as smf
    from boxcoxstat import bc
    fit = smf.ols("y ~ bc(x)", data=train).fit()
    fit.predict(test)          # uses the power learned on train

``bc(x, lmbda=0.5)`` fixes the power. :func:`term_lambdas` reads the fitted powers from a
design or a fitted statsmodels model (``term_lambdas(fit)``). Every other module talks to patsy
only through this one (patsy's own README names formulaic as its successor; keeping the
engine in one place keeps a switch cheap).
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import patsy
from numpy.typing import NDArray

from .. import families
from .._validation.columns import BoxCoxError, ColumnReport, check_column
from ..core.inference import standard_inference
from ..core.profile import SampleProfile
from ..core.solve import solve

__all__ = [
    "bc",
    "yj",
    "poly",
    "FUNCTIONS",
    "term_lambdas",
    "term_inference",
    "ModelFrame",
    "model_frame",
    "new_design",
    "design_variables",
    "one_sided_design",
    "caller_environment",
    "warn_rows",
]


def warn_rows(what: str, labels: list[Any], stacklevel: int = 4) -> None:
    """One warning for the rows of new data that get NaN, naming them (at most 10 shown);
    ``stacklevel`` counts from this function to the user's call."""
    shown = ", ".join(repr(v.item() if isinstance(v, np.generic) else v) for v in labels[:10])
    more = f" and {len(labels) - 10} more" if len(labels) > 10 else ""
    warnings.warn(f"{len(labels)} row(s) ({shown}{more}): {what}", UserWarning,
                  stacklevel=stacklevel)


class _PowerTerm:
    """State of one ``bc(x)`` / ``yj(x)`` term: the data seen while memorising, then lambda."""

    family = "boxcox"

    def __init__(self) -> None:
        self._chunks: list[NDArray[np.float64]] = []
        self.lmbda: float | None = None
        self.fixed = False
        self.inference: dict[str, float] | None = None

    def memorize_chunk(self, x: Any, lmbda: float | None = None) -> None:
        if lmbda is not None:
            self.lmbda, self.fixed = float(lmbda), True
            return
        self._chunks.append(np.asarray(x, dtype=np.float64).reshape(-1))

    def memorize_finish(self, lmbda: float | None = None) -> None:
        if lmbda is not None or self.fixed:
            self.lmbda = float(lmbda) if lmbda is not None else self.lmbda
            self.fixed = True
            return
        x = np.concatenate(self._chunks) if self._chunks else np.empty(0)
        self._chunks = []
        name = "bc()" if self.family == "boxcox" else "yj()"
        check_column(ColumnReport.of(x), name, family=self.family, noun="the variable of",
                     tiny_scale=True)  # a sample's profile: lambda may reach 1 / range
        x = x[~np.isnan(x)]
        profile = SampleProfile.from_array(x, self.family)
        sol = solve(profile)
        self.lmbda = float(sol.lmbda[0])
        # the power's own inference, computed once on the variable's sample (and saved with
        # the design): standard error, 95% profile interval, LR tests of 0 and 1
        part = standard_inference(profile, sol.lmbda, sol.nll)
        self.inference = {k: float(v[0]) for k, v in part.items()}

    def transform(self, x: Any, lmbda: float | None = None) -> Any:
        """The variable at the learned power. Values outside the family's domain (Box-Cox:
        <= 0) and values whose transform overflows become NaN, so their rows are treated as
        missing, with one warning naming them; infinite values are refused."""
        if self.lmbda is None:
            raise BoxCoxError("the power of this term has not been estimated yet")
        values = np.asarray(x, dtype=np.float64)
        name = "bc()" if self.family == "boxcox" else "yj()"
        check_column(ColumnReport.of(values.reshape(-1)), name, family="yeojohnson", min_n=0,
                     spread=False, noun="new data for")
        out = np.full(values.shape, np.nan)
        ok = ~np.isnan(values)
        if self.family == "boxcox":
            ok &= values > 0
        with np.errstate(over="ignore", invalid="ignore"):
            out[ok] = families.forward_unchecked(values[ok], self.lmbda, self.family)
        bad = ~np.isnan(values) & ~np.isfinite(out)
        if bad.any():
            labels = x.index[bad.reshape(-1)] if isinstance(x, pd.Series) else \
                np.flatnonzero(bad.reshape(-1))
            warn_rows(f"{name} term at lambda = {self.lmbda:.6g}: the value is "
                      + ("<= 0 (outside Box-Cox's domain)" if self.family == "boxcox"
                         else "transformed beyond the float64 range")
                      + "; the prediction is NaN", list(labels))
            out[bad] = np.nan
        if isinstance(x, pd.Series):
            return pd.Series(out, index=x.index, name=x.name)
        return out


class _BoxCoxTerm(_PowerTerm):
    family = "boxcox"


class _YeoJohnsonTerm(_PowerTerm):
    family = "yeojohnson"


bc = patsy.stateful_transform(_BoxCoxTerm)
bc.__doc__ = """Box-Cox transform of a predictor inside a formula, its power learned once.

Parameters
----------
x : array_like
    A strictly positive variable.
lmbda : float, optional
    Fix the power instead of estimating it by maximum likelihood.

Notes
-----
New values outside Box-Cox's domain (<= 0) give NaN for their rows, named in one warning.
A statsmodels result saved with ``fit.save(path)`` is rebuilt by statsmodels by evaluating
its formula again when it is loaded, so the loading script needs ``from boxcoxstat import
bc, yj`` in scope (``bcs.lm(...).ols`` is saved with its design and needs nothing).

Examples
--------
>>> import numpy as np, pandas as pd, statsmodels.formula.api as smf
>>> from boxcoxstat import bc
>>> from boxcoxstat.regression.formula import term_lambdas
>>> rng = np.random.default_rng(0)
>>> df = pd.DataFrame({"x": rng.lognormal(size=100)})
>>> df["y"] = np.log(df["x"]) + rng.normal(scale=0.1, size=100)
>>> fit = smf.ols("y ~ bc(x)", data=df).fit()
>>> {k: round(v, 3) for k, v in term_lambdas(fit).items()}
{'bc(x)': -0.049}
"""
yj = patsy.stateful_transform(_YeoJohnsonTerm)
yj.__doc__ = """Yeo-Johnson transform of a predictor inside a formula, its power learned once.

Parameters
----------
x : array_like
    Any real variable.
lmbda : float, optional
    Fix the power instead of estimating it by maximum likelihood.
"""


class _PolyTerm:
    """State of one ``poly(x, degree)`` term: R's orthogonal polynomials, learned once.

    Fitting follows R's ``stats::poly``: the monic polynomials orthogonal over the training
    values (Stieltjes' three-term recurrence, Forsythe 1957), kept as R keeps them, ``alpha``
    (the recurrence's centres, on the data's scale) and ``norm2`` (``1, n`` and the squared
    norms, R's ``attr(, "coefs")``), so that new data get the same basis as
    ``predict(poly(x, degree), newx)`` in R: each column scaled to unit norm on the training
    values.
    """

    def __init__(self) -> None:
        self._chunks: list[NDArray[np.float64]] = []
        self.degree = 0
        self.alpha: NDArray[np.float64] | None = None
        self.norm2: NDArray[np.float64] | None = None

    def memorize_chunk(self, x: Any, degree: int = 1) -> None:
        if isinstance(degree, bool) or not isinstance(degree, (int, np.integer)) or \
                not 1 <= degree <= 20:
            raise BoxCoxError(f"poly(): degree must be a whole number from 1 to 20, got "
                              f"{degree!r}")
        self.degree = int(degree)
        self._chunks.append(np.asarray(x, dtype=np.float64).reshape(-1))

    def memorize_finish(self) -> None:
        x = np.concatenate(self._chunks) if self._chunks else np.empty(0)
        self._chunks = []
        self._learn(x[~np.isnan(x)])

    def _learn(self, x: NDArray[np.float64]) -> None:
        degree = self.degree
        if not np.all(np.isfinite(x)):
            raise BoxCoxError("poly(): the variable has infinite values")
        if degree >= np.unique(x).size:
            raise BoxCoxError(f"poly(): degree {degree} needs more than {degree} distinct "
                              f"values of the variable; it has {np.unique(x).size}")
        centre = x.mean()
        xc = x - centre
        alpha = np.empty(degree)
        norm2 = np.empty(degree + 2)
        norm2[0], norm2[1] = 1.0, float(x.size)
        prev, cur = np.zeros_like(xc), np.ones_like(xc)
        for j in range(degree):
            alpha[j] = float(np.dot(xc, cur * cur) / norm2[j + 1])
            nxt = (xc - alpha[j]) * cur - (norm2[j + 1] / norm2[j]) * prev * (j > 0)
            prev, cur = cur, nxt
            norm2[j + 2] = float(np.dot(cur, cur))
        self.degree, self.alpha, self.norm2 = degree, alpha + centre, norm2

    def transform(self, x: Any, degree: int = 1) -> Any:
        if self.alpha is None or self.norm2 is None:
            raise BoxCoxError("the basis of this poly() term has not been learned yet")
        if degree != self.degree:
            raise BoxCoxError(f"poly(): the term was fitted with degree {self.degree}")
        values = np.asarray(x, dtype=np.float64).reshape(-1)
        out = np.empty((values.size, self.degree))
        prev, cur = np.zeros_like(values), np.ones_like(values)
        for j in range(self.degree):
            nxt = (values - self.alpha[j]) * cur - (
                self.norm2[j + 1] / self.norm2[j]) * prev * (j > 0)
            prev, cur = cur, nxt
            out[:, j] = cur / np.sqrt(self.norm2[j + 2])
        if isinstance(x, pd.Series):
            return pd.DataFrame(out, index=x.index)
        return out


poly = patsy.stateful_transform(_PolyTerm)
poly.__doc__ = """R's orthogonal polynomials of a predictor inside a formula, learned once.

``poly(x, 2)`` gives the two columns of R's ``poly(x, 2)``: polynomials of degree 1 and 2 in
``x``, orthogonal to each other and to the intercept over the data the model is fitted on,
each of unit length. New data (``predict``) reuse the training basis, as R's
``predict(poly(x, 2), newx)`` does.

Parameters
----------
x : array_like
    A numeric variable with more distinct values than ``degree``.
degree : int
    1 to 20.

Examples
--------
>>> import numpy as np, pandas as pd, boxcoxstat as bcs
>>> trees = bcs.datasets.load("trees")
>>> m = bcs.lm("Volume ~ poly(Girth, 2)", trees)
>>> m.column_names
('Intercept', 'poly(Girth, 2)[0]', 'poly(Girth, 2)[1]')
"""


def _design_info(obj: Any) -> Any:
    """The patsy ``DesignInfo`` of a design, a statsmodels model or a fitted result."""
    if hasattr(obj, "factor_infos"):
        return obj
    if hasattr(obj, "design_info") and hasattr(obj.design_info, "factor_infos"):
        return obj.design_info
    model = getattr(obj, "model", obj)
    data = getattr(model, "data", None)
    for name in ("model_spec", "design_info"):
        spec = getattr(data, name, None)
        if hasattr(spec, "factor_infos"):
            return spec
    raise BoxCoxError(
        "expected a patsy DesignInfo or a statsmodels model fitted from a patsy formula"
    )


def term_lambdas(obj: Any) -> dict[str, float]:
    """The powers of the ``bc()`` / ``yj()`` terms of a formula design, by term.

    ``obj`` is a patsy ``DesignInfo``, a design matrix that carries one, or a statsmodels
    formula model or fitted result (``smf.ols(...).fit()``).
    """
    return {key: float(t.lmbda) if t.lmbda is not None else float("nan")
            for key, t in _power_terms(_design_info(obj)).items()}


def term_inference(obj: Any) -> pd.DataFrame:
    """The powers of the ``bc()`` / ``yj()`` terms with their inference, by term.

    Columns ``lambda``, ``bse`` (observed information), ``lower``, ``upper`` (95% profile
    likelihood), ``lr0``, ``lr1`` (LR statistics of lambda = 0 and 1), computed on the
    variable's own sample when the design was built; NaN for a fixed power
    (``bc(x, lmbda=0.5)``).
    """
    design_info = _design_info(obj)
    rows = {}
    for key, term in _power_terms(design_info).items():
        inf = term.inference or {}
        rows[key] = [term.lmbda if term.lmbda is not None else np.nan] + [
            inf.get(k, np.nan) for k in ("bse", "lower", "upper", "lr0", "lr1")]
    return pd.DataFrame.from_dict(
        rows, orient="index", columns=["lambda", "bse", "lower", "upper", "lr0", "lr1"]
    ).astype(np.float64)


def _power_terms(design_info: Any) -> dict[str, _PowerTerm]:
    out: dict[str, _PowerTerm] = {}
    for factor, info in design_info.factor_infos.items():
        objs = [o for o in info.state.get("transforms", {}).values()
                if isinstance(o, _PowerTerm)] if isinstance(info.state, dict) else []
        for k, obj in enumerate(objs):
            out[factor.name() if len(objs) == 1 else f"{factor.name()}[{k}]"] = obj
    return out


_WRAPPED = re.compile(r"^\s*(bc|yj)\s*\((.*)\)\s*$", re.DOTALL)


@dataclass(frozen=True)
class ModelFrame:
    """What a formula and data give a linear model: response, design, names and bookkeeping."""

    y: NDArray[np.float64]
    x: NDArray[np.float64]
    response: str
    column_names: tuple[str, ...]
    design_info: Any
    rows: NDArray[np.intp]
    index: pd.Index
    n_dropped: int
    response_family: str | None
    response_lmbda: float | None = None


# what a formula finds without an import: R's names for the elementwise functions, numpy as
# ``np``, and the package's stateful terms (the caller's own names come first)
FUNCTIONS: dict[str, Any] = {
    "bc": bc, "yj": yj, "poly": poly, "np": np, "log": np.log, "exp": np.exp,
    "sqrt": np.sqrt, "log10": np.log10, "log2": np.log2, "log1p": np.log1p,
}


COLUMNS_KEY = "boxcoxstat_columns"  # a factor's state: the data columns it read when fitted


def _factor_names(code: str) -> set[str]:
    """The names a factor's code reads: plain names and ``Q("...")``'s strings."""
    try:
        tree = ast.parse(code.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    names |= {c.args[0].value for c in ast.walk(tree) if isinstance(c, ast.Call)
              and isinstance(c.func, ast.Name) and c.func.id == "Q" and len(c.args) == 1
              and isinstance(c.args[0], ast.Constant) and isinstance(c.args[0].value, str)}
    return names


def _record_columns(design_info: Any, columns: Any) -> None:
    """Note in each factor's state which data columns it read (a saved model then knows a
    column from a same-named variable of the caller's session)."""
    have = {str(c) for c in columns}
    for f, info in design_info.factor_infos.items():
        if isinstance(info.state, dict):
            info.state[COLUMNS_KEY] = tuple(sorted(_factor_names(f.name()) & have))


def _refuse_random_effects(desc: Any, formula: str) -> None:
    """R's ``(1 | g)`` is a random effect; Python would read it as a bitwise or."""
    for term in [*desc.lhs_termlist, *desc.rhs_termlist]:
        for f in term.factors:
            try:
                tree = ast.parse(f.name().strip(), mode="eval")
                bar = any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitOr)
                          for n in ast.walk(tree))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                bar = "|" in f.name()  # lme4's (x || g) is not even Python
            if bar:
                raise BoxCoxError(
                    f"the formula {formula!r} has the term ({f.name()}): '|' is R's syntax "
                    "for random effects of a mixed model (lme4), which lm does not fit: use "
                    "bcs.lmer for a mixed model, or write C(g) for a fixed effect per group")


def _environment(eval_env: Any) -> Any:
    env = eval_env if eval_env is not None else patsy.EvalEnvironment([{}])
    return env.with_outer_namespace(FUNCTIONS)


def _split(formula: str) -> tuple[Any, str, str | None, float | None]:
    """The model description with a ``bc(y)`` / ``yj(y)`` response unwrapped: the
    description, the response, its family and its fixed power (``None``: not given)."""
    try:
        desc = patsy.ModelDesc.from_formula(formula)
    except patsy.PatsyError as err:
        raise BoxCoxError(f"cannot parse the formula {formula!r}: {err}") from None
    _refuse_random_effects(desc, formula)
    if len(desc.lhs_termlist) != 1 or len(desc.lhs_termlist[0].factors) != 1:
        raise BoxCoxError(f"the formula {formula!r} needs exactly one response on the left")
    code = desc.lhs_termlist[0].factors[0].name()
    m = _WRAPPED.match(code)
    if m is None:
        return desc, code, None, None
    inner, lmbda = _response_call(code)
    lhs = [patsy.Term([patsy.EvalFactor(inner)])]
    fam = "boxcox" if m.group(1) == "bc" else "yeojohnson"
    return patsy.ModelDesc(lhs, desc.rhs_termlist), inner, fam, lmbda


def _response_call(code: str) -> tuple[str, float | None]:
    """The variable and the fixed power of a ``bc(y)`` / ``bc(y, lmbda=0)`` response."""
    call = ast.parse(code.strip(), mode="eval").body
    assert isinstance(call, ast.Call)
    bad = (len(call.args) != 1 or any(k.arg != "lmbda" for k in call.keywords)
           or len(call.keywords) > 1)
    lmbda = None
    if not bad and call.keywords:
        try:
            lmbda = float(ast.literal_eval(call.keywords[0].value))
        except (ValueError, TypeError, SyntaxError):
            bad = True
        else:
            bad = not np.isfinite(lmbda)
    if bad:
        raise BoxCoxError(
            f"the response {code!r} takes the variable and optionally a fixed power as a "
            "number, e.g. bc(y) (power estimated) or bc(y, lmbda=0) (the log)"
        )
    inner = ast.get_source_segment(code.strip(), call.args[0])
    assert inner is not None
    return inner.strip(), lmbda


_DESIGN_LIMIT = 1e150  # sums of squares of design values stay below float64's 1.8e308
WEIGHT_RATIO = 1e100  # largest weight over smallest: beyond, a weighted RSS leaves float64


def _first_line(err: BaseException) -> str:
    return (str(err).splitlines() or [""])[0]


def _plain_missing(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` (a copy where changed) with pandas' nullable columns (``Int64``, ``Float64``,
    ``boolean``, ``string``) holding ``pd.NA`` turned into what patsy reads as missing: NaN in
    float64 columns, None in object columns (patsy's NA check fails on ``pd.NA``)."""
    out = frame
    for j, dtype in enumerate(frame.dtypes):
        if not isinstance(dtype, pd.api.extensions.ExtensionDtype) or isinstance(
                dtype, pd.CategoricalDtype):
            continue
        col = frame.iloc[:, j]
        if not col.isna().any():
            continue
        if out is frame:
            out = frame.copy(deep=False)
        if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype):
            out.isetitem(j, col.astype("float64"))  # pd.NA -> NaN
        else:
            out.isetitem(j, col.astype(object).where(col.notna(), None))
    return out


def _not_numeric(design_info: Any, data: pd.DataFrame) -> list[str]:
    """Columns of ``data`` used as numbers by ``design_info`` whose values are not numbers."""
    used = set()
    for info in design_info.factor_infos.values():
        if info.type == "numerical":
            used |= {n for n in re.findall(r"[A-Za-z_][A-Za-z0-9_.]*", info.factor.name())}
    return [str(c) for c in data.columns if str(c) in used
            and not (pd.api.types.is_numeric_dtype(data[c]) or
                     pd.api.types.is_bool_dtype(data[c]))]


def _weights(weights: Any, data: pd.DataFrame) -> NDArray[np.float64] | None:
    """Case weights as float64 (NaN where missing), from a column name or a vector."""
    if weights is None:
        return None
    if isinstance(weights, str):
        if weights not in data.columns:
            raise BoxCoxError(f"weights column {weights!r} is not in the data; its columns "
                              f"are {[str(c) for c in data.columns]}")
        col = data[weights]
        what = f"weights column {weights!r}"
    else:
        col = pd.Series(np.asarray(weights, dtype=object).reshape(-1))
        what = "weights"
        if len(col) != len(data):
            raise BoxCoxError(f"weights has length {len(col)}, but the data have "
                              f"{len(data)} rows")
    values = pd.to_numeric(col, errors="coerce")
    bad = np.flatnonzero(values.isna().to_numpy() & col.notna().to_numpy())
    if bad.size:
        raise BoxCoxError(f"{what} is not numeric (row {data.index[bad[0]]!r} holds "
                          f"{col.iloc[bad[0]]!r}); give numbers, one weight per row")
    return values.to_numpy(dtype=np.float64, na_value=np.nan)


def model_frame(
    formula: str, data: pd.DataFrame, *, weights: Any = None, missing: str = "drop",
    eval_env: Any = None,
) -> tuple[ModelFrame, NDArray[np.float64] | None]:
    """Evaluate ``formula`` on ``data``: drop incomplete rows, then build the design once more
    on the complete rows so ``bc()`` / ``yj()`` learn their powers on exactly those rows."""
    if not isinstance(data, pd.DataFrame):
        raise BoxCoxError("data must be a pandas DataFrame")
    desc, response, fam, fixed = _split(formula)
    env = _environment(eval_env)
    if len(data) == 0:
        raise BoxCoxError("the data have no rows")
    df = _plain_missing(data.reset_index(drop=True))
    w = _weights(weights, data)
    na_action = patsy.NAAction(NA_types=["NaN", "None"]) if missing == "drop" else "raise"

    def build(frame: pd.DataFrame):
        try:
            return patsy.dmatrices(desc, frame, eval_env=env, NA_action=na_action,
                                   return_type="dataframe")
        except patsy.PatsyError as err:
            msg = str(err).split("\n")[0]
            if "missing values" in msg:
                raise BoxCoxError(
                    f"the model's variables have missing values ({msg}); use missing='drop' to "
                    "leave those rows out"
                ) from None
            cause = err.__cause__ if err.__cause__ is not None else err
            if isinstance(cause, BoxCoxError):
                raise BoxCoxError(str(cause)) from None
            raise BoxCoxError(f"cannot evaluate the formula {formula!r}: {msg}") from None
        except BoxCoxError:
            raise
        except (TypeError, ValueError, AttributeError) as err:  # patsy's own slips
            raise BoxCoxError(f"cannot evaluate the formula {formula!r} on these data "
                              f"({type(err).__name__}: {_first_line(err)}); check that "
                              "every variable is a numeric or categorical column") from None

    ydf, xdf = build(df)
    rows = ydf.index.to_numpy(dtype=np.intp)
    if w is not None:
        if missing == "raise" and np.any(np.isnan(w)):
            raise BoxCoxError("the weights have missing values; use missing='drop'")
        rows = rows[~np.isnan(w[rows])]
    if len(rows) == 0:
        raise BoxCoxError(
            f"no complete rows: each of the {len(df)} row(s) has a missing value in the "
            f"response, a predictor{' or the weights' if w is not None else ''} of {formula!r}"
        )
    if len(rows) < len(df):
        ydf, xdf = build(df.iloc[rows])
    if w is not None:
        w = _checked_weights(w[rows], data.index[rows])
    y, x = _checked_values(ydf, xdf, response)
    _record_columns(xdf.design_info, df.columns)
    frame = ModelFrame(
        y=y, x=x, response=response,
        column_names=tuple(xdf.columns), design_info=xdf.design_info, rows=rows,
        index=data.index[rows], n_dropped=len(df) - len(rows), response_family=fam,
        response_lmbda=fixed,
    )
    return frame, w


def _checked_weights(w: NDArray[np.float64], labels: pd.Index) -> NDArray[np.float64]:
    """The complete rows' weights, refused unless finite, positive and within
    ``WEIGHT_RATIO`` of each other (``labels`` name those rows in the caller's index)."""
    if not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise BoxCoxError("weights must be finite and positive; drop rows with weight 0")
    if np.log(w.max()) - np.log(w.min()) > np.log(WEIGHT_RATIO):
        lo, hi = int(np.argmin(w)), int(np.argmax(w))
        raise BoxCoxError(
            f"the weights span {w[lo]:.3g} (row {labels[lo]!r}) to {w[hi]:.3g} "
            f"(row {labels[hi]!r}), more than a factor {WEIGHT_RATIO:g}: rows "
            "that light add nothing float64 can hold to the weighted sums of squares; "
            "drop them, or rescale the weights")
    return w


def _checked_values(
    ydf: pd.DataFrame, xdf: pd.DataFrame, response: str,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The response and design as float arrays, refused unless the response is one column,
    every value is finite and no design column's squares overflow."""
    if ydf.shape[1] != 1:
        raise BoxCoxError(f"the response {response!r} must be one numeric column")
    y = ydf.to_numpy(dtype=np.float64)[:, 0]
    x = xdf.to_numpy(dtype=np.float64)
    if not np.all(np.isfinite(y)) or not np.all(np.isfinite(x)):
        raise BoxCoxError("the response and the design must be finite (infinite values found)")
    size = np.abs(x).max(axis=0, initial=0.0)
    if np.any(size > _DESIGN_LIMIT):
        name = str(xdf.columns[int(np.argmax(size > _DESIGN_LIMIT))])
        raise BoxCoxError(f"the design column {name!r} has values up to {size.max():.3g}, whose "
                          "squares overflow float64 in least squares; rescale that predictor")
    return y, x


def new_design(design_info: Any, data: pd.DataFrame) -> NDArray[np.float64]:
    """The design of new data with every learned state (powers, centring, levels) reused:
    one row per row of ``data``, in its order; a row with a missing predictor (or a
    ``bc()`` / ``yj()`` value outside the family's domain) is all NaN. Columns are found by
    name, so their order in ``data`` does not matter."""
    if not isinstance(data, pd.DataFrame):
        raise BoxCoxError("new data must be a pandas DataFrame")
    # rows are matched back by label (so warnings name the caller's rows), or by position
    # when labels repeat
    frame = data if data.index.is_unique else data.reset_index(drop=True)
    wrong = _not_numeric(design_info, frame)
    if wrong:
        raise BoxCoxError(f"new data column(s) {wrong} are not numeric, but the model uses "
                          "them as numbers; convert them (pd.to_numeric) first")
    frame = _plain_missing(frame)
    try:
        # numpy's own warnings (log of a negative) are replaced by one naming the rows, below
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"), \
                warnings.catch_warnings(record=True) as told:
            warnings.simplefilter("always")
            (xdf,) = patsy.build_design_matrices(
                [design_info], frame, return_type="dataframe",
                NA_action=patsy.NAAction(NA_types=["NaN", "None"]))
    except BoxCoxError:
        raise
    except (TypeError, ValueError, AttributeError) as err:  # patsy's own slips
        raise BoxCoxError(f"cannot build the design for the new data ({type(err).__name__}: "
                          f"{_first_line(err)}); give the columns the model was fitted "
                          "with, of the same types") from None
    except patsy.PatsyError as err:
        cause = err.__cause__ if err.__cause__ is not None else err
        if isinstance(cause, BoxCoxError):
            raise BoxCoxError(str(cause)) from None
        msg = _first_line(err)
        if "Number of rows mismatch" in msg or "is not defined" in msg:
            raise BoxCoxError(
                f"the new data lack a variable of the model ({msg}): patsy looked it up "
                "outside the data; give every predictor as a column "
                f"(the new data have {[str(c) for c in frame.columns]})") from None
        raise BoxCoxError(f"cannot build the design for the new data: {msg}") from None
    out = np.full((len(frame), xdf.shape[1]), np.nan)
    out[frame.index.get_indexer(xdf.index)] = xdf.to_numpy(dtype=np.float64)
    for w in told:  # a bc() / yj() term's own warning, naming its rows
        if not issubclass(w.category, RuntimeWarning):
            warnings.warn(w.message, w.category, stacklevel=4)
    if not any(not issubclass(w.category, RuntimeWarning) for w in told):
        _warn_valueless_rows(design_info, frame, out)
    return out


def _warn_valueless_rows(design_info: Any, frame: pd.DataFrame,
                         out: NDArray[np.float64]) -> None:
    """One warning for rows whose predictors are all present but where a term has no value
    (``log()`` of a value <= 0, ``sqrt()`` of a negative): their prediction is NaN."""
    used = set()
    for f in design_info.factor_infos:
        used |= _factor_names(f.name())
    cols = [c for c in frame.columns if str(c) in used]
    present = frame[cols].notna().all(axis=1).to_numpy() if cols else np.ones(len(frame), bool)
    lost = np.flatnonzero(present & np.isnan(out).any(axis=1))
    if lost.size:
        warn_rows("a term of the model has no value there (for example log() of a value <= 0 "
                  "or sqrt() of a negative one); the prediction is NaN",
                  list(frame.index[lost]), stacklevel=6)  # LmResult.predict's caller


def design_variables(design: str, frame: pd.DataFrame) -> set[str]:
    """Column names of ``frame`` that the one-sided formula ``design`` mentions."""
    try:
        info = patsy.ModelDesc.from_formula(design)
    except patsy.PatsyError as err:
        raise BoxCoxError(f"design {design!r} is not a valid formula: {err}") from None
    names: set[str] = set()
    for term in info.rhs_termlist:
        for factor in term.factors:
            code = factor.name()
            try:
                tree = ast.parse(code, mode="eval")
            except SyntaxError:  # pragma: no cover - patsy already parsed it
                continue
            names.update(n.id for n in ast.walk(tree) if isinstance(n, ast.Name))
    return {n for n in names if n in frame.columns}


def one_sided_design(design: str, frame: pd.DataFrame, missing: str) -> pd.DataFrame:
    """The design matrix of a one-sided formula such as ``"~ group"`` on ``frame``.

    Rows with missing values are dropped (``missing="drop"``) or refused; numpy is
    available in the formula as ``np``, with R's ``log``, ``exp``, ``sqrt`` and ``poly``.
    """
    env = patsy.EvalEnvironment([FUNCTIONS])
    try:
        return patsy.dmatrix(design, frame, eval_env=env, return_type="dataframe",
                             NA_action="drop" if missing == "drop" else "raise")
    except patsy.PatsyError as err:
        msg = str(err).splitlines()[0]
        raise BoxCoxError(
            f"design {design!r} cannot be evaluated on the data: {msg} (names are looked up "
            f"among the columns {list(map(str, frame.columns))}; numpy is available as np)"
        ) from None


def caller_environment(depth: int = 1) -> Any:
    """The namespace ``depth`` frames above the caller, for evaluating a user's formula.

    ``caller_environment(1)`` inside ``lm`` is the frame that called ``lm``, so names such as
    ``np`` or a user's own functions resolve as they would in R.
    """
    return patsy.EvalEnvironment.capture(depth + 1)
