"""``compare``: models of one response side by side, on the untransformed response's likelihood.

It knows no model family, only the protocol below. A model transformed by
a power ``lambda`` has the likelihood of its transformed response times the Jacobian of the
transform, so ``llf`` of ``log(y) ~ x`` is R's ``logLik(lm(log(y) ~ x)) - sum(log(y))`` and
that of the untransformed model is ``logLik(lm(y ~ x))``: on this one scale models at
different powers, at an estimated power and with different predictors compare by their
log-likelihood, AIC and BIC (Box & Cox 1964; Akaike 1974; Schwarz 1978), and nested ones by a
likelihood-ratio test (Wilks 1938).

The protocol: any result with

- ``llf``: the maximised log-likelihood of the untransformed response (Jacobian included),
  a number, or a Series by column (each column becomes a row);
- ``df_model_llf``: the number of estimated parameters counted by AIC and BIC (coefficients,
  variance components, and lambda or a shift where they were estimated), a number or a
  Series like ``llf``;
- ``nobs``: the number of observations (for BIC);

can be compared. To take part in the likelihood-ratio tests a result also has
``_compare_nesting(j)`` (``j``: the column, 0 for a model of one response) returning a dict
with ``response`` (the untransformed response values, in row order), ``design`` (an (n, k)
matrix whose column span is the model's mean space), ``family``, ``power`` (the fixed power,
or ``None`` when estimated), ``weights`` (``None`` or the case weights) and ``extra`` (a
hashable that must agree between nested models, e.g. a fixed shift, or a random-effects
structure). ``bcs.lm``, ``bcs.fit`` and the mixed models implement it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .._validation.columns import BoxCoxError
from .summary import Summary, format_number, format_power, format_pvalue

__all__ = ["compare", "ComparisonFrame"]

_NEST_RTOL = 1e-8  # a design column in another design's span: residual below this, relative


class ComparisonFrame(pd.DataFrame):
    """The DataFrame :func:`compare` returns, with a :meth:`summary` (text, HTML, LaTeX)."""

    _metadata = ["notes"]

    @property
    def _constructor(self) -> type[ComparisonFrame]:
        return ComparisonFrame

    def summary(self) -> Summary:
        """The comparison as a report: ``str()`` is text, ``_repr_html_()`` HTML,
        ``as_latex()`` LaTeX."""
        notes = list(getattr(self, "notes", None) or [])
        fmts = {"lambda": lambda v: "" if np.isnan(v) else format_power(v),
                "p": format_pvalue, "estimated": lambda v: "yes" if v else "no",
                "k": lambda v: str(int(v)), "nobs": lambda v: str(int(v)),
                "df": lambda v: "" if np.isnan(v) else str(int(v)),
                "vs": lambda v: "" if v is None or v == "" else str(v)}
        fmts.update({c: format_number for c in ("llf", "aic", "bic", "LR")})
        return Summary("Model comparison on the untransformed response's likelihood",
                       [("", pd.DataFrame(self))], notes, fmts)


def _value(obj: Any, name: str) -> Any:
    try:
        return getattr(obj, name)
    except AttributeError:
        raise BoxCoxError(
            f"compare: a {type(obj).__name__} has no {name!r}; compare takes results with "
            "'llf' (the untransformed response's log-likelihood), 'df_model_llf' (the "
            "estimated parameters) and 'nobs' (see boxcoxstat.base.compare)") from None


def _rows(label: str, obj: Any) -> list[dict[str, Any]]:
    """One row per column of ``obj``: its label, numbers and nesting information."""
    llf, k, nobs = (_value(obj, n) for n in ("llf", "df_model_llf", "nobs"))
    series = isinstance(llf, pd.Series)
    items: list[tuple[str, Any, Any, Any]] = []
    if series:
        for j, col in enumerate(llf.index):
            items.append((f"{label}[{col}]" if len(llf) > 1 else label, llf.iloc[j],
                          k.iloc[j] if isinstance(k, pd.Series) else k,
                          nobs.iloc[j] if isinstance(nobs, pd.Series) else nobs))
    else:
        items.append((label, llf, k, nobs))
    out = []
    nest = getattr(obj, "_compare_nesting", None)
    for j, (name, v, kk, n) in enumerate(items):
        v = float(v)
        if not np.isfinite(v):
            raise BoxCoxError(f"compare: model {name!r} has log-likelihood {v}")
        info = nest(j) if nest is not None else None
        power = None if info is None else info.get("power")
        out.append({"name": name, "llf": v, "k": int(kk), "nobs": int(n),
                    "lambda": np.nan if info is None or power is None else float(power),
                    "estimated": bool(info is not None and power is None), "info": info})
    return out


def _span_contains(big: np.ndarray, small: np.ndarray) -> bool:
    """Whether every column of ``small`` lies in the column span of ``big``."""
    coef, *_ = np.linalg.lstsq(big, small, rcond=None)
    resid = small - big @ coef
    scale = np.maximum(np.linalg.norm(small, axis=0), 1e-300)
    return bool(np.all(np.linalg.norm(resid, axis=0) <= _NEST_RTOL * scale))


def nested(small: dict[str, Any], big: dict[str, Any]) -> bool:
    """Whether the model described by ``small`` (its ``_compare_nesting``) is a special case
    of ``big``'s: the same response, weights and extra structure, a mean space inside
    ``big``'s, and a power that ``big`` estimates, or both fix the same power (or both
    estimate it, in the same family)."""
    ys, yb = np.asarray(small["response"]), np.asarray(big["response"])
    if ys.shape != yb.shape or not np.array_equal(ys, yb):
        return False
    ws, wb = small.get("weights"), big.get("weights")
    if (ws is None) != (wb is None) or (ws is not None and wb is not None
                                         and not np.array_equal(ws, wb)):
        return False
    if small.get("extra") != big.get("extra"):
        return False
    ps, pb = small.get("power"), big.get("power")
    same_family = small["family"] == big["family"]
    if pb is None:
        power_ok = same_family or (ps == 1.0 and {small["family"], big["family"]}
                                   <= {"boxcox", "yeojohnson"} and bool(np.all(ys > 0)))
    else:
        power_ok = ps is not None and ps == pb and (same_family or ps == 1.0)
    if not power_ok:
        return False
    return _span_contains(np.asarray(big["design"], dtype=np.float64),
                          np.asarray(small["design"], dtype=np.float64))


def compare(*models: Any, **named: Any) -> ComparisonFrame:
    """Models side by side on the likelihood of the untransformed response.

    Parameters
    ----------
    *models, **named
        Results: ``bcs.lm`` at a fixed power (``lmbda=``, ``lmbda=1`` the untransformed
        model) or an estimated one, ``bcs.fit`` of a column (each column of a multi-column
        fit is a row), and any result following the protocol of
        :mod:`boxcoxstat.base.compare` (``llf``, ``df_model_llf``, ``nobs``). Keyword
        arguments name their rows; positional ones are named ``model 1``, ``model 2``, ...

    Returns
    -------
    ComparisonFrame
        A DataFrame, one row per model, in the order given: ``llf`` (the untransformed
        response's log-likelihood, the Jacobian included), ``k`` (estimated parameters,
        lambda counted where estimated), ``nobs``, ``aic`` (``-2 llf + 2 k``), ``bic``
        (``-2 llf + log(nobs) k``), ``lambda`` (the fixed power; NaN where estimated or
        unknown), ``estimated``, and the likelihood-ratio test of each row against the row
        before it when one is nested in the other: ``vs`` (the row it is tested against),
        ``LR`` (``2 (llf_larger - llf_smaller)``), ``df`` (the difference in ``k``) and
        ``p`` (chi-square); empty where the pair is not nested. ``.summary()`` renders the
        table as text, HTML or LaTeX.

    Raises
    ------
    BoxCoxError
        No models, a model without the protocol's attributes, a non-finite log-likelihood,
        or two rows of the same name.

    Notes
    -----
    Nesting (for the LR test) needs both models' ``_compare_nesting``: the same response
    values and weights, the smaller model's mean space inside the larger's (checked
    numerically), and its power fixed where the larger estimates it, or equal. An
    untransformed model (Box-Cox power 1) is nested in the estimated power of either family.
    Comparing AIC or BIC across different responses (or different rows) is meaningless, and
    the table does not stop you: read ``nobs``.

    Examples
    --------
    >>> import numpy as np, boxcoxstat as bcs
    >>> trees = bcs.datasets.load("trees")
    >>> f = "Volume ~ np.log(Height) + np.log(Girth)"
    >>> table = bcs.compare(raw=bcs.lm(f, trees, lmbda=1), log=bcs.lm(f, trees, lmbda=0),
    ...                     power=bcs.lm(f, trees), column=bcs.fit(trees["Volume"]))
    >>> table[["llf", "k", "aic"]].round(3)
                llf  k      aic
    raw     -95.186  4  198.371
    log     -66.099  4  140.198
    power   -65.805  5  141.610
    column -125.006  3  256.012
    >>> round(float(table.loc["power", "LR"]), 4), table.loc["power", "vs"]
    (0.5876, 'log')
    """
    items = [(f"model {i + 1}", m) for i, m in enumerate(models)] + list(named.items())
    if not items:
        raise BoxCoxError("compare needs at least one model")
    rows: list[dict[str, Any]] = []
    for label, obj in items:
        rows.extend(_rows(label, obj))
    names = [r["name"] for r in rows]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise BoxCoxError(f"compare: rows {dup} have the same name; name the models with "
                          "keywords, compare(a=m1, b=m2)")
    notes = ["llf: log-likelihood of the untransformed response (the transform's Jacobian "
             "included); k: estimated parameters (lambda counted where estimated); "
             "aic = -2 llf + 2 k, bic = -2 llf + log(nobs) k.",
             "LR: likelihood-ratio test against the row named in 'vs' (the row before, "
             "where one of the two is nested in the other), chi-square with df = the "
             "difference in k."]
    vs, lr, df, pv = [""] * len(rows), [np.nan] * len(rows), [np.nan] * len(rows), \
        [np.nan] * len(rows)
    for i in range(1, len(rows)):
        a, b = rows[i - 1], rows[i]
        if a["info"] is None or b["info"] is None or a["k"] == b["k"]:
            continue
        small, big = (a, b) if a["k"] < b["k"] else (b, a)
        if not nested(small["info"], big["info"]):
            continue
        stat = max(2.0 * (big["llf"] - small["llf"]), 0.0)
        vs[i], lr[i], df[i] = a["name"], stat, float(big["k"] - small["k"])
        pv[i] = float(stats.chi2.sf(stat, df[i]))
    k = np.array([r["k"] for r in rows], dtype=np.int64)
    llf = np.array([r["llf"] for r in rows])
    nobs = np.array([r["nobs"] for r in rows], dtype=np.int64)
    frame = ComparisonFrame({
        "llf": llf, "k": k, "nobs": nobs, "aic": -2.0 * llf + 2.0 * k,
        "bic": -2.0 * llf + np.log(nobs) * k,
        "lambda": [r["lambda"] for r in rows], "estimated": [r["estimated"] for r in rows],
        "vs": vs, "LR": lr, "df": df, "p": pv}, index=names)
    if len(set(nobs.tolist())) > 1:
        notes.append("The rows have different numbers of observations: their llf, aic and "
                     "bic do not compare.")
    frame.notes = notes
    return frame
