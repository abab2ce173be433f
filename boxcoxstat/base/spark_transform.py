"""A fitted result's transforms as Spark column expressions, lazy and where the data are.

:func:`spark_transform` maps a fitted result (a
:class:`~boxcoxstat.base.transform.ColumnTransforms`) onto a Spark DataFrame with Spark's own
column expressions (``log``, ``log1p``, ``expm1``, ``when``; no Python UDF), so it runs on the
executors. ``ColumnTransforms.transform`` and ``inverse_transform`` call it for a Spark
DataFrame; fitting one is :mod:`boxcoxstat.federated.sparkfit`'s.

Needs the ``spark`` extra (``pip install "boxcoxstat[spark]"``: pyspark, which needs a Java
runtime).
"""

from __future__ import annotations

from typing import Any

from .._validation.columns import BoxCoxError

__all__ = ["spark_transform"]

EXTRA = 'pip install "boxcoxstat[spark]" (pyspark; Spark also needs a Java runtime)'


def _pyspark() -> Any:
    try:
        import pyspark.sql.functions as F
    except ImportError:
        raise BoxCoxError(f"a Spark DataFrame needs pyspark: {EXTRA}") from None
    return F


def _power(F: Any, u: Any, k: float) -> Any:
    """``expm1(k u)/k`` (``u`` at ``k = 0``), the power of a log-base ``u``."""
    return u if k == 0.0 else F.expm1(F.lit(k) * u) / F.lit(k)


def _unpower(F: Any, a: Any, k: float) -> Any:
    """``log1p(k a)/k`` (``a`` at ``k = 0``): the log-base whose power is ``a``."""
    return a if k == 0.0 else F.log1p(F.lit(k) * a) / F.lit(k)


def _forward(F: Any, x: Any, lam: float, family: str, name: str) -> Any:
    inf = float("inf")
    if family == "boxcox":
        bad = F.raise_error(F.lit(f"column {name!r}: Box-Cox requires strictly positive "
                                  "data (a value <= 0 was found)"))
        val = _power(F, F.log(x), lam)
        out = F.when(x <= 0, bad).otherwise(val)
    else:
        pos = _power(F, F.log1p(x), lam)
        neg = -_power(F, F.log1p(-x), 2.0 - lam)
        out = F.when(x >= 0, pos).when(x < 0, neg).otherwise(x)  # NaN and null stay
    over = F.raise_error(F.lit(f"column {name!r}: transformed values at lambda = {lam:.6g} "
                               "exceed the float64 range (about 1.8e308); refit with ymax= "
                               "or lmbda='safe'"))
    return F.when((out == inf) | (out == -inf), over).otherwise(out)


def _inverse(F: Any, y: Any, lam: float, family: str, name: str) -> Any:
    nan = F.lit(float("nan"))
    if family == "boxcox":
        k = lam
        out = F.when(F.lit(k) * y <= -1, nan).otherwise(F.exp(_unpower(F, y, k)))
    else:
        a = F.abs(y)
        pos = F.when(F.lit(lam) * a <= -1, nan).otherwise(F.expm1(_unpower(F, a, lam)))
        k = 2.0 - lam
        neg = F.when(F.lit(k) * a <= -1, nan).otherwise(-F.expm1(_unpower(F, a, k)))
        out = F.when(y >= 0, pos).when(y < 0, neg).otherwise(y)
    inf = float("inf")
    over = F.raise_error(F.lit(f"column {name!r}: the inverse transform at lambda = "
                               f"{lam:.6g} overflows float64"))
    return F.when((out == inf) | (out == -inf), over).otherwise(out)


def spark_transform(result: Any, df: Any, *, inverse: bool = False) -> Any:
    """``result.transform(df)`` (or ``inverse_transform``) for a Spark DataFrame.

    A lazy Spark DataFrame with every fitted column replaced by its transform, computed
    with Spark's column expressions (no Python UDF; the other columns pass through, since a
    Spark DataFrame has no index to join them back by). Box-Cox values <= 0 and values
    beyond float64 stop the Spark job with an error naming the column; a value without an
    inverse becomes NaN, as in memory (without the warning, which would need a pass).
    """
    F = _pyspark()
    if result._prepares():
        raise BoxCoxError("this result moves the data before the power (a shift or a robust "
                          "prestandardization); transforming a Spark DataFrame is available "
                          "for maximum-likelihood fits without gamma")
    present = set(df.columns)
    absent = [n for n in result.names if n not in present]
    if absent:
        raise BoxCoxError(f"the Spark DataFrame has no column(s) {absent}; the result was "
                          f"fitted on {list(result.names)}")
    exprs = {}
    for j, name in enumerate(result.names):
        lam, family = float(result._lmbda_used[j]), result._power_family(j)
        col = df[name].cast("double")
        exprs[name] = (_inverse if inverse else _forward)(F, col, lam, family, name)
    return df.select(*[exprs[c].alias(c) if c in exprs else df[c] for c in df.columns])
