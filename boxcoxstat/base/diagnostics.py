"""Diagnostics computed for display: normal QQ coordinates and reference lines.

Plotting draws what these functions return; it computes nothing itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

__all__ = ["normal_qq", "qq_line", "profile_cutoff", "qq_envelope", "fivenum",
           "studentized_residuals", "residual_envelope", "lowess_curve", "display_unit"]


def display_unit(values: ArrayLike) -> float:
    """A power of ten to divide plotted values by when they come near float64's limit
    (matplotlib's tick locator overflows on axes spanning values near 1e308), else 1.

    Examples
    --------
    >>> display_unit([1.0, 3e307]), display_unit([1.0, 2.0])
    (1e+307, 1.0)
    """
    top = float(np.max(np.abs(np.asarray(values, dtype=np.float64)), initial=0.0))
    if not top < 1e200:
        return float(10.0 ** np.floor(np.log10(top)))
    return 1.0


def normal_qq(y: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Theoretical normal quantiles and sorted data, with R's ``ppoints`` positions.

    ``p_i = (i - a) / (n + 1 - 2a)`` with ``a = 3/8`` for ``n <= 10`` and ``1/2`` otherwise
    (as R's ``qqnorm``).

    Examples
    --------
    >>> from boxcoxstat.base.diagnostics import normal_qq
    >>> z, y = normal_qq([3.0, 1.0, 2.0])
    >>> z.round(3), y
    (array([-0.869,  0.   ,  0.869]), array([1., 2., 3.]))
    """
    y = np.sort(np.asarray(y, dtype=np.float64))
    n = y.size
    a = 3.0 / 8.0 if n <= 10 else 0.5
    p = (np.arange(1, n + 1) - a) / (n + 1 - 2 * a)
    return stats.norm.ppf(p), y


def qq_line(y: ArrayLike) -> tuple[float, float]:
    """Intercept and slope of the line through the first and third quartiles (R's ``qqline``)."""
    y = np.asarray(y, dtype=np.float64)
    q1, q3 = np.quantile(y, [0.25, 0.75])
    z1, z3 = stats.norm.ppf([0.25, 0.75])
    slope = (q3 - q1) / (z3 - z1)
    return float(q1 - slope * z1), float(slope)


def profile_cutoff(llf_max: float, alpha: float = 0.05) -> float:
    """Log-likelihood level ``llf_max - chi2_1(1 - alpha)/2`` that bounds the profile interval."""
    return float(llf_max - 0.5 * stats.chi2.isf(alpha, 1))


def qq_envelope(y: ArrayLike, alpha: float = 0.05, envelope: str = "pointwise",
                reps: int = 1000, random_state: Any = None,
                line: tuple[float, float] | None = None) -> dict[str, NDArray[np.float64]]:
    """Normal QQ coordinates with car's quartile line and a ``1 - alpha`` envelope.

    ``envelope="pointwise"`` is car's ``qqPlot`` band: ``a + b z -+ z_{1-alpha/2} b/phi(z)
    sqrt(P (1 - P)/n)`` (the asymptotic SE of an order statistic), with ``a, b`` the line
    through the quartiles (:func:`qq_line`) and ``P`` R's ``ppoints``. ``"simulated"`` takes
    the pointwise ``alpha/2`` and ``1 - alpha/2`` quantiles of ``reps`` sorted normal samples
    of size n, placed on the same line (Atkinson 1985). ``line=(a, b)`` replaces the quartile
    line (a robust fit's location and scale, say) for the fit and both bands.

    Returns the dict ``z``, ``y`` (sorted), ``order`` (positions of the sorted values in the
    input), ``fit``, ``lower``, ``upper``.

    Examples
    --------
    >>> from boxcoxstat.base.diagnostics import qq_envelope
    >>> e = qq_envelope([2.0, 1.0, 4.0, 3.0, 10.0])
    >>> e["order"].tolist(), bool((e["lower"] < e["fit"]).all())
    ([1, 0, 3, 2, 4], True)
    """
    y = np.asarray(y, dtype=np.float64).reshape(-1)
    order = np.argsort(y, kind="stable")
    z, ys = normal_qq(y)
    n = y.size
    a, b = qq_line(y) if line is None else (float(line[0]), float(line[1]))
    fit = a + b * z
    if envelope == "pointwise":
        p = stats.norm.cdf(z)
        se = b / stats.norm.pdf(z) * np.sqrt(p * (1.0 - p) / n)
        half = stats.norm.isf(alpha / 2.0) * se
        lower, upper = fit - half, fit + half
    else:
        rng = np.random.default_rng(random_state)
        sims = np.sort(rng.standard_normal((int(reps), n)), axis=1)
        lo, hi = np.quantile(sims, [alpha / 2.0, 1.0 - alpha / 2.0], axis=0)
        lower, upper = a + b * lo, a + b * hi
    return {"z": z, "y": ys, "order": order, "fit": fit, "lower": lower, "upper": upper}


def fivenum(x: ArrayLike) -> NDArray[np.float64]:
    """Tukey's five-number summary (R's ``fivenum``): minimum, lower hinge, median, upper
    hinge, maximum.

    Examples
    --------
    >>> from boxcoxstat.base.diagnostics import fivenum
    >>> fivenum([1.0, 2, 3, 4, 5, 6]).tolist()
    [1.0, 2.0, 3.5, 5.0, 6.0]
    """
    x = np.sort(np.asarray(x, dtype=np.float64).reshape(-1))
    n = x.size
    n4 = np.floor((n + 3) / 2.0) / 2.0
    d = np.array([1.0, n4, (n + 1) / 2.0, n + 1 - n4, float(n)]) - 1.0
    return 0.5 * (x[np.floor(d).astype(int)] + x[np.ceil(d).astype(int)])


def studentized_residuals(resid: ArrayLike, q: ArrayLike, scale: float) -> NDArray[np.float64]:
    """Internally studentized residuals ``e_i / (s sqrt(1 - h_ii))`` of a least-squares fit.

    ``resid`` are the (weighted) residuals, ``q`` an orthonormal basis of the (weighted)
    design's column space (so the leverages are the row norms of ``q``), ``scale`` = s^2.
    """
    q = np.asarray(q, dtype=np.float64)
    h = np.einsum("ij,ij->i", q, q)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(resid, dtype=np.float64) / np.sqrt(scale * (1.0 - h))


def residual_envelope(q: ArrayLike, *, nsim: int = 199, alpha: float = 0.05,
                random_state: Any = None) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Pointwise simulated envelope of a regression's sorted studentized residuals (Atkinson
    1985); :func:`qq_envelope` is the envelope of a sample.

    Normal responses are simulated ``nsim`` times for the design spanned by ``q``, their
    studentized residuals sorted, and the ``alpha/2`` and ``1 - alpha/2`` quantiles of each
    order statistic returned (what R's ``car::qqPlot(..., simulate=TRUE)`` draws).

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.base.diagnostics import residual_envelope
    >>> q, _ = np.linalg.qr(np.column_stack([np.ones(20), np.arange(20.0)]))
    >>> lo, hi = residual_envelope(q, nsim=99, random_state=0)
    >>> lo.shape, bool(np.all(lo < hi))
    ((20,), True)
    """
    q = np.asarray(q, dtype=np.float64)
    n, k = q.shape
    rng = np.random.default_rng(random_state)
    z = rng.standard_normal((n, nsim))
    e = z - q @ (q.T @ z)
    s2 = np.einsum("ij,ij->j", e, e) / (n - k)
    h = np.einsum("ij,ij->i", q, q)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.sort(e / np.sqrt(np.outer(1.0 - h, s2)), axis=0)
    lo, hi = np.quantile(r, [alpha / 2.0, 1.0 - alpha / 2.0], axis=1)
    return lo, hi


def lowess_curve(x: ArrayLike, y: ArrayLike, frac: float = 2.0 / 3.0
                 ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """statsmodels' lowess smoother of ``y`` on ``x`` (R's ``lowess`` default span 2/3),
    sorted by ``x``."""
    from statsmodels.nonparametric.smoothers_lowess import lowess

    out = lowess(np.asarray(y, dtype=np.float64), np.asarray(x, dtype=np.float64), frac=frac)
    return out[:, 0], out[:, 1]
