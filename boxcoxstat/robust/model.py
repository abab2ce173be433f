"""What users call for a robust fit: validated columns to a ``RobustTransformResult``.

``bcs.fit(..., method="rewml" | "carroll" | "mtl")`` lands here after the gate, with the
estimator's options checked by :mod:`.registry` (the robust family's model stage): the
family's engine, ``estimators.robust_columns`` (Raymaekers & Rousseeuw 2021; cellWise 2.5.3
``transfo()``), estimates every column, chooses the family under ``"auto"`` and words the
resolution warnings, and the result is labelled. Columns without a robust scale (constant,
or MAD 0) are left out and reported in the result, as cellWise's ``transfo`` drops them,
while every other column gets the numbers it gets when fitted alone.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._validation.columns import Columns
from .._validation.routes import Request
from ..base.transform import Provenance
from ..exceptions import ResolutionWarning
from . import estimators as rb
from .huber import rejection_cutoff
from .registry import Spec, parse_spec
from .results import RobustTransformResult

__all__ = ["fit_robust_columns", "fit_request"]


def fit_robust_columns(cols: Columns, family: str, spec: Spec, *,
                       skip: bool = False, stacklevel: int = 3) -> RobustTransformResult:
    """Fit every column of validated data by the robust estimator ``spec`` and build the
    result: the robust family's engine computes everything
    (:func:`~boxcoxstat.robust.estimators.robust_columns`), then the result is labelled.

    ``family="auto"``: Yeo-Johnson for columns with values <= 0; for positive columns the
    family with the smaller robust criterion (cellWise's ``"bestObj"``). With ``skip``,
    columns whose MAD is zero are left out and reported (``RobustTransformResult.skipped``,
    with those ``cols.skipped`` already holds); otherwise they are refused by name. A lambda
    that ran off to the end of every expanded search range is refused unless the user set
    ``max_expand`` (or ``expand=False``): the result then records ``converged=False``.
    """
    method, opt = spec.method, spec.options
    fit = rb.robust_columns(
        cols.values, family, method, opt, cols.names, skipped=cols.skipped, skip=skip,
        strict="max_expand" not in spec.given and bool(opt["expand"]),
        remedy="use a rounded power (bcs.fit(..., lmbda=<rounded>)), or subtract an offset "
               "from the data before fitting")
    x = cols.values if fit.keep.size == len(cols.names) else cols.values[:, fit.keep]
    s = fit.solution
    res = RobustTransformResult(
        names=tuple(fit.names), _layout=cols.layout, _families=tuple(fit.families),
        _lmbda_used=s.lmbda, _family_reasons=tuple(fit.reasons), _requested_family=family,
        method=method, _nobs_values=(~np.isnan(x)).sum(axis=0).astype(np.int64),
        n_missing=cols.n_missing[fit.keep], _converged_values=s.converged,
        _lambda_limits=s.lmbda_range, _lmbda_initial=s.lmbda0, _objective_values=s.objective,
        _location_values=s.location, _scale_values=s.scale, _muhat_values=s.muhat,
        _sigmahat_values=s.sigmahat, _locx_values=s.locx, _scalex_values=s.scalex,
        _prestandardize=opt["prestandardize"], _cutoff=rejection_cutoff(opt["quant"]),
        _median_values=fit.median, _mad_values=fit.mad, _tuning=dict(spec.given),
        skipped=dict(fit.skipped),
        _source=Provenance(data=x, index=cols.index, weights=s.weights),
    )
    for text in fit.losses:
        warnings.warn(text, ResolutionWarning, stacklevel=stacklevel)
    return res


def fit_request(req: Request) -> RobustTransformResult:
    """The estimator table's row for the robust estimators (``boxcoxstat.api.TABLE``): the
    request's options parsed by the registry, then :func:`fit_robust_columns` (``bcs.fit``
    reports and leaves out columns without a robust scale; ``PowerTransformer`` has left out
    its constant features already)."""
    return fit_robust_columns(req.data, req.family, parse_spec(req.estimator, **req.options),
                              skip=req.door == "fit", stacklevel=req.stacklevel + 1)
