"""The response power of a normal linear model: design QR, stable profile likelihood, solver.

Layers 2-4 for regression (pure NumPy/SciPy). For a response y, a design X and case weights
w, the profile log-likelihood of the Box-Cox (or Yeo-Johnson) power of the response is

.. math::

    \\ell(\\lambda) = -\\frac{n}{2}\\Bigl(\\log 2\\pi + 1
    + \\log\\frac{\\mathrm{RSS}_w(\\lambda)}{n}\\Bigr)
    + (\\lambda - 1) J + \\frac12 \\sum_i \\log w_i, \\qquad
    J = \\sum_i \\mathrm{sgn}(y_i) \\log b_i,

where RSS_w is the weighted residual sum of squares of the transformed response regressed on
X and b = y (Box-Cox) or 1 + |y| (Yeo-Johnson) (Box & Cox 1964; the Jacobian is not weighted,
as in ``car::powerTransform`` and in the likelihood of ``lm(weights=)``).

Numerical approach: the design is factorised once (``design.qr_design``: Gram-Schmidt in
column order with R's ``dqrdc2`` rule, so aliased columns are found and named as ``lm`` names
them). Each side of the
response (all of it for Box-Cox; y >= 0 and y < 0 for Yeo-Johnson) is stored as log-ratios ``v``
to a reference (``sample.py``); its transform is ``e^a phi(v) + c`` with ``phi = expm1(k v)/k``,
``a = k log b_ref`` and ``c = expm1(a)/k``. The scale factors are kept as logarithms and divided
out before the residuals are formed, so RSS is known on the log scale and nothing overflows;
the reference moves to the extreme value when ``|k| max|v|`` is large
(``likelihood.choose_shift``).
The score ``dl/dlambda = J - n <r, r'>/<r, r>`` (r the residuals, r' those of the derivative of the
transform) is computed in the same scaled form and its root is found by bracketing and
Chandrupatla's method (``optimize.py``).

References
----------
Box, G. E. P. and Cox, D. R. (1964). An analysis of transformations. JRSS B 26, 211-243.
Yeo, I.-K. and Johnson, R. A. (2000). Biometrika 87, 954-959.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from .._special import dexprel, exprel, log_dexprel, log_exprel
from .._validation import BoxCoxError, normalize_family
from .design import Design, qr_design
from .likelihood import choose_shift, llf_constant
from .optimize import bracket_increasing, find_root
from .sample import Sample

__all__ = ["ResponseProfile", "LambdaSolution", "solve_lambda", "profile_bounds", "information"]

BLOCK_ELEMENTS = 1 << 21  # observations x lambdas evaluated in one pass


@dataclass(frozen=True)
class _SideInfo:
    rows: NDArray[np.intp]
    sample: Sample
    negative: bool
    m1: NDArray[np.float64]  # weighted residuals of the side's indicator (exactly 0 if absorbed)


@dataclass(frozen=True)
class ResponseProfile:
    """The profile likelihood of the response power for one design, ready to evaluate.

    Build with :meth:`build`; :meth:`nll_score` evaluates ``-l(lambda)`` (constants dropped)
    and its derivative for many lambdas at once.
    """

    family: str
    design: Design
    sides: tuple[_SideInfo, ...]
    jacobian: float
    nobs: int
    log_w_sum: float = field(default=0.0)
    y: NDArray[np.float64] | None = field(default=None, repr=False)

    @classmethod
    def build(
        cls, y: ArrayLike, design: Design, family: str = "boxcox",
        weights: ArrayLike | None = None,
    ) -> ResponseProfile:
        """Prepare the response ``y`` (finite; positive for Box-Cox) for ``design``."""
        family = normalize_family(family, allow_auto=False)
        y = np.asarray(y, dtype=np.float64).reshape(-1)
        n = y.shape[0]
        if n != design.nobs:
            raise BoxCoxError(f"the response has {n} values but the design {design.nobs} rows")
        if family == "boxcox" and np.any(y <= 0):
            raise BoxCoxError(
                f"Box-Cox requires a strictly positive response, but {int(np.sum(y <= 0))} "
                "value(s) are <= 0; use family='yeojohnson' or shift the response"
            )
        if np.ptp(y) == 0:
            raise BoxCoxError("the response is constant; there is no power to estimate")
        if n - design.rank < 1:
            raise BoxCoxError(
                f"the model has {design.rank} coefficients for {n} observations; no residual "
                "degrees of freedom are left to estimate a power"
            )
        ones = np.ones(n)
        scale = np.sqrt(n) if design.sw is None else np.linalg.norm(design.sw)
        const_in_span = bool(np.linalg.norm(design.resid(ones)) <= 1e-10 * scale)
        masks = [np.ones(n, dtype=bool)] if family == "boxcox" else [y >= 0, y < 0]
        masks = [m for m in masks if m.any()]
        sides: list[_SideInfo] = []
        for k, mask in enumerate(masks):
            rows = np.flatnonzero(mask)
            sample = Sample.from_array(y[rows], family)
            negative = family == "yeojohnson" and bool(y[rows[0]] < 0)
            if const_in_span and len(masks) == 1:
                m1 = np.zeros(n)
            elif const_in_span and k == 1:
                m1 = -sides[0].m1  # the two indicators add up to the constant
            else:
                m1 = design.resid(mask.astype(np.float64))
            sides.append(_SideInfo(rows, sample, negative, m1))
        if family == "boxcox":
            jac = float(np.sum(np.log(y)))
        else:
            jac = float(np.sum(np.sign(y) * np.log1p(np.abs(y))))
        lw = 0.0 if design.sw is None else float(2.0 * np.sum(np.log(design.sw)))
        return cls(family, design, tuple(sides), jac, n, 0.5 * lw, y)

    def _vectors(self, lmbda: NDArray[np.float64]):
        """Scaled residuals of the transform and of its lambda-derivative, one column each."""
        n, L = self.nobs, lmbda.shape[0]
        terms = []
        for s in self.sides:
            side = s.sample.sides[0]
            kappa = 2.0 - lmbda if s.negative else lmbda
            shift = choose_shift(side, kappa)
            d = side.v - shift  # (n_s, L)
            lr = side.log_ref[0] + shift  # (L,)
            with np.errstate(over="ignore", invalid="ignore"):
                phi = d * exprel(kappa * d)
                chi = (d * d) * dexprel(kappa * d)
            a = kappa * lr
            with np.errstate(divide="ignore"):
                log_lr = np.log(np.abs(lr))
            log_c = log_lr + log_exprel(a)
            log_cd = 2.0 * log_lr + log_dexprel(a)
            terms.append((s, phi, chi, a, lr, log_c, log_cd))
        m = np.max([t[3] for t in terms] + [np.where(np.isfinite(t[5]), t[5], -np.inf)
                                            for t in terms], axis=0)
        z = np.zeros((n, L))
        zd = np.zeros((n, L))
        cz = np.zeros((n, L))
        czd = np.zeros((n, L))
        for s, phi, chi, a, lr, log_c, log_cd in terms:
            sign = -1.0 if s.negative else 1.0
            ea = np.exp(a - m)
            z[s.rows] += sign * ea * phi
            zd[s.rows] += ea * (lr * phi + chi)
            with np.errstate(under="ignore"):
                cz += np.outer(s.m1, sign * np.sign(lr) * np.exp(log_c - m))
                czd += np.outer(s.m1, np.exp(log_cd - m))
        r = self.design.resid(z) + cz
        rd = self.design.resid(zd) + czd
        return r, rd, m

    def nll_score(
        self, lmbda: ArrayLike, *, score: bool = True
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``-l(lambda)`` without the constant ``n/2 (log 2 pi + 1) - 1/2 sum log w``, and its
        derivative, for each lambda in a 1-D array."""
        lam = np.atleast_1d(np.asarray(lmbda, dtype=np.float64))
        n = float(self.nobs)
        block = max(1, BLOCK_ELEMENTS // self.nobs)  # lambdas per pass: temporaries stay small
        val = np.empty_like(lam)
        sc = np.full_like(lam, np.nan)
        for a in range(0, lam.shape[0], block):
            part = lam[a : a + block]
            r, rd, m = self._vectors(part)
            rr = np.einsum("ij,ij->j", r, r)
            with np.errstate(divide="ignore"):
                val[a : a + block] = ((1.0 - part) * self.jacobian
                                      + 0.5 * n * (2.0 * m + np.log(rr) - np.log(n)))
            if score:
                sc[a : a + block] = -self.jacobian + n * np.einsum("ij,ij->j", r, rd) / rr
        return val, sc

    def fits_exactly(self, lmbda: float) -> bool:
        """Whether the transformed response at ``lmbda`` lies in the design's column space
        (residuals below 1e-10 of the centred response): the likelihood is then unbounded."""
        if self.y is None:
            return False
        lam = np.array([float(lmbda)])
        r, _, _ = self._vectors(lam)
        ones = np.ones((self.nobs, 1))
        w = None if self.design.sw is None else self.design.sw**2
        mean_only = ResponseProfile.build(self.y, qr_design(ones, w), self.family, w)
        r0, _, _ = mean_only._vectors(lam)
        return bool(np.linalg.norm(r) <= 1e-10 * np.linalg.norm(r0))

    def llf(self, nll: ArrayLike) -> NDArray[np.float64]:
        """The Gaussian log-likelihood (Jacobian included) from :meth:`nll_score`'s value."""
        return -np.asarray(nll) + llf_constant(self.nobs) + self.log_w_sum


@dataclass(frozen=True)
class LambdaSolution:
    """The maximiser of the profile likelihood and what was learned on the way."""

    lmbda: float
    nll: float
    converged: bool


def _f(profile: ResponseProfile):
    def f(lam: NDArray[np.float64], idx: NDArray[np.intp]) -> NDArray[np.float64]:
        return profile.nll_score(lam)[1]

    return f


def solve_lambda(profile: ResponseProfile) -> LambdaSolution:
    """Root of the score: bracketed by doubling from [0, 1], closed by Chandrupatla's method.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.core.response import qr_design, ResponseProfile, solve_lambda
    >>> rng = np.random.default_rng(0)
    >>> x = rng.uniform(1, 2, 200)
    >>> y = (1 + 0.5 * (1 + x + 0.1 * rng.standard_normal(200))) ** 2
    >>> X = np.column_stack([np.ones(200), x])
    >>> sol = solve_lambda(ResponseProfile.build(y, qr_design(X)))
    >>> round(sol.lmbda, 2)
    0.26
    """
    f = _f(profile)
    lo, hi, flo, fhi, ok, _ = bracket_increasing(f, np.zeros(1), np.ones(1), limit=1e6)
    res = find_root(f, lo, hi, flo, fhi, xatol=1e-13)
    lam = float(res.x[0])
    val = float(profile.nll_score(np.array([lam]), score=False)[0][0])
    return LambdaSolution(lam, val, bool(ok[0] and res.converged[0] and np.isfinite(val)))


def information(profile: ResponseProfile, lmbda: float) -> float:
    """Observed information ``-l''(lambda)``: Richardson-extrapolated central differences of
    the analytic score (steps h and h/2 on the curvature's own scale)."""

    def slope(h: float) -> float:
        s = profile.nll_score(np.array([lmbda + h, lmbda - h]))[1]
        return float((s[0] - s[1]) / (2.0 * h))

    c0 = abs(slope(1e-4 * max(1.0, abs(lmbda))))
    h = 1e-2 / np.sqrt(c0) if c0 > 0 else 1e-2
    h = float(np.clip(h, 1e-6 * max(1.0, abs(lmbda)), 1e-2 * max(1.0, abs(lmbda))))
    return (4.0 * slope(h / 2.0) - slope(h)) / 3.0


def profile_bounds(
    profile: ResponseProfile, lmbda: float, nll_hat: float, bse: float, alpha: float = 0.05
) -> tuple[float, float]:
    """Endpoints of ``{lambda : 2 (l(hat) - l(lambda)) <= chi2_1(1 - alpha)}``, both solved by
    bracketing and root finding (as ``inference.profile_interval`` does for samples)."""
    half_q = 0.5 * stats.chi2.isf(alpha, 1)
    direction = np.array([1.0, -1.0])
    step = 2.0 * bse if np.isfinite(bse) and bse > 0 else 1e-3 * max(1.0, abs(lmbda))

    def f(t: NDArray, idx: NDArray) -> NDArray:
        val, _ = profile.nll_score(lmbda + direction[idx] * t, score=False)
        return val - nll_hat - half_q

    a, b, fa, fb, ok, _ = bracket_increasing(
        f, np.zeros(2), np.full(2, step), flo=np.full(2, -half_q), limit=1e6
    )
    res = find_root(f, a, b, fa, fb, xatol=0.0, xrtol=1e-13)
    if not np.all(ok & res.converged):
        raise BoxCoxError(
            "the profile likelihood does not fall to the interval's cut-off within |lambda| "
            "<= 1e6; the data do not determine an interval"
        )
    return lmbda - float(res.x[1]), lmbda + float(res.x[0])
