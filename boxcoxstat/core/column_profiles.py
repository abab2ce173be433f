"""One power at a time of a joint fit: the joint NLL profiled over the other powers.

Beside ``joint.py``. :class:`ColumnProfiles` presents ``t -> min over the other
powers of NLL(lambda_j = t, others)`` of a :class:`~boxcoxstat.core.joint.JointObjective` as a
:class:`~boxcoxstat.core.profile.Profile` with one column per power, so the one inference module
(``inference.profile_interval``) gives the joint fit's profile-likelihood intervals (and those
of ``bcnpower`` and Box-Tidwell, whose objectives have the same form). With one column it is
not used: the column's own profile is (``JointProfile.single``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize

from .profile import LAMBDA_REACH, RescaledProfile, as_pairs, evaluate_pairs

if TYPE_CHECKING:
    from .joint import JointObjective

__all__ = ["ColumnProfiles", "VALUE_TOL"]

VALUE_TOL = 1e-13  # profile NLL within this of the inner minimum (LR statistics to 2e-13)


@dataclass(frozen=True)
class ColumnProfiles:
    """The joint NLL profiled to each power in turn: a Profile with one column per power.

    ``evaluate(t, j)`` is ``min over lambda_{-j} of NLL(lambda_j = t, lambda_{-j})`` and its
    derivative in ``t``, which by the envelope theorem is the ``j``-th entry of the analytic
    gradient at the inner minimum. The inner (p-1)-dimensional minimisation is BFGS with the
    analytic gradient, started from the nearest point already solved for column ``j`` moved
    along the regression of the other powers on ``lambda_j`` (``cov[-j, j] / cov[j, j]``),
    with the inverse of the other powers' block of the Hessian (the Schur complement of
    ``cov``) as its first inverse-Hessian estimate. Its curvature at the MLE is
    ``1 / cov[j, j]``, so the profile interval and the standard error describe one likelihood.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.core.design import qr_design
    >>> from boxcoxstat.core.joint import JointProfile
    >>> from boxcoxstat.core.joint_solve import fit_joint_lambda
    >>> y = np.random.default_rng(0).lognormal(size=(50, 2))
    >>> prob = JointProfile.build(y, qr_design(np.ones((50, 1))), "boxcox")
    >>> fit = fit_joint_lambda(prob)
    >>> prof = prob.column_profiles(fit.lmbda, np.linalg.inv(fit.hessian))
    >>> val, _ = prof.evaluate(fit.lmbda, [0, 1], score=False)
    >>> bool(np.allclose(val, fit.nll, rtol=1e-13))
    True
    """

    joint: JointObjective
    lmbda: NDArray[np.float64]
    cov: NDArray[np.float64]
    # per column, the unit of ``mu = lambda * unit`` in which ``joint``, ``lmbda`` and ``cov``
    # are given (``JointInUnits``); ``None``: they are in lambda
    unit: NDArray[np.float64] | None = None
    # per column: the values t solved so far and the other powers' minimiser at each
    _seen: dict[int, tuple[list[float], list[NDArray[np.float64]]]] = field(
        default_factory=dict, repr=False, compare=False)

    @property
    def ncols(self) -> int:
        return self.joint.ncols

    def nobs(self) -> NDArray[np.float64]:
        return np.full(self.ncols, float(self.joint.nobs))

    def llf_offset(self) -> NDArray[np.float64]:
        return np.full(self.ncols, self.joint.llf_constant())

    def subsample(self) -> None:
        return None

    def evaluate(
        self, lmbda: ArrayLike, cols: ArrayLike, *, score: bool = True,
        score_unit: NDArray[np.float64] | None = None,
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Profile NLL at each pair of power (in lambda) and column, and its derivative (in
        ``lambda * score_unit`` where that is given)."""
        if self.unit is None and score_unit is None:
            return evaluate_pairs(lmbda, cols, self._minimise, score)
        lam, idx = as_pairs(lmbda, cols)
        u = np.ones(lam.shape) if self.unit is None else self.unit[idx]
        su = np.ones(lam.shape) if score_unit is None else np.broadcast_to(score_unit,
                                                                           lam.shape)
        val, sc = evaluate_pairs(lam * u, idx, self._minimise, score)
        return val, sc * (u / su)

    def lambda_limit(self) -> NDArray[np.float64]:
        """How far an interval's bracket may reach (in lambda): ``LAMBDA_REACH`` in
        ``lambda * unit``."""
        u = np.ones(self.ncols) if self.unit is None else self.unit
        return LAMBDA_REACH / u

    def rescaled(self) -> RescaledProfile | None:
        """This profile in ``lambda * unit`` (where its joint problem is in units), else
        ``None``."""
        return None if self.unit is None else RescaledProfile(self, self.unit)

    def _start(self, j: int, t: float, others: NDArray[np.bool_]):
        """Warm starts (the nearest solved point moved along the regression, and unmoved)
        and the initial inverse Hessian of the inner minimisation."""
        cjj, coj = self.cov[j, j], self.cov[others, j]
        usable = bool(np.isfinite(cjj) and cjj > 0 and np.all(np.isfinite(self.cov)))
        slope = coj / cjj if usable else np.zeros(int(others.sum()))
        ts, mins = self._seen.get(j, ([], []))
        if ts:
            k = int(np.argmin(np.abs(np.asarray(ts) - t)))
            base, moved = mins[k], slope * (t - ts[k])
        else:
            base, moved = self.lmbda[others], slope * (t - self.lmbda[j])
        starts = [base + moved, base]  # extrapolated, and not (far out, where the profile
        # can level off, extrapolation can land on a flat plateau with a zero gradient)
        hinv = None
        if usable:
            hinv = self.cov[np.ix_(others, others)] - np.outer(coj, coj) / cjj
            hinv = 0.5 * (hinv + hinv.T)  # exactly symmetric, as BFGS requires
            if not (np.all(np.isfinite(hinv)) and np.all(np.linalg.eigvalsh(hinv) > 0)):
                hinv = None  # scipy's own test of a positive definite start
        return starts, hinv

    def _minimise(self, j: int, t: float) -> tuple[float, float]:
        """Profile value at ``lambda_j = t`` and its derivative (inf, NaN where undefined).

        BFGS stops when the gradient ``g`` of the other powers is so small that the value is
        within ``g' H^-1 g / 2 <= VALUE_TOL`` of the minimum (``H^-1`` taken as the Schur
        complement); a looser gradient costs nothing in the value, which is all an interval
        endpoint needs.
        """
        if not np.isfinite(t):
            return np.inf, np.nan
        p = self.ncols
        others = np.arange(p) != j
        full = np.empty(p)
        full[j] = t
        seen: dict[bytes, tuple[float, NDArray[np.float64]]] = {}

        def fun(o: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
            full[others] = o
            v, g = self.joint.nll(full, grad=True)
            seen[np.asarray(o, dtype=np.float64).tobytes()] = (v, g)
            return v, (g[others] if np.isfinite(v) else np.zeros(p - 1))

        starts, hinv = self._start(j, t, others)
        start = min(starts, key=lambda o: fun(o)[0])
        opts: dict = {"gtol": 1e-9, "maxiter": 500}
        if hinv is not None:
            opts["hess_inv0"] = hinv
            opts["gtol"] = float(np.sqrt(2.0 * VALUE_TOL / np.max(np.diag(hinv))))
        # a line search that stops short only ends the inner minimisation early (its value
        # is then slightly high); nothing for the user to act on, so no warning
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            res = optimize.minimize(fun, start, jac=True, method="BFGS", options=opts)
        best = np.asarray(res.x, dtype=np.float64)
        val, g = seen.get(best.tobytes()) or fun(best)
        if not np.isfinite(val):
            return np.inf, np.nan
        ts, mins = self._seen.setdefault(j, ([], []))
        ts.append(t)
        mins.append(best.copy())
        return float(val), float(g[j])
