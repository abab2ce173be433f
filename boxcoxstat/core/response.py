"""The response power of a normal linear model: the profile likelihood from a QR of the design.

Pure NumPy/SciPy: a :class:`~boxcoxstat.core.profile.Profile`, so the one solver and
the one inference module serve it. For a response y, a design X and case weights
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
transform) is computed in the same scaled form. A design that spans only the constant is the
sample itself: :func:`response_profile` then returns the sample's profile, so ``lm("y ~ 1")``
and ``fit(y)`` are one computation.

References
----------
Box, G. E. P. and Cox, D. R. (1964). An analysis of transformations. JRSS B 26, 211-243.
Yeo, I.-K. and Johnson, R. A. (2000). Biometrika 87, 954-959.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._special import A2_SERIES_RADIUS, d2exprel, log_d2exprel, log_dexprel, log_exprel
from ..exceptions import BoxCoxError
from .design import LONG_ROWS, Design, qr_design
from .kernel import ZERO_K, _block_values, _work, phi_chi
from .likelihood import choose_shift, llf_constant
from .profile import (
    SUBSAMPLE_FROM,
    SUBSAMPLE_SIZE,
    Profile,
    RescaledProfile,
    SampleProfile,
    as_pairs,
    reach_of,
)
from .sample import Sample, length_unit

__all__ = ["ResponseProfile", "response_profile", "spans_constant_only"]

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

    Build with :meth:`build` (or :func:`response_profile`, which returns the sample's profile
    for an intercept-only model); :meth:`evaluate` gives ``-l(lambda)`` (constants dropped)
    and its derivative for many lambdas at once.
    """

    family: str
    design: Design
    sides: tuple[_SideInfo, ...]
    jacobian: float
    n: int
    log_w_sum: float = field(default=0.0)
    y: NDArray[np.float64] = field(default_factory=lambda: np.empty(0), repr=False)
    # the lengths' unit (1, or a power of two for a Yeo-Johnson response on a tiny scale,
    # whose sides are then stored in it; ``sample.Sample.unit``)
    unit: float = 1.0
    # log of the power of two the weights' square roots were divided by (weights up to 1e300
    # would overflow the weighted residuals' sums of squares); the NLL adds back n times it
    log_sw_scale: float = 0.0

    @classmethod
    def build(
        cls, y: ArrayLike, design: Design, family: str = "boxcox",
        weights: ArrayLike | None = None,
    ) -> ResponseProfile:
        """Prepare the response ``y`` for ``design``. The data are assumed to have passed the
        validation gate (finite, not constant, positive for Box-Cox: ``_validation``), and
        ``family`` is a canonical name, ``"boxcox"`` or ``"yeojohnson"`` (the doors that
        reach here -- ``fit``, ``lm``, ``lmer``, ``fit_joint``, ``BoxCoxRegressor`` --
        normalise the user's spelling once)."""
        if family not in ("boxcox", "yeojohnson"):
            raise BoxCoxError(f"family must be 'boxcox' or 'yeojohnson' here, got {family!r}")
        y = np.asarray(y, dtype=np.float64).reshape(-1)
        n = y.shape[0]
        if n != design.nobs:
            raise BoxCoxError(f"the response has {n} values but the design {design.nobs} rows")
        if n - design.rank < 1:
            raise BoxCoxError(
                f"the model has {design.rank} coefficients for {n} observations; no residual "
                "degrees of freedom are left to estimate a power"
            )
        lw = 0.0 if design.sw is None else float(2.0 * np.sum(np.log(design.sw)))
        log_c = 0.0
        if design.sw is not None:  # sqrt(w) in a power of two near its largest (exact)
            c = float(np.ldexp(1.0, int(np.frexp(np.max(design.sw))[1])))
            if c != 1.0:
                design, log_c = replace(design, sw=design.sw / c), float(np.log(c))
        const_in_span = design.constant_in_span
        masks = [np.ones(n, dtype=bool)] if family == "boxcox" else [y >= 0, y < 0]
        masks = [m for m in masks if m.any()]
        sides: list[_SideInfo] = []
        for k, mask in enumerate(masks):
            rows = np.flatnonzero(mask)
            sample = Sample.from_array(y if rows.size == n else y[rows], family)
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
        unit = 1.0
        if family == "yeojohnson":
            size = max(float(max(abs(sd.log_ref[0]), -sd.vrange[0][0], sd.vrange[1][0]))
                       for sd in (info.sample.sides[0] for info in sides))
            unit = float(length_unit(size))
            if unit != 1.0:
                sides = [replace(info, sample=info.sample.scaled(unit)) for info in sides]
        return cls(family, design, tuple(sides), jac, n, 0.5 * lw, y, unit, log_c)

    def _vectors(self, lmbda: NDArray[np.float64], score: bool = True):
        """Scaled residuals of the transform and of its lambda-derivative (``None`` unless
        ``score``), one column each."""
        r, rd, _, m = self.derivative_vectors(lmbda, 1 if score else 0)
        return r, rd, m

    def derivative_vectors(self, lmbda: NDArray[np.float64], order: int = 1):
        """Scaled residuals of the transform and of its first ``order`` (0, 1 or 2)
        derivatives in lambda, one column per lambda, and the log of their common scale.

        Returns ``(r, rd, rdd, m)``: the residuals of ``psi(lambda)``, ``psi'`` and ``psi''``
        on the design, each divided by ``e^m`` (``None`` beyond ``order``). On a side with
        exponent ``k`` (``lambda``, or ``2 - lambda`` on the Yeo-Johnson negative side, whose
        transform is negated) and log-ratios ``d`` to its reference ``b_ref``
        (``lr = log b_ref``), the transform is ``e^{k lr} phi(k) + c(k)``; with
        ``chi = d phi/dk = d^2 exprel'(k d)`` and ``phi'' = d^3 exprel''(k d)``
        (``_special.d2exprel``), the second derivative in lambda is
        ``e^{k lr} (lr^2 phi + 2 lr chi + phi'')`` (times -1 on the negative side) and the
        constant's is ``lr^3 exprel''(k lr)`` (the same sign as the constant).
        """
        n, L = self.n, lmbda.shape[0]
        score, second = order >= 1, order >= 2
        terms = []
        for s in self.sides:
            side = s.sample.sides[0]
            kappa = (2.0 - lmbda if s.negative else lmbda) * self.unit
            shift = choose_shift(side, kappa)
            d = side.v - shift  # (n_s, L)
            lr = side.log_ref[0] + shift  # (L,)
            phi, chi = phi_chi(d, kappa, _span(side, shift), score)
            psi = d * d * d * d2exprel(kappa * d) if second else None
            a = kappa * lr
            with np.errstate(divide="ignore"):
                log_lr = np.log(np.abs(lr))
            log_c = log_lr + log_exprel(a)
            log_cd = 2.0 * log_lr + log_dexprel(a)
            log_cdd = 3.0 * log_lr + log_d2exprel(a) if second else None
            terms.append((s, phi, chi, psi, a, lr, log_c, log_cd, log_cdd))
        # the scale: the largest factor in front of a term that reaches the residuals (a
        # side's constant is absorbed, and must not set the scale, when m1 is exactly 0)
        m = np.max([t[4] for t in terms] + [np.where(np.isfinite(t[6]), t[6], -np.inf)
                                            for t in terms if np.any(t[0].m1 != 0)], axis=0)
        z = np.zeros((n, L))
        zd = np.zeros((n, L))
        zdd = np.zeros((n, L)) if second else None
        cz = np.zeros((n, L))
        czd = np.zeros((n, L))
        czdd = np.zeros((n, L)) if second else None
        for s, phi, chi, psi, a, lr, log_c, log_cd, log_cdd in terms:
            sign = -1.0 if s.negative else 1.0
            ea = np.exp(a - m)
            z[s.rows] += sign * ea * phi
            if score:
                zd[s.rows] += ea * (lr * phi + chi)
            if zdd is not None:
                zdd[s.rows] += sign * ea * (lr * (lr * phi + 2.0 * chi) + psi)
            if np.any(s.m1 != 0):  # an absorbed constant adds nothing to the residuals
                with np.errstate(under="ignore"):
                    cz += np.outer(s.m1, sign * np.sign(lr) * np.exp(log_c - m))
                    if score:
                        czd += np.outer(s.m1, np.exp(log_cd - m))
                    if czdd is not None:
                        czdd += np.outer(s.m1, sign * np.sign(lr) * np.exp(log_cdd - m))
        r = self.design.resid(z) + cz
        rd = self.design.resid(zd) + czd if score else None
        rdd = self.design.resid(zdd) + czdd if zdd is not None and czdd is not None else None
        return r, rd, rdd, m

    def fits_at_every_lambda(self) -> bool:
        """Whether every transform of the response lies in the design's column space.

        That happens exactly when the indicator of each distinct response value does (then
        any function of the response is fitted without error and the likelihood is
        unbounded); tightly clustered data, however close, are not such a case.
        """
        rank = self.design.rank
        if np.unique(self.y[: 4 * rank + 4]).size > rank:  # the first rows decide, usually
            return False
        values = np.unique(self.y)
        if values.size > rank:
            return False
        for v in values:
            ind = (self.y == v).astype(np.float64)
            size = np.linalg.norm(ind if self.design.sw is None else ind * self.design.sw)
            if np.linalg.norm(self.design.resid(ind)) > 1e-10 * size:
                return False
        return True

    def fits_exactly_at(self, lmbda: float) -> bool:
        """Whether the response transformed at ``lmbda`` lies in the design's column space:
        its residuals are below 1e-10 of those of the intercept-only model (then the
        likelihood is unbounded at ``lmbda``, as for ``y = exp(x)`` regressed on ``x`` at 0)."""
        lam = np.array([float(lmbda)])
        info = self.sides[0]
        if self.n >= LONG_ROWS and len(self.sides) == 1 and not np.any(info.m1 != 0):
            # a long one-sided response on a design with the constant: the residual sum of
            # squares against the centred one (the intercept-only model's), from one pass over
            # the blocks (``residual_sums``)
            side = info.sample.sides[0]
            kappa = (2.0 - lam if info.negative else lam) * self.unit
            shift = choose_shift(side, kappa)
            with np.errstate(all="ignore"):
                rr, ss = residual_sums(self.design, side.v[:, 0], shift, kappa,
                                       _span(side, shift), False, centred=True)
            return bool(np.isfinite(rr[0]) and np.isfinite(ss[0]) and ss[0] > 0
                        and np.sqrt(max(rr[0], 0.0)) <= 1e-10 * np.sqrt(ss[0]))
        with np.errstate(all="ignore"):
            r, _, m = self._vectors(lam, False)
            ones = np.ones((self.n, 1))
            w = None if self.design.sw is None else self.design.sw**2
            r0, _, m0 = ResponseProfile.build(self.y, qr_design(ones, w), self.family,
                                              w)._vectors(lam, False)
            n1 = np.linalg.norm(r) * np.exp(m[0] - m0[0])
            n0 = np.linalg.norm(r0)
        return bool(np.isfinite(n1) and np.isfinite(n0) and n0 > 0 and n1 <= 1e-10 * n0)

    def sample_of_response(self) -> Sample:
        """The response as a sample (what an intercept-only model reduces to)."""
        return Sample.from_array(self.y, self.family)

    # ------------------------------------------------------------------ the Profile
    @property
    def ncols(self) -> int:
        return 1

    def nobs(self) -> NDArray[np.float64]:
        return np.array([float(self.n)])

    def llf_offset(self) -> NDArray[np.float64]:
        """``llf = -nll + offset``: the Gaussian constant plus ``1/2 sum log w``."""
        return llf_constant(self.nobs()) + self.log_w_sum

    def subsample(self) -> ResponseProfile | None:
        """Every k-th row (about ``SUBSAMPLE_SIZE`` of them, above ``SUBSAMPLE_FROM`` rows),
        regressed on the same rows of the design, to start the solver as a sample's
        subsample does (``solve._subsample_start``: its root and the score's derivatives,
        then a few model steps on all rows). The rows of the basis span those of the
        (weighted) design, so their own orthonormal basis is the subsample's design; a
        subsample whose design loses its residual degrees of freedom gives ``None``."""
        if self.n <= SUBSAMPLE_FROM or self.n // SUBSAMPLE_SIZE < 2:
            return None
        step = self.n // SUBSAMPLE_SIZE
        sw = None if self.design.sw is None else np.ascontiguousarray(self.design.sw[::step])
        design = Design(_sub_basis(self.design.q[::step]), self.design.kept,
                        self.design.aliased, sw)
        try:
            return ResponseProfile.build(self.y[::step], design, self.family)
        except BoxCoxError:
            return None

    def lambda_limit(self) -> NDArray[np.float64]:
        """How far the solver may look for lambda (``profile.reach_of`` the log-ratios' span,
        as for a sample)."""
        span = max(float(sd.vrange[1][0] - sd.vrange[0][0])
                   for sd in (info.sample.sides[0] for info in self.sides))
        return np.atleast_1d(reach_of(span * self.unit))

    def rescaled(self) -> RescaledProfile | None:
        """This profile in ``lambda * unit`` for a response on a tiny scale, else ``None``."""
        return None if self.unit == 1.0 else RescaledProfile(self, np.array([self.unit]))

    def evaluate(
        self, lmbda: ArrayLike, cols: ArrayLike = 0, *, score: bool = True,
        score_unit: NDArray[np.float64] | None = None,
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``-l(lambda)`` without the constant ``n/2 (log 2 pi + 1) - 1/2 sum log w``, and its
        derivative (in ``lambda * score_unit`` where that is given), for each lambda in a 1-D
        array (the response is the only column)."""
        lam, _ = as_pairs(lmbda, cols)
        su = np.ones_like(lam) if score_unit is None else np.broadcast_to(score_unit,
                                                                          lam.shape)
        block = max(1, BLOCK_ELEMENTS // self.n)  # lambdas per pass: temporaries stay small
        val = np.empty_like(lam)
        sc = np.full_like(lam, np.nan)
        one_side = len(self.sides) == 1 and not np.any(self.sides[0].m1 != 0)
        for a in range(0, lam.shape[0], block):
            part = lam[a : a + block]
            if one_side:
                v, s = self._one_side(part, score, su[a : a + block])
            else:
                v, s = self._general(part, score, su[a : a + block])
            val[a : a + block], sc[a : a + block] = v, s
        return val, sc

    def _general(self, lam: NDArray[np.float64], score: bool,
                 su: NDArray[np.float64]) -> tuple[NDArray, NDArray]:
        """NLL and score (in ``lambda * su``) from the scaled residual vectors (any design,
        any sides); residuals measured in the profile's unit are converted back."""
        n, u = float(self.n), self.unit
        r, rd, m = self._vectors(lam, score)
        rr = np.einsum("ij,ij->j", r, r)
        with np.errstate(divide="ignore"):
            val = (1.0 - lam) * self.jacobian + 0.5 * n * (2.0 * m + np.log(rr) - np.log(n))
        if u != 1.0 or self.log_sw_scale != 0.0:
            val = val + n * (np.log(u) + self.log_sw_scale)
        sc = (-self.jacobian / su + (u / su) * (n * np.einsum("ij,ij->j", r, rd) / rr)
              if score else np.full_like(lam, np.nan))
        return val, sc

    def _one_side(self, lam: NDArray[np.float64], score: bool,
                  su: NDArray[np.float64]) -> tuple[NDArray, NDArray]:
        """NLL and score when the response has one side and the design absorbs constants.

        Then the scale factor ``e^{k (log b_ref + shift)}`` multiplies every residual, and
        its contribution to the NLL (``n k (log b_ref + shift)``) and to the score cancel the
        Jacobian's ``log b_ref`` part analytically (as in the sample's formula, Xu & Cormode
        2025), instead of numerically between two numbers of size ``n |lambda log b_ref|``:
        ``NLL = n log b_ref + sum v - k (sum v - n shift) + n/2 log(RSS_phi / n)`` and
        ``score = sigma (n <r, r_chi> / <r, r> - (sum v - n shift))`` with ``r``, ``r_chi`` the
        residuals of ``phi`` and its derivative in k (sigma = -1, k = 2 - lambda on the
        Yeo-Johnson negative side).
        """
        n, u = float(self.n), self.unit
        info = self.sides[0]
        side = info.sample.sides[0]
        kappa = (2.0 - lam if info.negative else lam) * u
        shift = choose_shift(side, kappa)
        span = _span(side, shift)
        if self.n >= LONG_ROWS:  # long: the residuals' sums in row blocks, no vectors
            rr, cross = residual_sums(self.design, side.v[:, 0], shift, kappa, span, score)
        else:
            phi, chi = phi_chi(side.v - shift, kappa, span, score)
            r = self.design.resid(phi)
            rr = np.einsum("ij,ij->j", r, r)
            cross = (np.einsum("ij,ij->j", r, self.design.resid(chi)) if score
                     else np.full_like(lam, np.nan))
        vsum = float(side.v.sum())
        d_sum = vsum - n * shift
        with np.errstate(divide="ignore"):
            val = (u * (n * side.log_ref[0] + vsum) - kappa * d_sum
                   + 0.5 * n * (np.log(rr) - np.log(n)))
        if u != 1.0 or self.log_sw_scale != 0.0:
            val = val + n * (np.log(u) + self.log_sw_scale)
        if not score:
            return val, np.full_like(lam, np.nan)
        sigma = -1.0 if info.negative else 1.0
        return val, sigma * (u / su) * (n * cross / rr - d_sum)


GUARD = 0.5  # a residual sum of squares below this share of the centred one: a second pass
FUSED_PRODUCT = 1 << 19  # rows x basis vectors x columns of one block's product, at most


def residual_sums(design: Design, v: NDArray[np.float64], shift: NDArray[np.float64],
                  kappa: NDArray[np.float64], span: NDArray[np.float64], score: bool,
                  centred: bool = False) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``<r, r>`` and ``<r, r_chi>`` per lambda, ``r`` and ``r_chi`` the (weighted) residuals of
    ``phi = expm1(k d)/k`` and of its derivative ``chi`` on a design that spans the constant
    (``d = v - shift``), without forming either vector (``<r, r_chi>`` NaN unless ``score``;
    with ``centred``, in its place the sum of squares of ``phi`` centred as below).

    Each row block's ``phi`` and ``chi`` (the kernel's regimes, as :func:`~boxcoxstat.core.
    kernel.phi_chi`) are formed in cache, centred by the first block's means (the constant
    lies in the column space, so that changes no residual and removes the mean's
    cancellation), and reduced to their sums of squares, their cross sum and their products
    with the basis, ``G = Q' u``: one pass over ``v`` and ``Q`` for every lambda. Then
    ``<r, r> = <u, u> - |G|^2`` and ``<r, r_chi> = <u, u_chi> - <G, G_chi>`` (Q orthonormal).
    Where the projection takes more than ``1 - GUARD`` of a column's sum of squares (of phi
    or of chi), that difference would lose more than a bit, and those lambdas take a second
    pass: the residuals ``u - Q G`` block by block, their sums and their own products with
    the basis (the test and the second projection of Daniel, Gragg, Kaufman & Stewart 1976,
    as :meth:`~boxcoxstat.core.design.Design.resid` applies them to vectors); what is left
    to project is then at rounding level.
    """
    L = kappa.shape[0]
    k = np.asarray(kappa, dtype=np.float64)
    tier = np.where(np.abs(k) <= ZERO_K, 0, np.where(np.abs(k) * span < A2_SERIES_RADIUS, 1, 2))
    rr, cross, ss, g, c0, lin = _block_sums(design, v, shift, k, tier, score)
    with np.errstate(invalid="ignore"):
        redo = ~(rr >= GUARD * ss[:L])
        if score:
            redo |= ~(ss[L:] - np.einsum("jk,jk->j", g[L:], g[L:]) >= GUARD * ss[L:])
    if redo.any():
        j = np.flatnonzero(redo)
        cols = np.r_[j, L + j] if score else j
        rr, cross = rr.copy(), cross.copy()
        rr[j], cross[j], *_ = _block_sums(design, v, shift[j], k[j], tier[j], score,
                                          (c0[cols], g[cols]))
    if centred:  # about the (weighted) mean: less the square of u's (weighted) sum
        sw2 = float(design.nobs if design.sw is None else np.einsum("i,i->", design.sw,
                                                                     design.sw))
        return rr, ss[:L] - lin * lin / sw2
    return rr, (cross if score else np.full(L, np.nan))


def _block_sums(design: Design, v: NDArray[np.float64], shift: NDArray[np.float64],
                k: NDArray[np.float64], tier: NDArray[np.intp], score: bool,
                correct: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None):
    """One pass of :func:`residual_sums` over the row blocks: ``u`` holds phi's columns, then
    chi's (with ``score``), each centred by its mean over the first block (``c0``), or by
    ``correct[0]`` with the projection ``Q correct[1]`` also subtracted (the second pass).
    Returns ``<r, r>``, ``<r, r_chi>`` (moment form), the sums of squares of ``u``, ``Q' u``,
    ``c0`` and the sums of ``sqrt(w) u`` of phi's columns."""
    q, sw = design.q, design.sw
    n, rank = q.shape
    L = k.shape[0]
    ncol = 2 * L if score else L
    rows = max(256, min(8192, FUSED_PRODUCT // max(1, rank * ncol)))
    g = np.zeros((ncol, rank))  # (u' Q): one row per column of u
    ss = np.zeros(ncol)
    cr = np.zeros(L)
    lin = np.zeros(L)
    c0 = None if correct is None else correct[0][:, None]
    groups = [(np.flatnonzero(tier == t), int(t)) for t in np.unique(tier)]
    work = _work()
    ub = np.empty((ncol, rows))  # (columns, rows): every operation runs along the rows
    for i in range(0, n, rows):
        vb = v[i : i + rows]
        b = vb.shape[0]
        u = ub[:, :b] if b == rows else np.empty((ncol, b))
        for idx, t in groups:
            d = vb[None, :] - shift[idx, None]
            m, nn = _block_values(d, k[idx, None], t, score,
                                  work if d.size <= work.size else None)
            if t == 2:  # kappa phi and kappa^2 chi: kappa divided out
                with np.errstate(over="ignore", invalid="ignore"):
                    u[idx] = m / k[idx, None]
                    if score:
                        u[L + idx] = nn / (k[idx, None] * k[idx, None])
            else:
                u[idx] = m
                if score:
                    u[L + idx] = nn
        if c0 is None:
            c0 = u.mean(axis=1, keepdims=True)
        u -= c0
        if sw is not None:
            u *= sw[i : i + b]
            lin += u[:L] @ sw[i : i + b]
        else:
            lin += u[:L].sum(axis=1)
        qb = q[i : i + b]
        if correct is not None:
            u -= correct[1] @ qb.T
        g += u @ qb
        ss += np.einsum("ij,ij->i", u, u)
        if score:
            cr += np.einsum("ij,ij->i", u[:L], u[L:])
    assert c0 is not None
    gp = g[:L]
    rr = ss[:L] - np.einsum("jk,jk->j", gp, gp)
    cross = cr - np.einsum("jk,jk->j", gp, g[L:]) if score else cr
    return rr, cross, ss, g, c0[:, 0], lin


def _sub_basis(qs: NDArray[np.float64]) -> NDArray[np.float64]:
    """An orthonormal basis of the rows ``qs`` of an orthonormal basis (a subsample's design).

    Their Gram matrix is about ``I / step``, so one Cholesky QR (``qs L^-T``, ``L L' = qs'
    qs``) is orthonormal to rounding (its error grows with the square of the condition,
    here near 1), from one product of ``rank`` columns instead of a Householder QR whose
    LAPACK threads cost more than its work on a busy machine; a Gram matrix that is not
    well conditioned (a dummy column the subsample misses) goes to :func:`qr_design`."""
    gram = np.einsum("ij,ik->jk", qs, qs)
    d = np.sqrt(np.diag(gram))
    if qs.shape[1] and d.min() > 1e-3 * d.max():
        try:
            low = np.linalg.cholesky(gram)
        except np.linalg.LinAlgError:
            low = None
        if low is not None and np.diag(low).min() > 1e-3 * np.diag(low).max():
            return np.ascontiguousarray(qs @ np.linalg.inv(low).T)
    return qr_design(qs).q


def _span(side, shift: NDArray[np.float64]) -> NDArray[np.float64]:
    """Largest ``|v - shift|`` of a one-column side, per shift."""
    vmin, vmax = side.vrange
    return np.maximum(np.abs(vmin[0] - shift), np.abs(vmax[0] - shift))


def spans_constant_only(design: Design) -> bool:
    """Whether the design's column space is exactly the constants (an intercept-only model)."""
    if design.rank != 1:
        return False
    return design.constant_in_span


def response_profile(
    y: ArrayLike, design: Design, family: str = "boxcox", weights: ArrayLike | None = None
) -> Profile:
    """The profile likelihood of the response power of ``y`` regressed on ``design``.

    A model with only an intercept and no weights is the sample itself, and its profile is
    the sample's (:class:`~boxcoxstat.core.profile.SampleProfile`): ``lm("y ~ 1")``,
    ``fit_joint`` of one column and ``fit(y)`` are then one computation, not three that
    agree. Any other design gives a :class:`ResponseProfile`.

    Raises
    ------
    BoxCoxError
        As :meth:`ResponseProfile.build`, and when the transformed response lies in the
        design's column space at every lambda (:func:`fits_at_every_lambda`).
    """
    prof = ResponseProfile.build(y, design, family, weights)
    if prof.fits_at_every_lambda():
        raise BoxCoxError(
            "the model fits the transformed response exactly at every lambda (each distinct "
            "response value has its own fitted level), so the likelihood is unbounded; "
            "remove terms from the model"
        )
    if weights is None and spans_constant_only(design):
        return SampleProfile(prof.sample_of_response())
    return prof
