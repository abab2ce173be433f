"""``bcs.fit`` by maximum likelihood: validated columns to a ``PowerTransformResult``.

Layer 6 (``univariate``). Every column goes through the core's one solver on the sample's
profile (:class:`~boxcoxstat.core.profile.SampleProfile`); ``family="auto"`` compares the two
families' likelihoods per column; ``ymax`` bounds lambda by the Lambert W inverse.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._validation import Columns
from ..core.bounds import lambda_bounds
from ..core.likelihood import llf_constant
from ..core.profile import SampleProfile
from ..core.sample import Sample
from ..core.solve import solve
from .results import PowerTransformResult

__all__ = ["fit_columns"]


def _fit_family(x: NDArray[np.float64], family: str) -> dict[str, Any]:
    """ML estimate and log-likelihood of each column of ``x`` (NaN = missing) in one family."""
    sample = Sample.from_array(x, family)
    profile = SampleProfile(sample)
    sol = solve(profile)
    slope = np.full(x.shape[1], np.nan) if sol.slope is None else sol.slope
    return {
        "lmbda": sol.lmbda,
        "nll": sol.nll,
        "llf": -sol.nll + llf_constant(sample.nobs()),
        "converged": sol.converged,
        "slope": slope,
        "profile": profile,
    }


def _choose(x: NDArray[np.float64], family: str):
    """Fit every column; under ``"auto"`` pick the family per column and say why."""
    p = x.shape[1]
    fams = [family] * p
    reasons = [""] * p
    if family != "auto":
        return _fit_family(x, family), fams, reasons
    positive = np.array([np.nanmin(x[:, j]) > 0 for j in range(p)])
    yj = _fit_family(x, "yeojohnson")
    yj.pop("profile")
    out = {k: v.copy() for k, v in yj.items()}
    for j in np.flatnonzero(~positive):
        fams[j] = "yeojohnson"
        reasons[j] = "Yeo-Johnson: the column has values <= 0"
    if positive.any():
        idx = np.flatnonzero(positive)
        bc = _fit_family(x[:, idx], "boxcox")
        bc.pop("profile")
        for k, j in enumerate(idx):
            if bc["llf"][k] >= yj["llf"][j]:
                fams[j] = "boxcox"
                for key in out:
                    out[key][j] = bc[key][k]
                reasons[j] = (f"Box-Cox: log-likelihood {bc['llf'][k]:.4f} >= Yeo-Johnson "
                              f"{yj['llf'][j]:.4f}")
            else:
                fams[j] = "yeojohnson"
                reasons[j] = (f"Yeo-Johnson: log-likelihood {yj['llf'][j]:.4f} > Box-Cox "
                              f"{bc['llf'][k]:.4f}")
    return out, fams, reasons


def fit_columns(cols: Columns, family: str, ymax: float | None = None,
                stacklevel: int = 3) -> PowerTransformResult:
    """Maximum-likelihood power of every column of validated data (``family`` may be
    ``"auto"``); the result keeps the data for inference on demand."""
    fam = family
    x = cols.values
    x.setflags(write=False)  # the result keeps these data; nobody may change them
    est, fams, reasons = _choose(x, fam)
    p = x.shape[1]
    lam_mle = est["lmbda"]
    lam_used = lam_mle.copy()
    llf = est["llf"].copy()
    limits = np.tile([-np.inf, np.inf], (p, 1))
    if ymax is not None:
        for j in range(p):
            limits[j] = lambda_bounds(cols.column(j), float(ymax), fams[j])
            lam_used[j] = float(np.clip(lam_mle[j], limits[j, 0], limits[j, 1]))
            if lam_used[j] != lam_mle[j]:
                one = SampleProfile(Sample.from_array(cols.column(j), fams[j]))
                val, _ = one.evaluate(lam_used[j : j + 1], 0, score=False)
                llf[j] = one.llf_offset()[0] - val[0]
    if not np.all(est["converged"]):
        bad = [cols.names[j] for j in np.flatnonzero(~est["converged"])]
        warnings.warn(f"lambda did not converge for column(s) {bad}", RuntimeWarning,
                      stacklevel=stacklevel)
    return PowerTransformResult(
        names=tuple(cols.names),
        layout=cols.layout,
        families=tuple(fams),
        family_reasons=tuple(reasons),
        requested_family=fam,
        lmbda_mle=lam_mle,
        lmbda_used=lam_used,
        nll_mle=est["nll"],
        llf_values=llf,
        nobs_values=(~np.isnan(x)).sum(axis=0).astype(np.int64),
        n_missing=cols.n_missing,
        converged_values=est["converged"],
        ymax=None if ymax is None else float(ymax),
        lambda_limits=limits,
        data=x,
        fitted_=None if fam == "auto" or ymax is not None else (est["profile"], est["slope"]),
    )
