"""The tables and notes of :meth:`LmResult.summary <boxcoxstat.LmResult.summary>`.

Every number comes from the result (the power's inference from ``m.power``, the
predictor powers' from their terms, computed by the core when the design was built); this
module arranges them and ``base.summary`` renders them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..base.summary import Summary, format_number, format_power, format_pvalue
from ..core import inference as inf
from .formula import term_inference

__all__ = ["lm_summary"]

_FAMILY = {"boxcox": "Box-Cox", "yeojohnson": "Yeo-Johnson", "bcnpower": "bcnPower"}


def _power_rows(m: Any, alpha: float) -> pd.DataFrame:
    """One row for the response power and one per ``bc()`` / ``yj()`` term."""
    p = m.power
    cols = ["lambda", "std err", f"[{alpha / 2:g}", f"{1 - alpha / 2:g}]", "rounded",
            "LR(l=0)", "p(l=0)", "LR(l=1)", "p(l=1)"]
    if p.fixed:
        response = [m.lmbda] + [np.nan] * 8
    else:
        lo, hi = p.conf_int(alpha).iloc[0]
        t0, t1 = p.test(0.0), p.test(1.0)
        response = [m.lmbda, float(p.bse.iloc[0]), lo, hi, p.rounded, t0.statistic, t0.pvalue,
                    t1.statistic, t1.pvalue]
    rows = {m.response: response}
    terms = term_inference(m.design_info) if m.design_info is not None else None
    for name, lam in m.term_lambdas.items():
        if terms is None or name not in terms.index or np.isnan(terms.loc[name, "bse"]):
            rows[name] = [lam] + [np.nan] * 8
            continue
        t = terms.loc[name]
        lo, hi = (t["lower"], t["upper"]) if alpha == 0.05 else (np.nan, np.nan)
        rounded = inf.rounded_power(np.array([lam]), np.array([t["lower"]]),
                                    np.array([t["upper"]]))[0]
        rows[name] = [lam, t["bse"], lo, hi, rounded, t["lr0"], inf.chi2_pvalue(t["lr0"]),
                      t["lr1"], inf.chi2_pvalue(t["lr1"])]
    out = pd.DataFrame.from_dict(rows, orient="index", columns=cols).astype(np.float64)
    roles = ["response (fixed)" if p.fixed else "response"] + ["predictor"] * len(m.term_lambdas)
    out.insert(0, "role", roles)
    return out


def lm_summary(m: Any, alpha: float = 0.05) -> Summary:
    """The report of an :class:`~boxcoxstat.LmResult` (see its ``summary``)."""
    lam = _power_rows(m, alpha)
    ci = m.conf_int(alpha)
    coef = m._table.assign(**{f"[{alpha / 2:g}": ci["lower"], f"{1 - alpha / 2:g}]": ci["upper"]})
    weighted = bool(m._stats["weighted"])
    fam = _FAMILY[m.family]
    if m.power.fixed:
        first = (f"Response: {fam} power of {m.response} fixed at {m.lmbda:g} "
                 "(given, not estimated: no standard error, interval or test).")
    else:
        first = (f"Response: {fam} power of {m.response} by profile likelihood "
                 f"(interval: {100 * (1 - alpha):g}%; tests: likelihood ratio, 1 df; "
                 "rounded: the convenient power nearest lambda inside the 95% profile "
                 "interval, m.power.rounded_power(rule='car') for car's).")
    counted = "lambda and the error variance" if not m.power.fixed else "the error variance"
    notes = [
        first,
        f"OLS at lambda = {format_number(m.lmbda)}: n = {m.nobs}, "
        f"R-squared = {format_number(m.rsquared)}, "
        f"residual std. error = {format_number(float(np.sqrt(m.scale)))} on "
        f"{m.df_resid} df" + ("; weighted least squares." if weighted else "."),
        f"Log-likelihood of {m.response} (Jacobian included) = "
        f"{format_number(m.llf)}, AIC = {format_number(m.aic)} "
        f"({m.df_model_llf} parameters, {counted} included).",
    ]
    p = m.power
    if p._gamma_values is not None:
        g = float(p._gamma_values[0])
        status = (p._gamma_status or ("fixed",))[0]
        what = ("bcnPower shift (Hawkins & Weisberg 2017)" if m.family == "bcnpower"
                else "Box-Cox of the response plus a fixed shift")
        if status == "fixed":
            notes.append(f"{what}: gamma = {format_number(g)}, fixed.")
        else:
            gse = float(p.bse.iloc[-1]) if len(p.bse) > 1 else np.nan
            se = f" (std err {format_number(gse)})" if np.isfinite(gse) else ""
            notes.append(f"{what}: gamma = {format_number(g)}{se}, {status}; lambda's "
                         "inference has gamma maximised out.")
    if m.term_lambdas:
        notes.append("Predictor powers: marginal maximum likelihood on each variable, learned "
                     "at fitting time and reused for new data; SE from the observed "
                     "information, 95% profile-likelihood interval" +
                     ("." if alpha == 0.05 else " (shown at 95% only)."))
    if m.aliased:
        notes.append(f"Aliased (dropped, linearly dependent): {', '.join(m.aliased)}.")
    if m.n_dropped:
        notes.append(f"{m.n_dropped} row(s) with missing values left out.")
    if not m.converged:
        notes.append("The solver did not converge; treat lambda with caution.")
    fmts = {"p(l=0)": format_pvalue, "p(l=1)": format_pvalue, "P>|t|": format_pvalue,
            "rounded": lambda v: "" if np.isnan(v) else format_power(v)}
    title = f"Linear model with a {fam}-transformed response: {m.formula}"
    tests = ["LR(l=0)", "p(l=0)", "LR(l=1)", "p(l=1)"]
    powers = lam.drop(columns=tests)
    powers = powers[[c for c in powers if c == "role" or powers[c].notna().any()]]
    tables = [("Power transformations", powers)]
    if lam[tests].notna().any().any():  # a fixed response power without bc()/yj() terms
        tables.append(("Likelihood-ratio tests of the powers", lam[tests]))  # has none
    tables.append(("Coefficients", coef))
    return Summary(title, tables, notes, fmts)
