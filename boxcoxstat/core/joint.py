"""Joint (multivariate) lambda: the multivariate normal profile likelihood of several columns.

Columns ``y_1 .. y_p`` are transformed with their own powers ``lambda_j`` and the
transformed matrix is assumed multivariate normal around a linear model ``X B`` (``X`` the
design, an intercept at least). Profiling out ``B`` and the covariance gives the negative
log-likelihood (constants dropped)

.. math::

    \\mathrm{NLL}(\\lambda) = \\tfrac{n}{2} \\log\\det \\widehat\\Sigma(\\lambda)
        - \\sum_j (\\lambda_j - 1) J_j,
    \\qquad \\widehat\\Sigma = \\tfrac1n\\, R^\\top R ,

with ``R`` the residual matrix of the transformed columns on ``X`` and ``J_j`` the log-Jacobian
sum of column j (``sum log x`` for Box-Cox, ``sum sign(x) log(1 + |x|)`` for Yeo-Johnson). This is
the objective of R's ``car::powerTransform`` with a matrix response (``estimateTransform
.default``, Fox & Weisberg 2019) up to a constant; Velilla (1993) and Andrews, Gnanadesikan &
Warner (1971) describe it.

Numerics: each column is one regression response (``response.ResponseProfile``), whose scaled
residual vectors (and those of the derivative in lambda) never overflow; their scales are
logarithms. The log determinant is the log of the diagonal of the triangular factor of a QR
decomposition of the scaled residual matrix, and the gradient is analytic:

.. math:: \\partial_j \\mathrm{NLL} = n\\,[T^{-1} Q^\\top r'_j]_j - J_j ,

``Q T`` the QR factors of the scaled residuals and ``r'_j`` the scaled residual of the
derivative of column j's transform. With one column this is exactly the response's own profile,
and a one-column joint fit is solved by the one solver on it (``fit_joint`` of one column =
``lm`` with the same design = ``fit`` for an intercept-only design). The Hessian (observed
information) is in closed form too: the transforms' second derivatives in lambda are
``d^3 exprel''(k d)`` (``_special.d2exprel``), and ``H`` follows from the QR factors of the
residuals and of the derivatives' residuals (:meth:`JointProfile._evaluate`). The solver
(``joint_solve.fit_joint_lambda``) is Newton's method with it, from each column's own ML
power, about one pass over the data per iteration for the value, gradient and Hessian
together.

Inference on one power at a time profiles the others out:
:class:`~boxcoxstat.core.column_profiles.ColumnProfiles` (``column_profiles.py``) presents
``t -> min over the other powers of NLL(lambda_j = t, others)`` as a
:class:`~boxcoxstat.core.profile.Profile` with one column per power, so the one inference
module (``inference.profile_interval``) gives the joint fit's profile-likelihood intervals. With
one column it is the column's own profile (``JointProfile.single``).

References
----------
Andrews, D. F., Gnanadesikan, R. and Warner, J. L. (1971). Transformations of multivariate
data. Biometrics 27, 825-840.
Velilla, S. (1993). A note on the multivariate Box-Cox transformation to normality.
Statistics & Probability Letters 17, 259-263.
Fox, J. and Weisberg, S. (2019). An R Companion to Applied Regression, 3rd ed. Sage.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._special import d2exprel
from .._validation.columns import BoxCoxError
from .column_profiles import ColumnProfiles
from .design import Design, qr_design, r_factor, vector_norm
from .kernel import BLOCK_ELEMENTS, phi_chi
from .likelihood import choose_shift, llf_constant
from .profile import Profile, SampleProfile
from .response import ResponseProfile, _span, response_profile, spans_constant_only
from .sample import Sample, Side
from .solve import solve

__all__ = ["JointObjective", "JointProfile", "JointInUnits", "ColumnProfiles",
           "design_with_intercept"]


class JointObjective(Protocol):
    """What the joint solver, its Hessian and :class:`ColumnProfiles` need from a joint
    likelihood: :class:`JointProfile`, or one with nuisance parameters profiled out
    (``shifted.JointShiftedProfile``)."""

    @property
    def nobs(self) -> int: ...

    @property
    def ncols(self) -> int: ...

    @property
    def single(self) -> Profile | None: ...

    def llf_constant(self) -> float: ...

    def nll(self, lmbda: ArrayLike, grad: bool = False) -> Any: ...

    def score(self, lmbda: ArrayLike) -> NDArray[np.float64]: ...

    def hessian(self, lmbda: ArrayLike) -> NDArray[np.float64]: ...


def design_with_intercept(x: ArrayLike, weights: ArrayLike | None = None) -> Design:
    """The factorised design (R's aliasing rule), which must contain the constant.

    Raises
    ------
    BoxCoxError
        If the constant vector is not in the column space (the transformed values are only
        defined up to a shift, so the model needs an intercept).
    """
    design = qr_design(x, weights)
    one = np.ones(design.nobs)
    if vector_norm(design.resid(one)) > 1e-8 * np.sqrt(design.nobs):
        raise BoxCoxError(
            "the design has no intercept (the constant is not in its column space); the "
            "transformed values are defined only up to a shift, so keep the intercept "
            "(for example '~ group' rather than '~ 0 + x')"
        )
    return design


@dataclass(frozen=True)
class JointProfile:
    """The joint profile likelihood of one power per column around one design.

    Build with :meth:`build`. ``columns`` holds one response profile per column; ``single``
    is the one-column profile (the sample's for an intercept-only design), through which a
    one-column problem is evaluated, so it is the same computation as ``fit`` / ``lm``.
    """

    columns: tuple[ResponseProfile, ...]
    single: Profile | None
    family: str

    @classmethod
    def build(cls, y: ArrayLike, design: Design, family: str,
              weights: ArrayLike | None = None) -> JointProfile:
        """Prepare the columns of ``y`` (n, p) (complete, validated rows) for ``design``
        (factorised with the case ``weights``, if any: row i's covariance is Sigma / w_i,
        the multivariate ``lm(weights=)``)."""
        y = np.asarray(y, dtype=np.float64)
        if y.ndim == 1:
            y = y[:, None]
        cols = tuple(ResponseProfile.build(y[:, j], design, family, weights)
                     for j in range(y.shape[1]))
        single = (response_profile(y[:, 0], design, family, weights) if y.shape[1] == 1
                  else None)
        return cls(cols, single, family)

    @property
    def nobs(self) -> int:
        return int(self.columns[0].n)

    @property
    def ncols(self) -> int:
        return len(self.columns)

    @property
    def rank(self) -> int:
        return self.columns[0].design.rank

    @property
    def intercept_only(self) -> bool:
        return spans_constant_only(self.columns[0].design)

    def llf_constant(self) -> float:
        """``llf = llf_constant - nll``: the Gaussian constant ``-n p (log(2 pi) + 1) / 2``
        (with case weights, plus ``p/2 sum log w``)."""
        return float(self.ncols * llf_constant(self.nobs)
                     + sum(c.log_w_sum for c in self.columns))

    @cached_property
    def unit(self) -> NDArray[np.float64]:
        """Per column, the unit of lengths (``ResponseProfile.unit``): 1, or a power of two
        for a Yeo-Johnson column on a tiny scale, whose power is solved in ``lambda * unit``
        (:class:`JointInUnits`)."""
        return np.array([c.unit for c in self.columns])

    def in_units(self) -> JointInUnits | None:
        """This problem in ``mu = lambda * unit`` where a column has a unit other than 1
        (then its gradient and Hessian in lambda are near 1e-150 and 1e-300, or leave
        float64), else ``None``."""
        return None if np.all(self.unit == 1.0) else JointInUnits(self)

    @cached_property
    def _absorbed(self) -> tuple[bool, ...]:
        """Per column: one side whose constant the design absorbs (Box-Cox, or one-signed
        Yeo-Johnson, with an intercept), so its residuals are those of ``phi`` alone."""
        return tuple(len(c.sides) == 1 and not np.any(c.sides[0].m1 != 0)
                     for c in self.columns)

    @cached_property
    def _absorbed_side(self) -> tuple[NDArray[np.intp], Side | None, NDArray[np.float64]]:
        """The :attr:`_absorbed` columns' positions, their log-ratios as one side (n, k) in
        their own frames, and ``sigma = dk/dlambda`` (-1 on a Yeo-Johnson negative side)."""
        idx = np.flatnonzero(self._absorbed)
        if not idx.size:
            return idx, None, np.empty(0)
        parts = [self.columns[j].sides[0] for j in idx]
        sides = [q.sample.sides[0] for q in parts]
        side = Side(np.concatenate([q.log_ref for q in sides]),
                    np.column_stack([q.v[:, 0] for q in sides]), None, False)
        sigma = np.array([-1.0 if q.negative else 1.0 for q in parts])
        return idx, side, sigma

    def _stacked(self, mu: NDArray[np.float64], order: int):
        """The residual matrix ``[R | R' | R'']`` (n, (order + 1) p) of every column and of its
        first ``order`` derivatives in its own power, with the parts of the NLL and of its
        gradient that do not come from ``log det``.

        Powers and derivatives are in ``mu = lambda * unit`` (:attr:`unit`; ``mu = lambda``
        for every column with unit 1). A column's log-ratios are stored in its unit
        (``ResponseProfile.build``), so its residuals are those in lambda divided by the unit
        (a factor the NLL adds back as ``n log unit``) and their derivatives in ``mu`` are of
        order one where those in lambda underflow.

        A column in :attr:`_absorbed` is represented by ``phi(k) = expm1(k d)/k`` of its
        log-ratios ``d`` (exponent ``k``: ``lambda``, or ``2 - lambda`` on the Yeo-Johnson
        negative side, ``sigma = dk/dlambda``), whose derivatives in lambda are ``sigma chi``
        and ``d^3 exprel''(k d)``; the factor ``e^{k log b_ref}`` in front of it has a log
        linear in lambda, so it leaves the Hessian alone and its part of the NLL and of the
        gradient cancels the Jacobian's ``log b_ref`` analytically (``ResponseProfile.
        _one_side``): ``n log b_ref + sum v - k d_sum`` and ``-sigma d_sum`` with
        ``d_sum = sum (v - shift)``. These columns are evaluated together (one ``phi_chi``
        call, one residual projection). Any other column gives its scaled residual vectors
        (``ResponseProfile.derivative_vectors``), ``(1 - lambda) J + n m`` and ``-J``.
        """
        p, n = self.ncols, self.nobs
        unit = self.unit
        vpart = n * np.log(unit)
        gpart = np.empty(p)
        idx, side, sigma = self._absorbed_side
        res = None
        if side is not None:
            uk = unit[idx]
            kap = np.where(sigma < 0, 2.0 * uk - mu[idx], mu[idx])
            shift = choose_shift(side, kap)
            span = _span(side, shift)
            k = idx.size
            raw = np.empty((n, (order + 1) * k))
            rows = max(1, BLOCK_ELEMENTS // k)  # row blocks: the temporaries stay in cache
            for a in range(0, n, rows):
                d = side.v[a : a + rows] - shift
                phi, chi = phi_chi(d, kap, span, order >= 1)
                raw[a : a + rows, :k] = phi
                if chi is not None:
                    np.multiply(chi, sigma, out=raw[a : a + rows, k : 2 * k])
                if order >= 2:
                    psi = raw[a : a + rows, 2 * k :]
                    np.multiply(d, d, out=psi)
                    psi *= d
                    psi *= d2exprel(d * kap)
            res = self.columns[idx[0]].design.resid(raw)
            d_sum = side.vsum - n * shift
            vpart[idx] += uk * (n * side.log_ref + side.vsum) - kap * d_sum
            vpart[idx] += n * np.array([self.columns[j].log_sw_scale for j in idx])
            gpart[idx] = -sigma * d_sum
            if idx.size == p:
                return res, vpart, gpart
        x = np.empty((n, (order + 1) * p))
        if res is not None:
            for q in range(order + 1):
                x[:, q * p + idx] = res[:, q * idx.size : (q + 1) * idx.size]
        for j in range(p):
            if self._absorbed[j]:
                continue
            col = self.columns[j]
            lam_j = mu[j : j + 1] / unit[j]  # exact: a power of two
            vecs = col.derivative_vectors(lam_j, order)
            for q in range(order + 1):
                x[:, q * p + j] = vecs[q][:, 0]
            vpart[j] += (1.0 - lam_j[0]) * col.jacobian + n * (vecs[3][0]
                                                                + col.log_sw_scale)
            gpart[j] = -col.jacobian / unit[j]
        return x, vpart, gpart

    def _evaluate(self, lmbda: ArrayLike, order: int, exact: bool = True,
                  in_units: bool = False):
        """NLL, gradient (``order >= 1``) and Hessian (``order == 2``) from one evaluation of
        the residual matrices; ``(inf, NaN, NaN)`` where lambda is not finite or the
        residual matrix is singular. With ``in_units``, ``lmbda`` is ``mu = lambda * unit``
        and the derivatives are in ``mu`` (:class:`JointInUnits`); otherwise they are
        converted to lambda (the chain rule's factors are the units, powers of two).

        With ``T`` the triangular factor of the residual matrix ``R`` (``R = Q T``),
        ``Z = Q' R'``, ``W = Q' R''`` and ``E = R' - Q Z`` (the part of each derivative
        outside the span of ``R``), the NLL ``n/2 log det(R'R/n) + ...`` has gradient
        ``n diag(T^-1 Z) + ...`` and Hessian

        ``H = n (P o E'E - U o U' + diag(diag(T^-1 W)))``,  ``P = (T'T)^-1``, ``U = T^-1 Z``

        (``o`` the elementwise product; from ``d log det A = tr(A^-1 dA)`` twice, with
        ``A = R'R``). ``exact``: ``T`` from a Householder QR of ``R`` (``design.r_factor``;
        ``Q`` is not formed: at 1e5 rows that costs ten times the factorisation),
        ``Z = T^-T R' R'`` corrected once from its residual ``F = R' - R T^-1 Z``
        (Bjorck's corrected semi-normal equations, accurate as the QR itself for cond(R)
        up to about 1e8), ``E'E = F'F - dZ' dZ`` with ``dZ`` that correction (no
        cancellation), and ``W = T^-T R' R''``. Otherwise
        from the Cholesky factor of the Gram matrix of ``[R | R' | R'']`` (one matrix
        product, errors of about cond(R)^2 eps; for the Newton iterations). The small
        triangular systems are solved by ``np.linalg.solve`` (microseconds; SciPy's threaded
        ``solve_triangular`` took milliseconds per call on a busy machine).

        References
        ----------
        Bjorck, A. (1987). Stability analysis of the method of seminormal equations for linear
        least squares problems. Linear Algebra and its Applications 88/89, 31-48.
        """
        lam = np.asarray(lmbda, dtype=np.float64).reshape(-1)
        p = self.ncols
        bad = (np.inf, np.full(p, np.nan), np.full((p, p), np.nan))
        if lam.shape != (p,) or not np.all(np.isfinite(lam)):
            return bad
        unit = self.unit
        if in_units or np.all(unit == 1.0):
            return self._evaluate_mu(lam, order, exact)
        val, g, h = self._evaluate_mu(lam * unit, order, exact)
        with np.errstate(all="ignore"):  # lambda's derivatives may underflow: report them
            return val, g * unit, h * np.outer(unit, unit)

    def _evaluate_mu(self, mu: NDArray[np.float64], order: int, exact: bool):
        """:meth:`_evaluate` in ``mu`` (finite, of length p)."""
        p, n = self.ncols, float(self.nobs)
        bad = (np.inf, np.full(p, np.nan), np.full((p, p), np.nan))
        with np.errstate(all="ignore"):  # absurd lambdas give inf/NaN, refused below
            x, vpart, gpart = self._stacked(mu, order)
            if not (np.all(np.isfinite(x)) and np.all(np.isfinite(vpart))):
                return bad
            r = x[:, :p]
            t: NDArray[np.float64]
            if exact:
                t = r_factor(r)
                if not np.all(np.abs(np.diag(t)) > 0):
                    return bad
                if order >= 1:
                    z = np.linalg.solve(t.T, r.T @ x[:, p:])
                    # einsum, not BLAS: a (1e5, p) x (p, p) product is a thin loop, and
                    # BLAS threads cost 100 times more on a busy machine
                    f = x[:, p : 2 * p] - np.einsum("ij,jk->ik", r,
                                                    np.linalg.solve(t, z[:, :p]))
                    dz = np.linalg.solve(t.T, r.T @ f)
                    z[:, :p] += dz
            else:
                gram = x.T @ x
                try:
                    t = np.linalg.cholesky(gram[:p, :p]).T
                except np.linalg.LinAlgError:
                    return bad
                if order >= 1:
                    z = np.linalg.solve(t.T, gram[:p, p:])
            diag = np.abs(np.diag(t))
            if not np.all(diag > 0):
                return bad
            val = float(np.sum(vpart) + n * np.sum(np.log(diag)) - 0.5 * n * p * np.log(n))
            if not np.isfinite(val):
                return bad
            if order == 0:
                return val, bad[1], bad[2]
            u = np.linalg.solve(t, z[:, :p])
            g = n * np.diag(u) + gpart
            if not np.all(np.isfinite(g)):
                return bad
            if order == 1:
                return val, g, bad[2]
            w = z[:, p:]
            if exact:
                ee = f.T @ f - dz.T @ dz
            else:
                ee = gram[p : 2 * p, p : 2 * p] - z[:, :p].T @ z[:, :p]
            tinv = np.linalg.solve(t, np.eye(p))
            h = n * ((tinv @ tinv.T) * ee - u * u.T
                     + np.diag(np.diag(np.linalg.solve(t, w))))
            h = 0.5 * (h + h.T)
        if not np.all(np.isfinite(h)):
            return val, g, bad[2]
        return val, g, h

    def nll(self, lmbda: ArrayLike, grad: bool = False):
        """Profile NLL (constants dropped) and, if ``grad``, its gradient.

        ``inf`` (and a NaN gradient) where lambda is not finite or the residual matrix is
        singular.
        """
        lam = np.asarray(lmbda, dtype=np.float64).reshape(-1)
        p = self.ncols
        bad = (np.inf, np.full(p, np.nan)) if grad else np.inf
        if lam.shape != (p,) or not np.all(np.isfinite(lam)):
            return bad
        if self.single is not None:
            with np.errstate(all="ignore"):
                v, s = self.single.evaluate(lam, 0, score=grad)
            if not np.isfinite(v[0]) or (grad and not np.isfinite(s[0])):
                return bad
            return (float(v[0]), s.copy()) if grad else float(v[0])
        val, g, _ = self._evaluate(lam, 1 if grad else 0)
        if not np.isfinite(val):
            return bad
        return (val, g) if grad else val

    def score(self, lmbda: ArrayLike) -> NDArray[np.float64]:
        """Gradient of :meth:`nll`."""
        return self.nll(lmbda, grad=True)[1]

    def hessian(self, lmbda: ArrayLike) -> NDArray[np.float64]:
        """Hessian of :meth:`nll` (two or more columns) in closed form: see
        :meth:`_evaluate` (the transforms' second derivatives in lambda are
        ``d^3 exprel''(k d)``, ``_special.d2exprel``)."""
        return self._evaluate(lmbda, 2)[2]

    def second_order(self, lmbda: ArrayLike, exact: bool = True):
        """NLL, gradient and Hessian (two or more columns) from one evaluation of the columns,
        their derivatives and second derivatives (the joint solver's Newton steps);
        ``exact=False`` forms them from a Gram matrix (see :meth:`_evaluate`)."""
        return self._evaluate(lmbda, 2, exact)

    def own_powers(self) -> NDArray[np.float64]:
        """Each column's own ML power given the design (the joint solver's start), by the one
        solver: for an intercept-only design on one sample of all columns (``bcs.fit`` of
        each column, its subsample start included; the columns' prepared log-ratios are
        reused when every column has one side), else on each column's response profile.
        To ``START_XRTOL`` (1e-7) relative: the joint powers differ from them by far more,
        and Newton's steps make the joint gradient vanish to rounding from any start that
        close."""
        design = self.columns[0].design
        if design.sw is None and spans_constant_only(design):
            lam = solve(SampleProfile(self._sample()), xrtol=START_XRTOL).lmbda
        else:
            lam = np.array([solve(c, xrtol=START_XRTOL).lmbda[0] for c in self.columns])
        u = self.unit  # within -10..10 in lambda * unit (the scale its data give it)
        return np.where(np.isfinite(lam), np.clip(lam * u, -10.0, 10.0) / u, 1.0)

    def _sample(self) -> Sample:
        """All columns as one sample: their prepared log-ratios when every column has one
        side, of one sign, without weights; else prepared again from the data."""
        idx, side, sigma = self._absorbed_side
        if side is not None and idx.size == self.ncols and np.all(sigma == sigma[0]) \
                and np.all(self.unit == 1.0):  # (log-ratios in a unit are not the data's)
            negative = bool(sigma[0] < 0)
            side = replace(side, negative=negative)
            return Sample(self.family, None if negative else side, side if negative else None)
        return Sample.from_array(np.column_stack([c.y for c in self.columns]), self.family)

    def column_profiles(self, lmbda: ArrayLike, cov: ArrayLike) -> Profile:
        """The NLL profiled to one power at a time, around the joint MLE ``lmbda`` with
        inverse Hessian ``cov``: the column's own profile for one column, else
        :class:`ColumnProfiles`."""
        if self.single is not None:
            return self.single
        lam = np.asarray(lmbda, dtype=np.float64)
        cov = np.asarray(cov, dtype=np.float64)
        scaled = self.in_units()
        if scaled is None:
            return ColumnProfiles(self, lam.copy(), cov.copy())
        u = self.unit
        return ColumnProfiles(scaled, lam * u, cov * np.outer(u, u), unit=u)


@dataclass(frozen=True)
class JointInUnits:
    """A :class:`JointProfile` in ``mu_j = lambda_j * unit_j`` (:attr:`JointProfile.unit`).

    Yeo-Johnson columns of magnitude 1e-100 have powers near 1e100, a gradient near 1e-100
    and a Hessian near 1e-200 in lambda; in ``mu`` all three are of order one, as for a
    sample (``profile.RescaledProfile``). The joint solver and :class:`ColumnProfiles` work on
    this problem; ``joint_solve.fit_joint_lambda`` converts its answer back. NLL values are
    the same in both coordinates.
    """

    joint: JointProfile

    @property
    def unit(self) -> NDArray[np.float64]:
        return self.joint.unit

    @property
    def nobs(self) -> int:
        return self.joint.nobs

    @property
    def ncols(self) -> int:
        return self.joint.ncols

    @property
    def single(self) -> Profile | None:
        return None

    def llf_constant(self) -> float:
        return self.joint.llf_constant()

    def nll(self, mu: ArrayLike, grad: bool = False):
        val, g, _ = self.joint._evaluate(mu, 1 if grad else 0, in_units=True)
        if not np.isfinite(val):
            return (np.inf, np.full(self.ncols, np.nan)) if grad else np.inf
        return (val, g) if grad else val

    def score(self, mu: ArrayLike) -> NDArray[np.float64]:
        return self.nll(mu, grad=True)[1]

    def hessian(self, mu: ArrayLike) -> NDArray[np.float64]:
        return self.joint._evaluate(mu, 2, in_units=True)[2]

    def second_order(self, mu: ArrayLike, exact: bool = True):
        return self.joint._evaluate(mu, 2, exact, in_units=True)

    def own_powers(self) -> NDArray[np.float64]:
        return self.joint.own_powers() * self.unit


START_XRTOL = 1e-7  # the columns' own powers start the joint Newton iterations to this
