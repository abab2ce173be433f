"""The result of :func:`boxcoxstat.lmer`: a linear mixed model with a power-transformed response.

Immutable. ``params``, ``bse``, ``pvalues``, ``conf_int()`` are the fixed effects at
the chosen power (on the transformed scale, as ``lmer`` on the transformed response reports
them; p-values and intervals from the normal distribution, as statsmodels' ``MixedLM``),
``variance_components`` lme4's ``VarCorr``, ``random_effects`` the conditional modes (BLUPs).
``llf`` is car's objective at the power: the log-likelihood (REML or ML, as fitted) of the
Jacobian-adjusted response, so it compares across powers; ``df_model_llf`` counts the
parameters. The power's own inference is ``m.power``, a
:class:`~boxcoxstat.PowerTransformResult` on the mixed model's profile, as ``bcs.lm``'s.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np
import pandas as pd
import patsy
from numpy.typing import NDArray
from scipy import linalg, stats

from .._validation.columns import BoxCoxError, check_option
from .._validation.containers import as_pandas_frame
from ..base import jsonio
from ..base.jsonio import saved
from ..base.results import ResultBase, check_alpha, interval_frame
from ..base.summary import Summary, format_number, format_power
from ..families import bcnpower_unbase
from ..regression.backtransform import median
from ..regression.formula_io import DesignCodec
from ..univariate.results import PowerTransformResult
from .formula import RandomTerm

__all__ = ["LmerResult", "RandomDesign"]

_COEF = ("coef", "std err", "z", "P>|z|")


def _group_keys(data: pd.DataFrame, columns: tuple[str, ...]) -> NDArray[np.object_]:
    """Each row's level of the grouping factor ``columns`` (joined with ``":"``)."""
    parts = [data[c].astype(str).to_numpy() for c in columns]
    out = parts[0].astype(object)
    for p in parts[1:]:
        out = np.char.add(np.char.add(out.astype(str), ":"), p.astype(str)).astype(object)
    return out


@dataclass(frozen=True)
class RandomDesign:
    """The random-effect terms evaluated on the fitted rows: per term its effects' names,
    its grouping factor's levels, the effects' model matrix and each row's level."""

    terms: tuple[RandomTerm, ...]
    effects: tuple[tuple[str, ...], ...]
    levels: tuple[tuple[str, ...], ...]
    design_infos: tuple[Any, ...] | None = None
    xs: tuple[NDArray[np.float64], ...] | None = None
    codes: tuple[NDArray[np.intp], ...] | None = None

    @property
    def dims(self) -> tuple[int, ...]:
        return tuple(len(e) for e in self.effects)

    @property
    def nlevels(self) -> tuple[int, ...]:
        return tuple(len(lv) for lv in self.levels)

    @classmethod
    def build(cls, terms: list[RandomTerm], data: pd.DataFrame, n: int) -> RandomDesign:
        """Evaluate the terms on the model's rows, refusing what lme4 refuses: a grouping
        factor with one level, or with as many levels (or effects) as observations."""
        data = data.reset_index(drop=True)
        effects, levels, infos, xs, codes = [], [], [], [], []
        for t in terms:
            try:
                mat = patsy.dmatrix(t.expr, data, NA_action="raise", return_type="dataframe")
            except Exception as err:  # patsy's errors: unknown names, bad expressions
                raise BoxCoxError(f"cannot evaluate the random-effect term {t.label}: "
                                  f"{str(err).splitlines()[0]}") from None
            if mat.shape[1] == 0:
                raise BoxCoxError(f"the random-effect term {t.label} has no effects")
            key = _group_keys(data, t.columns)
            code, uniq = pd.factorize(pd.Series(key), sort=True)
            nl, p = len(uniq), mat.shape[1]
            if nl < 2:
                raise BoxCoxError(
                    f"the grouping factor {t.group!r} of the random-effect term {t.label} has "
                    f"one level ({uniq[0]!r}) in the rows used: a variance between groups "
                    "cannot be estimated; drop the term")
            if nl >= n:
                raise BoxCoxError(
                    f"the grouping factor {t.group!r} of {t.label} has {nl} levels for {n} "
                    "observations (lme4 needs fewer levels than observations): its variance "
                    "cannot be told apart from the residual variance; drop the term")
            if nl * p >= n:
                raise BoxCoxError(
                    f"the term {t.label} has {nl * p} random effects for {n} observations; "
                    "they cannot be told apart from the residual variance (lme4 refuses "
                    "this too); use fewer effects per group, e.g. (1 | g)")
            effects.append(tuple(str(c) for c in mat.columns))
            levels.append(tuple(str(u) for u in uniq))
            infos.append(mat.design_info)
            xs.append(mat.to_numpy(dtype=np.float64))
            codes.append(np.asarray(code, dtype=np.intp))
        for t, x in zip(terms, xs, strict=True):
            if not np.all(np.isfinite(x)):
                raise BoxCoxError(f"the random-effect term {t.label} has infinite values")
        return cls(tuple(terms), tuple(effects), tuple(levels), tuple(infos), tuple(xs),
                   tuple(codes))

    def matrix(self) -> NDArray[np.float64]:
        """``Z`` (n x q): term by term, level by level, effect by effect (lme4's order)."""
        assert self.xs is not None and self.codes is not None
        n = self.xs[0].shape[0]
        blocks = []
        for x, code, p, nl in zip(self.xs, self.codes, self.dims, self.nlevels, strict=True):
            z = np.zeros((n, p * nl))
            for k in range(p):
                z[np.arange(n), code * p + k] = x[:, k]
            blocks.append(z)
        return np.hstack(blocks)

    def fit(self, psi: NDArray[np.float64], x: NDArray[np.float64], structure: Any,
            theta: NDArray[np.float64], df: float) -> dict[str, Any]:
        """Fixed effects, their covariance, the residual variance and the conditional modes
        at ``theta`` for the response ``psi`` (the penalised least squares of Bates et al.
        2015, eqs. 15-18)."""
        z = self.matrix()
        lam = structure.lam(theta)
        zl = z @ lam
        q = lam.shape[0]
        c = linalg.cholesky(zl.T @ zl + np.eye(q), lower=True)
        rzx = linalg.solve_triangular(c, zl.T @ x, lower=True)
        cu = linalg.solve_triangular(c, zl.T @ psi, lower=True)
        xtvx = x.T @ x - rzx.T @ rzx
        beta = np.linalg.solve(xtvx, x.T @ psi - rzx.T @ cu)
        u = linalg.solve_triangular(c.T, cu - rzx @ beta, lower=False)
        e = psi - x @ beta - zl @ u
        sigma2 = float(e @ e + u @ u) / df
        cov = sigma2 * np.linalg.inv(xtvx)
        return {"beta": beta, "cov": cov, "sigma2": sigma2, "b": lam @ u}


@dataclass(frozen=True, eq=False)
class LmerResult(ResultBase):
    """A linear mixed model at an estimated (or given) response power: ``bcs.lmer``'s result.

    ``power`` is the response power's own result (``lmbda``, ``bse``, ``conf_int()``,
    ``test()``, ``profile()``, ``rounded``); the other attributes describe the mixed model
    refitted at that power.
    """

    formula: str = saved(jsonio.Str())
    fixed_formula: str = saved(jsonio.Str())
    family: str = saved(jsonio.Str(choices=("boxcox", "yeojohnson", "bcnpower")))
    response: str = saved(jsonio.Str())
    reml: bool = saved(jsonio.Bool())
    power: PowerTransformResult = saved(jsonio.Nested(cls=PowerTransformResult))
    n_dropped: int = saved(jsonio.Int(minimum=0))
    missing: str = saved(jsonio.Str(choices=("drop", "raise")))
    coefficients: pd.DataFrame = saved(jsonio.Frame(columns=_COEF))
    covariance: pd.DataFrame = saved(jsonio.Frame())
    variance_components: pd.DataFrame = saved(jsonio.Frame(columns=("vcov", "sdcor")))
    ranef: pd.DataFrame = saved(jsonio.Frame(columns=("value",)))
    random_exprs: tuple[str, ...] = saved(jsonio.Strs())
    random_groups: tuple[str, ...] = saved(jsonio.Strs())
    theta: NDArray[np.float64] = saved(jsonio.Floats(finite=True))
    sigma2: float = saved(jsonio.Float())
    nobs: int = saved(jsonio.Int(minimum=1))
    rank: int = saved(jsonio.Int(minimum=0))
    nonconverged: NDArray[np.float64] = saved(jsonio.Floats())
    aliased: tuple[str, ...] = saved(jsonio.Strs())
    design_info: Any = saved(DesignCodec(optional=True), default=None, compare=False)
    # what only a live fit holds (not saved)
    index: pd.Index | None = None
    y: NDArray[np.float64] | None = None
    x: NDArray[np.float64] | None = None
    rdesign: RandomDesign | None = None
    profile_: Any = None
    data_: pd.DataFrame | None = None
    refit_: Any = None  # the model function that refits at a fixed power (``bcs.lmer``)

    @classmethod
    def assemble(cls, *, formula: str, fixed_formula: str, family: str, response: str,
                 reml: bool, power: PowerTransformResult, n_dropped: int, names: list[str],
                 aliased: tuple[str, ...], rdesign: RandomDesign, structure: Any,
                 theta: NDArray[np.float64], fit: dict[str, Any],
                 nonconverged: tuple[float, ...], missing: str, design_info: Any,
                 index: pd.Index, y: NDArray[np.float64], x: NDArray[np.float64],
                 profile: Any, data: pd.DataFrame | None = None,
                 refit: Any = None) -> LmerResult:
        beta, cov = fit["beta"], fit["cov"]
        se = np.sqrt(np.diag(cov))
        zval = beta / se
        coef = pd.DataFrame({"coef": beta, "std err": se, "z": zval,
                             "P>|z|": 2.0 * stats.norm.sf(np.abs(zval))}, index=names)
        covf = pd.DataFrame(cov, index=names, columns=names)
        rows, vals = [], []
        sigma2 = float(fit["sigma2"])
        for t, term in enumerate(rdesign.terms):
            tt = structure.factor(theta, t)
            vc = sigma2 * tt @ tt.T
            eff = rdesign.effects[t]
            for a in range(len(eff)):
                rows.append((term.group, eff[a], ""))
                vals.append((vc[a, a], np.sqrt(vc[a, a])))
            for b in range(len(eff)):
                for a in range(b + 1, len(eff)):
                    den = np.sqrt(vc[a, a] * vc[b, b])
                    rows.append((term.group, eff[b], eff[a]))
                    vals.append((vc[a, b], vc[a, b] / den if den > 0 else 0.0))
        rows.append(("Residual", "", ""))
        vals.append((sigma2, np.sqrt(sigma2)))
        vcf = pd.DataFrame(vals, columns=["vcov", "sdcor"],
                           index=pd.MultiIndex.from_tuples(rows, names=["group", "var1", "var2"]))
        b = fit["b"]
        rrows, rvals = [], []
        off = 0
        for t, _term in enumerate(rdesign.terms):
            p, lv = rdesign.dims[t], rdesign.levels[t]
            for j, level in enumerate(lv):
                for k, e in enumerate(rdesign.effects[t]):
                    rrows.append((str(t), level, e))
                    rvals.append(b[off + j * p + k])
            off += p * len(lv)
        ranef = pd.DataFrame({"value": rvals}, index=pd.MultiIndex.from_tuples(
            rrows, names=["term", "level", "effect"]))
        return cls(
            formula=formula, fixed_formula=fixed_formula, family=family, response=response,
            reml=reml, power=power, n_dropped=n_dropped, missing=missing, coefficients=coef,
            covariance=covf, variance_components=vcf, ranef=ranef,
            random_exprs=tuple(t.expr for t in rdesign.terms),
            random_groups=tuple(t.group for t in rdesign.terms), theta=np.asarray(theta),
            sigma2=sigma2, nobs=int(y.shape[0]), rank=int(x.shape[1]),
            nonconverged=np.asarray(nonconverged, dtype=np.float64), aliased=aliased,
            design_info=design_info, index=index, y=y, x=x, rdesign=rdesign,
            profile_=profile, data_=data, refit_=refit,
        )

    def __getstate__(self) -> dict[str, Any]:
        """Pickle: the designs as their JSON documents (patsy's objects do not pickle)."""
        d = dict(self.__dict__)
        codec = DesignCodec()
        if d.get("design_info") is not None:
            d["design_info"] = codec.encode(d["design_info"])
        rd = d.get("rdesign")
        if rd is not None and rd.design_infos is not None:
            d["rdesign"] = replace(rd, design_infos=tuple(codec.encode(i)
                                                          for i in rd.design_infos))
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        d = dict(d)
        codec = DesignCodec()
        if isinstance(d.get("design_info"), dict):
            d["design_info"] = codec.decode(d["design_info"])
        rd = d.get("rdesign")
        if rd is not None and rd.design_infos is not None:
            d["rdesign"] = replace(rd, design_infos=tuple(
                codec.decode(i) if isinstance(i, dict) else i for i in rd.design_infos))
        self.__dict__.update(d)

    # ------------------------------------------------------------------ estimates
    @property
    def lmbda(self) -> float:
        """The response power used (the estimate, or the power given)."""
        return float(self.power._lmbda_used[0])

    @property
    def converged(self) -> bool:
        """Whether the power converged and every random-effect fit it used did."""
        return bool(self.power._converged_values[0]) and self.nonconverged.size == 0

    @property
    def params(self) -> pd.Series:
        """Fixed effects on the transformed scale."""
        return self.coefficients["coef"].copy()

    @property
    def bse(self) -> pd.Series:
        """Standard errors of the fixed effects (``vcov`` of ``lmer``)."""
        return self.coefficients["std err"].copy()

    @property
    def tvalues(self) -> pd.Series:
        return self.coefficients["z"].copy()

    @property
    def pvalues(self) -> pd.Series:
        """Two-sided p-values of the fixed effects from the normal distribution (Wald z,
        as statsmodels' ``MixedLM``; lme4 itself reports none)."""
        return self.coefficients["P>|z|"].copy()

    def cov_params(self) -> pd.DataFrame:
        return self.covariance.copy()

    def conf_int(self, alpha: float = 0.05) -> pd.DataFrame:
        """Wald intervals of the fixed effects, ``coef -+ z(1 - alpha/2) bse`` (the power
        taken as known): a DataFrame ``lower``, ``upper``."""
        alpha = check_alpha(alpha)
        q = stats.norm.isf(alpha / 2.0)
        return interval_frame(self.params - q * self.bse, self.params + q * self.bse,
                              self.params.index)

    @property
    def scale(self) -> float:
        """The residual variance on the transformed scale."""
        return self.sigma2

    def random_effects(self) -> dict[str, pd.DataFrame]:
        """The conditional modes (BLUPs) of each term, as ``ranef(lmer)``: one DataFrame per
        term (levels by effects), keyed by the term (``"(1 + x | g)"``)."""
        out: dict[str, pd.DataFrame] = {}
        for t, (expr, group) in enumerate(zip(self.random_exprs, self.random_groups,
                                              strict=True)):
            part = self.ranef.xs(str(t), level="term")["value"].unstack("effect")
            label = f"({expr} | {group})"
            out[label if label not in out else f"{label}#{t}"] = part
        return out

    @property
    def llf(self) -> float:
        """car's objective at the power: the log-likelihood (REML or ML, as fitted) of the
        Jacobian-adjusted transformed response, ``logLik(update(model, z ~ .))`` with
        ``z = bcPower(y, lambda, jacobian.adjusted=TRUE)``. With ML this is the
        log-likelihood of the untransformed response (the Jacobian included)."""
        return float(self.power._llf_values[0])

    @property
    def df_model_llf(self) -> int:
        """Parameters counted by ``aic`` and ``bic``: the fixed effects, the random-effect
        parameters, the residual variance (lme4's ``logLik`` df) and the power when it was
        estimated."""
        status = self.power._gamma_status or ()
        return (self.rank + int(self.theta.shape[0]) + 1 + (0 if self.power.fixed else 1)
                + sum(st != "fixed" for st in status))

    @property
    def aic(self) -> float:
        return -2.0 * self.llf + 2.0 * self.df_model_llf

    @property
    def bic(self) -> float:
        return -2.0 * self.llf + np.log(self.nobs) * self.df_model_llf

    def profile(self, lmbda: Any = None) -> pd.DataFrame:
        """Profile log-likelihood of the power (car's objective) at ``lmbda`` (default: 21
        points across the 95% interval widened by half its width): ``lmbda``, ``llf``."""
        if lmbda is None and not self.power.fixed:
            lo, hi = self.power.conf_int().iloc[0]
            half = 0.5 * (hi - lo)
            lmbda = np.union1d(np.linspace(lo - half, hi + half, 21), [self.lmbda])
        return self.power.profile(lmbda=lmbda)

    # ------------------------------------------------------------------ refits
    def at(self, lmbda: float | Literal["rounded", "safe"]) -> LmerResult:
        """The mixed model refitted with the response power fixed at ``lmbda`` (a number,
        ``"rounded"`` for ``power.rounded``, or ``"safe"`` for ``power.safe``)."""
        if self.data_ is None or self.refit_ is None:
            self._not_available("at", "the result holds no data (it was loaded from JSON); "
                                "refit with bcs.lmer(..., lmbda=)")
        if self.family == "bcnpower":
            self._not_available("at", "a fixed response power is not available with "
                                "family='bcnpower' (as for bcs.lm); transform the response "
                                "with the power and shift you chose and fit it by lmer")
        if isinstance(lmbda, str):
            check_option("lmbda", lmbda, ("rounded", "safe"))
            lmbda = float(self.power.rounded if lmbda == "rounded" else self.power.safe)
        return self.refit_(self.formula, self.data_, family=self.family,  # type: ignore[arg-type]
                    REML=self.reml, missing=self.missing,  # type: ignore[arg-type]
                    lmbda=float(lmbda))

    # ------------------------------------------------------------------ prediction
    def predict(self, newdata: Any = None, *, random: bool = True) -> Any:
        """Predictions on the response scale: the inverse transform of the linear predictor
        (the conditional median of the response under the model).

        Parameters
        ----------
        newdata : DataFrame, optional
            New rows (the fitted rows when omitted).
        random : bool, default=True
            Add each row's random effects for the levels seen in the fit (lme4's
            ``predict(re.form = NULL)``); a level the fit has not seen contributes nothing
            (the population level, as ``allow.new.levels = TRUE``). ``False``: the
            population level (``re.form = NA``).

        Returns
        -------
        pandas Series, indexed as ``newdata``.
        """
        if newdata is None:
            if self.data_ is None:
                self._not_available("predict without newdata",
                                    "the result holds no data (it was loaded from JSON)")
            newdata = self.data_
        frame = as_pandas_frame(newdata)
        if not isinstance(frame, pd.DataFrame):
            raise BoxCoxError("newdata must be a DataFrame")
        if self.design_info is None:
            self._not_available("predict", "the result holds no design")
        try:
            (xnew,) = patsy.build_design_matrices([self.design_info], frame,
                                                  NA_action="raise", return_type="dataframe")
        except patsy.PatsyError as err:
            raise BoxCoxError(f"cannot evaluate the model's fixed effects on newdata: "
                              f"{str(err).splitlines()[0]}") from None
        eta = xnew[list(self.params.index)].to_numpy(dtype=np.float64) @ self.params.to_numpy()
        if random:
            eta = eta + self._random_part(frame)
        if self.family == "bcnpower":  # the base's Box-Cox inverse, then the shift undone
            gamma = float(self.power._gamma_values[0])  # type: ignore[index]
            out = bcnpower_unbase(median(eta, self.lmbda, "boxcox", truncate=True), gamma)
        else:
            out = median(eta, self.lmbda, self.family, truncate=True)
        return pd.Series(out, index=frame.index, name=self.response)

    def _random_part(self, frame: pd.DataFrame) -> NDArray[np.float64]:
        data = frame.reset_index(drop=True)
        total = np.zeros(len(data))
        live = self.rdesign is not None and self.rdesign.design_infos is not None
        for t, (expr, group) in enumerate(zip(self.random_exprs, self.random_groups,
                                              strict=True)):
            cols = tuple(group.split(":"))
            missing = [c for c in cols if c not in data.columns]
            if missing:
                raise BoxCoxError(f"newdata lacks the grouping column {missing[0]!r} of "
                                  f"({expr} | {group}); use random=False for the population "
                                  "level")
            try:
                if live:
                    assert self.rdesign is not None and self.rdesign.design_infos is not None
                    (xt,) = patsy.build_design_matrices([self.rdesign.design_infos[t]], data,
                                                        NA_action="raise",
                                                        return_type="dataframe")
                else:
                    xt = patsy.dmatrix(expr, data, NA_action="raise", return_type="dataframe")
            except patsy.PatsyError as err:
                raise BoxCoxError(f"cannot evaluate ({expr} | {group}) on newdata: "
                                  f"{str(err).splitlines()[0]}") from None
            effects = self.ranef.xs(str(t), level="term")["value"].unstack("effect")
            effects = effects[[str(c) for c in xt.columns]]
            keys = _group_keys(data, cols)
            known = pd.Index(effects.index).get_indexer(pd.Index(keys))
            vals = np.zeros((len(data), effects.shape[1]))
            hit = known >= 0
            vals[hit] = effects.to_numpy(dtype=np.float64)[known[hit]]
            total += np.einsum("ij,ij->i", xt.to_numpy(dtype=np.float64), vals)
        return total

    # ------------------------------------------------------------------ reports
    def summary(self, alpha: float = 0.05) -> Summary:
        """The power (estimate, standard error, profile interval, rounded power, LR tests),
        the fixed effects and the variance components."""
        alpha = check_alpha(alpha)
        how = "REML" if self.reml else "ML"
        notes = [f"Linear mixed model fitted by {how}: {self.formula}",
                 f"n = {self.nobs}" + (f" ({self.n_dropped} rows with missing values "
                                        "dropped)" if self.n_dropped else ""),
                 f"llf (car's objective, Jacobian-adjusted response) = {self.llf:.4f}, "
                 f"aic = {self.aic:.4f}, bic = {self.bic:.4f}"]
        if self.power.fixed:
            power = pd.DataFrame({"lmbda": [self.lmbda]}, index=[self.response])
            tables = [("Response power (fixed)", power)]
        else:
            with warnings.catch_warnings():  # bcnPower's gamma at its bound: said in a note
                warnings.filterwarnings("ignore", message=".* of gamma is not available")
                ci = self.power.conf_int(alpha)
                bse = self.power.bse
            power = pd.DataFrame({
                "lmbda": [self.lmbda], "bse": [float(bse.iloc[0])],
                "lower": [float(ci["lower"].iloc[0])], "upper": [float(ci["upper"].iloc[0])],
                "rounded": [format_power(self.power.rounded)],
            }, index=[self.response])
            tests = pd.DataFrame(
                [self._test_row(v) for v in (0.0, 1.0)],
                index=["lambda = 0", "lambda = 1"], columns=["LR", "df", "pvalue"])
            tables = [(f"Response power ({self.family})", power),
                      ("Likelihood-ratio tests of the power", tests)]
            notes += self._bound_notes() + self._gamma_notes()
        coef = self.coefficients.copy()
        ci = self.conf_int(alpha)
        coef[f"[{alpha / 2:g}"] = ci["lower"]
        coef[f"{1 - alpha / 2:g}]"] = ci["upper"]
        vc = self.variance_components.copy()
        # a loaded document's labels may be numbers: joined as text
        vc.index = [" ".join(str(p) for p in idx if p) for idx in vc.index]
        tables += [(f"Fixed effects (transformed scale, lambda = {format_number(self.lmbda)})",
                    coef), ("Variance components", vc)]
        if self.nonconverged.size:
            notes.append("The random-effect parameters did not converge at lambda = "
                         + ", ".join(f"{v:.6g}" for v in self.nonconverged))
        return Summary("Linear mixed model with a power-transformed response", tables, notes)

    def _test_row(self, lmbda0: float) -> list[float]:
        """The summary's LR test of ``lambda = lmbda0``: NaN where ``bounds`` exclude it."""
        b = self.power._bounds
        if b is not None and not b[0, 0] <= lmbda0 <= b[0, 1]:
            return [np.nan, 1, np.nan]
        t = self.power.test(lmbda0)
        return [t.statistic, t.df, t.pvalue]

    def _gamma_notes(self) -> list[str]:
        """bcnPower: the shift gamma, its standard error and status."""
        p = self.power
        if p._gamma_values is None:
            return []
        g = float(p._gamma_values[0])
        status = (p._gamma_status or ("estimated",))[0]
        gse = float(p._gamma_bse[0]) if p._gamma_bse is not None else np.nan
        se = f" (std err {format_number(gse)})" if np.isfinite(gse) else ""
        return [f"bcnPower shift (Hawkins & Weisberg 2017): gamma = {format_number(g)}{se}, "
                f"{status}; lambda's inference has gamma maximised out."]

    def _bound_notes(self) -> list[str]:
        """Where ``bounds=`` were given: whether lambda is on a bound (and the unconstrained
        maximum), and the tests the bounds exclude."""
        p = self.power
        if p._bounds is None:
            return []
        lo, hi = (float(v) for v in p._bounds[0])
        lam = float(p._lmbda_mle[0])
        free = np.nan if p._lmbda_free is None else float(p._lmbda_free[0])
        side = "lower" if lam <= lo else "upper" if lam >= hi else None
        if side is None:
            notes = [f"lambda maximised on [{lo:g}, {hi:g}] (bounds inactive); the interval "
                     "stays within them."]
        else:
            notes = [f"Bound active: lambda is the {side} bound of [{lo:g}, {hi:g}]; the "
                     f"unconstrained maximum is {free:.10g}. The interval is the powers within "
                     "the bounds whose profile likelihood is within the cut-off of the bounded "
                     "maximum; no std err at a bound."]
        out = [v for v in (0.0, 1.0) if not lo <= v <= hi]
        if out:
            notes.append("No LR test of lambda = " + " or ".join(f"{v:g}" for v in out)
                         + ": outside the bounds.")
        return notes

    def __repr__(self) -> str:
        how = "fixed" if self.power.fixed else "lmbda"
        return (f"<LmerResult {self.formula!r}: {self.family} {how} "
                f"{format_number(self.lmbda)}, {'REML' if self.reml else 'ML'}, "
                f"n={self.nobs}>")
