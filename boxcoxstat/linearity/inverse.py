"""The inverse response plot's power (Cook & Weisberg 1994) as a Profile of two core profiles.

car's ``invTranEstimate(y, yhat)`` chooses the power of the response ``y`` that makes
the fitted values ``yhat`` of an untransformed regression a linear function of ``psi(lambda, y)``:
it minimises ``RSS(lambda)``, the residual sum of squares of ``yhat`` regressed on ``[1,
psi(lambda, y)]``. The Gaussian profile NLL of that regression is ``n/2 log(RSS(lambda)/n)``.

``RSS(lambda) = S_yhat (1 - r^2)`` with ``r`` the correlation of ``yhat`` and ``psi``, and
``1 - r^2`` is also ``RSS_psi / S_psi``, the ratio of the residual sums of squares of
``psi(lambda, y)`` regressed on ``[1, yhat]`` and on ``1``. Both are Box-Cox response profiles
the core already has, and their Jacobian terms are equal, so

.. math:: \\tfrac{n}{2}\\log\\frac{\\mathrm{RSS}(\\lambda)}{n}
   = \\mathrm{NLL}_{[1, \\hat y]}(\\lambda) - \\mathrm{NLL}_{1}(\\lambda)
   + \\tfrac{n}{2}\\log\\frac{S_{\\hat y}}{n}

(``response.ResponseProfile`` and ``profile.SampleProfile`` of ``y``): the objective and its
score are differences of two stable, overflow-free computations, and the one solver and the one
inference module serve it.

References
----------
Cook, R. D. and Weisberg, S. (1994). Transforming a response variable for linearity.
Biometrika 81, 731-737.
Fox, J. and Weisberg, S. (2019). An R Companion to Applied Regression, 3rd ed. (car's
``inverseResponsePlot`` and ``invTranEstimate``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..core.design import qr_design
from ..core.likelihood import llf_constant
from ..core.profile import Profile, SampleProfile
from ..core.response import ResponseProfile

__all__ = ["InverseResponseProfile"]


@dataclass(frozen=True)
class InverseResponseProfile:
    """``lambda -> n/2 log(RSS(lambda)/n)`` for ``yhat ~ 1 + psi(lambda, y)`` (a Profile).

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.linearity.inverse import InverseResponseProfile
    >>> from boxcoxstat.core.solve import solve
    >>> rng = np.random.default_rng(0)
    >>> y = rng.uniform(1, 4, 100) ** 2           # yhat is linear in sqrt(y)
    >>> prof = InverseResponseProfile.build(y, 3 + 2 * np.sqrt(y))
    >>> round(float(solve(prof).lmbda[0]), 6)
    0.5
    """

    regression: Profile  # psi(lambda, y) on [1, yhat]
    sample: Profile  # psi(lambda, y) on 1
    log_syy: float  # log of yhat's centred sum of squares
    n: int

    @classmethod
    def build(cls, y: ArrayLike, yhat: ArrayLike, family: str = "boxcox"
              ) -> InverseResponseProfile:
        """``y`` the response (validated: positive for Box-Cox), ``yhat`` the fitted values."""
        y = np.asarray(y, dtype=np.float64).reshape(-1)
        yhat = np.asarray(yhat, dtype=np.float64).reshape(-1)
        design = qr_design(np.column_stack([np.ones_like(yhat), yhat]))
        centred = yhat - yhat.mean()
        centred -= centred.mean()
        return cls(ResponseProfile.build(y, design, family),
                   SampleProfile.from_array(y, family),
                   float(np.log(centred @ centred)), int(y.shape[0]))

    @property
    def ncols(self) -> int:
        return 1

    def nobs(self) -> NDArray[np.float64]:
        return np.array([float(self.n)])

    def llf_offset(self) -> NDArray[np.float64]:
        return llf_constant(self.nobs())

    def subsample(self) -> None:
        return None

    def evaluate(self, lmbda: ArrayLike, cols: ArrayLike = 0, *,
                 score: bool = True) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        v1, s1 = self.regression.evaluate(lmbda, cols, score=score)
        v0, s0 = self.sample.evaluate(lmbda, cols, score=score)
        n = float(self.n)
        return v1 - v0 + 0.5 * n * (self.log_syy - np.log(n)), s1 - s0

    def rss(self, lmbda: ArrayLike) -> NDArray[np.float64]:
        """The residual sum of squares of ``yhat ~ 1 + psi(lambda, y)`` at each ``lmbda``."""
        lam = np.atleast_1d(np.asarray(lmbda, dtype=np.float64))
        val, _ = self.evaluate(lam, np.zeros(lam.size, dtype=np.intp), score=False)
        return float(self.n) * np.exp(2.0 * val / float(self.n))
