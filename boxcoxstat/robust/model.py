"""What users call for a robust fit: validated columns to a ``RobustTransformResult``.

``bcs.fit(..., method="rewml" | "carroll" | "mtl")`` lands here after validation,
with the estimator's options checked by :mod:`.registry`: each column is estimated by
``estimators.robust_lambda`` (Raymaekers & Rousseeuw 2021; cellWise 2.5.3 ``transfo()``) and
the result is labelled. Columns without a robust scale (constant, or MAD 0) are left out and
reported in the result, as cellWise's ``transfo`` drops them, while every other column gets
the numbers it gets when fitted alone.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .._validation.columns import BoxCoxError, Columns
from .._validation.routes import Request
from ..base.transform import Provenance
from ..families import forward_unchecked
from . import estimators as rb
from .huber import MAD_R, apply_prestandardization, rejection_cutoff
from .registry import Spec, parse_spec
from .results import RobustTransformResult

__all__ = ["fit_robust_columns", "fit_request"]


def _median_mad(x: np.ndarray, fams: list[str], s: rb.RobustSolution, how: str
                ) -> tuple[np.ndarray, np.ndarray]:
    """Median and MAD (R's 1.4826) of each column's transformed prestandardized values."""
    p = x.shape[1]
    med, mad = np.empty(p), np.empty(p)
    for j in range(p):
        v = x[~np.isnan(x[:, j]), j]
        u = apply_prestandardization(v, s.locx[j], s.scalex[j], fams[j], how)
        with np.errstate(all="ignore"):  # transformed values that overflow: NaN, as sigmahat
            y = forward_unchecked(u, s.lmbda[j], fams[j])
            med[j] = np.median(y)
            mad[j] = MAD_R * np.median(np.abs(y - med[j]))
    return med, mad


def _check_converged(s: rb.RobustSolution, names: list[str], spec: Spec) -> None:
    """Refuse a column whose lambda ran off to the end of every expanded search range.

    With the default ``max_expand`` the range doubles 40 times (to about 5e12): a lambda still
    at its end is no estimate but the criterion decreasing without bound (as when a few
    far values dominate a handful of points). A smaller ``max_expand`` given by the user
    is their limit: the result then records ``converged=False``.
    """
    if "max_expand" in spec.given or not spec.options["expand"]:
        return
    bad = np.flatnonzero(~np.asarray(s.converged, dtype=bool))
    if bad.size:
        j = int(bad[0])
        raise BoxCoxError(
            f"column {names[j]!r}: the {spec.method} criterion keeps decreasing as lambda "
            f"grows (lambda reached {s.lmbda[j]:.3g} at the end of the widest search range), "
            "so it has no robust estimate; the column has too few values apart from its "
            "outliers. Use method='mle' or drop the column"
        )


def _without_zero_mad(cols: Columns, family: str) -> Columns:
    """``cols`` without the columns whose MAD is zero, which join ``cols.skipped`` (the
    criterion is Yeo-Johnson's for ``"auto"``: a column it keeps, Box-Cox keeps too)."""
    bad = rb.zero_mad_columns(cols.values, "boxcox" if family == "boxcox" else "yeojohnson")
    if not bad:
        return cols
    if len(bad) == len(cols.names):
        if len(bad) == 1 and not cols.skipped:  # one column: the estimator's own message
            rb._check_bulk(cols.values, "boxcox" if family == "boxcox" else "yeojohnson",
                           cols.names)
        listed = "; ".join(f"{n!r}: {r}" for n, r in cols.skipped)
        listed += "; " * bool(listed) + "; ".join(f"{cols.names[j]!r}: {r}"
                                                   for j, r in bad.items())
        raise BoxCoxError(f"no column can be fitted: {listed}")
    keep = [j for j in range(len(cols.names)) if j not in bad]
    return replace(cols, values=cols.values[:, keep], names=[cols.names[j] for j in keep],
                   n_missing=cols.n_missing[keep],
                   skipped=cols.skipped + tuple((cols.names[j], r) for j, r in bad.items()))


def fit_robust_columns(cols: Columns, family: str, spec: Spec, *,
                       skip: bool = False, stacklevel: int = 3) -> RobustTransformResult:
    """Fit every column of validated data by the robust estimator ``spec`` and build the
    result.

    ``family="auto"``: Yeo-Johnson for columns with values <= 0; for positive columns the
    family with the smaller robust criterion (cellWise's ``"bestObj"``). With ``skip``,
    columns whose MAD is zero are left out and reported (``RobustTransformResult.skipped``,
    with those ``cols.skipped`` already holds); otherwise they are refused by name.
    """
    if skip:
        cols = _without_zero_mad(cols, family)
    x = cols.values
    p = x.shape[1]
    method, opt = spec.method, spec.options
    fams = [family] * p
    reasons = [""] * p
    if family == "auto":
        yj = rb.robust_lambda(x, "yeojohnson", method, opt, cols.names)
        sol = {k: np.array(v, copy=True) for k, v in vars(yj).items()}
        positive = [j for j in range(p) if np.nanmin(x[:, j]) > 0]
        fams = ["yeojohnson"] * p
        reasons = ["Yeo-Johnson: the column has values <= 0"] * p
        if positive:
            bc = rb.robust_lambda(x[:, positive], "boxcox", method, opt,
                                  [cols.names[j] for j in positive])
            for k, j in enumerate(positive):
                o_bc, o_yj = bc.objective[k], yj.objective[j]
                if o_bc < o_yj:
                    fams[j] = "boxcox"
                    for key, val in vars(bc).items():
                        if np.ndim(val) == 2 and key == "weights":
                            sol[key][:, j] = val[:, k]
                        else:
                            sol[key][j] = val[k]
                    reasons[j] = f"Box-Cox: robust criterion {o_bc:.5f} < Yeo-Johnson {o_yj:.5f}"
                else:
                    reasons[j] = (f"Yeo-Johnson: robust criterion {o_yj:.5f} <= Box-Cox "
                                  f"{o_bc:.5f}")
        s = rb.RobustSolution(**sol)
    else:
        s = rb.robust_lambda(x, family, method, opt, cols.names)
    _check_converged(s, cols.names, spec)
    med, mad = _median_mad(x, fams, s, opt["prestandardize"])
    res = RobustTransformResult(
        names=tuple(cols.names), _layout=cols.layout, _families=tuple(fams),
        _lmbda_used=s.lmbda, _family_reasons=tuple(reasons), _requested_family=family,
        method=method, _nobs_values=(~np.isnan(x)).sum(axis=0).astype(np.int64),
        n_missing=cols.n_missing, _converged_values=s.converged, _lambda_limits=s.lmbda_range,
        _lmbda_initial=s.lmbda0, _objective_values=s.objective, _location_values=s.location,
        _scale_values=s.scale, _muhat_values=s.muhat, _sigmahat_values=s.sigmahat,
        _locx_values=s.locx, _scalex_values=s.scalex, _prestandardize=opt["prestandardize"],
        _cutoff=rejection_cutoff(opt["quant"]), _median_values=med, _mad_values=mad,
        _tuning=dict(spec.given), skipped=dict(cols.skipped),
        _source=Provenance(data=x, index=cols.index, weights=s.weights),
    )
    res._check_resolution(res._prepared(x), stacklevel,
                          "use a rounded power (bcs.fit(..., lmbda=<rounded>)), or subtract an "
                          "offset from the data before fitting")
    return res


def fit_request(req: Request) -> RobustTransformResult:
    """The estimator table's row for the robust estimators (``boxcoxstat.api.TABLE``): the
    request's options parsed by the registry, then :func:`fit_robust_columns` (``bcs.fit``
    reports and leaves out columns without a robust scale; ``PowerTransformer`` has left out
    its constant features already)."""
    return fit_robust_columns(req.data, req.family, parse_spec(req.estimator, **req.options),
                              skip=req.door == "fit", stacklevel=req.stacklevel + 1)
