"""Baselines that fail, kept to show why the stable protocol is needed. Never defaults.

Each function reproduces a method Xu & Cormode (2025) compare
against, as they describe it, in float64 without any of the package's safeguards:

* :func:`naive_nll` -- federated NLL whose clients send one-pass sums ``(c, n, sum y, sum
  y^2)`` and whose server forms the variance as ``E[y^2] - E[y]^2`` (their eq. 5; Box-Cox with
  ``y = x**lambda`` and ``log S - 2 log|lambda|``, Algorithm 2's log-domain step);
* :func:`linear_nll` -- the profile NLL evaluated in the linear domain (transformed values
  formed explicitly, ``np.var``);
* :func:`naive_score` and :func:`expsearch` -- the derivative of their eq. 9 from one-pass
  sums and the Exponential Search of Marchand et al. (2022), with the sign correction of Xu
  & Cormode's footnote 1 (move against the sign of dNLL/dlambda).

They return NaN or +-inf where float64 overflows, by design, and never warn.

References
----------
Xu, X. and Cormode, G. (2025). Power transform revisited: numerically stable, and federated.
Marchand, T., Muzellec, B., Beguier, C., Ogier du Terrail, J. and Andreux, M. (2022).
SecureFedYJ: a safe feature Gaussianization protocol for federated learning. NeurIPS 35.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation.columns import normalize_family

__all__ = ["naive_nll", "linear_nll", "naive_score", "expsearch"]


def _parts(data: ArrayLike | Sequence[ArrayLike]) -> list[NDArray[np.float64]]:
    if isinstance(data, (list, tuple)) and len(data) and np.ndim(data[0]) == 1:
        return [np.asarray(p, dtype=np.float64).reshape(-1) for p in data]
    return [np.asarray(data, dtype=np.float64).reshape(-1)]


def _psi_linear(x: NDArray, lam: float, family: str) -> tuple[NDArray, NDArray]:
    """Transformed values and their lambda-derivative, formed directly (may overflow)."""
    if family == "boxcox":
        lx = np.log(x)
        if lam == 0:
            return lx, 0.5 * lx * lx
        p = x**lam
        return (p - 1) / lam, (p * lx) / lam - (p - 1) / lam**2
    out, der = np.empty_like(x), np.empty_like(x)
    pos = x >= 0
    lp, ln = np.log1p(x[pos]), np.log1p(-x[~pos])
    if lam == 0:
        out[pos], der[pos] = lp, 0.5 * lp * lp
    else:
        p = (1 + x[pos]) ** lam
        out[pos], der[pos] = (p - 1) / lam, (p * lp) / lam - (p - 1) / lam**2
    k = 2 - lam
    if k == 0:
        out[~pos], der[~pos] = -ln, 0.5 * ln * ln
    else:
        q = (1 - x[~pos]) ** k
        out[~pos] = -(q - 1) / k
        der[~pos] = (q * ln) / k - (q - 1) / k**2
    return out, der


def _jacobian(x: NDArray, family: str) -> np.float64:
    if family == "boxcox":
        return (np.sum(np.log(x)))
    return (np.sum(np.sign(x) * np.log1p(np.abs(x))))


def naive_nll(
    clients: Sequence[ArrayLike], lmbda: ArrayLike, family: str = "boxcox"
) -> NDArray[np.float64]:
    """Federated NLL with one-pass sums and ``E[y^2] - E[y]^2`` (Xu & Cormode 2025, eq. 5).

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.federated.baselines import naive_nll
    >>> x = np.random.default_rng(0).normal(1e4, 1e-3, 100)
    >>> bool(np.isfinite(naive_nll(np.array_split(x, 10), [-1e5])).all())
    False
    """
    fam = normalize_family(family, allow_auto=False)
    parts = _parts(list(clients))
    lam_arr = np.atleast_1d(np.asarray(lmbda, dtype=np.float64))
    out = np.empty(lam_arr.shape)
    with np.errstate(all="ignore"):
        for i, lam in enumerate(lam_arr.tolist()):
            c = n = sy = syy = np.float64(0.0)
            for x in parts:
                if fam == "boxcox":
                    y = np.log(x) if lam == 0 else x**lam
                else:
                    y = _psi_linear(x, lam, fam)[0]
                c += _jacobian(x, fam)
                n += x.size
                sy += (np.sum(y))
                syy += (np.sum(y * y))
            s = syy - sy * sy / n
            log_s = np.log(s) if s > 0 else np.float64(-np.inf if s == 0 else np.nan)
            if fam == "boxcox" and lam != 0:
                log_s -= 2 * np.log(abs(lam))
            out[i] = (1 - lam) * c + 0.5 * n * (log_s - np.log(n))
    return out.reshape(np.shape(lmbda))


def linear_nll(x: ArrayLike, lmbda: ArrayLike, family: str = "boxcox") -> NDArray[np.float64]:
    """Profile NLL with the transformed values formed in float64 (overflows to inf/NaN)."""
    fam = normalize_family(family, allow_auto=False)
    xs = np.asarray(x, dtype=np.float64).reshape(-1)
    lam_arr = np.atleast_1d(np.asarray(lmbda, dtype=np.float64))
    j = _jacobian(xs, fam)
    with np.errstate(all="ignore"):
        out = np.array([
            (1 - lam) * j + 0.5 * xs.size * np.log(np.var(_psi_linear(xs, lam, fam)[0]))
            for lam in lam_arr.tolist()
        ])
    return out.reshape(np.shape(lmbda))


def naive_score(
    clients: Sequence[ArrayLike] | ArrayLike, lmbda: ArrayLike, family: str = "boxcox"
) -> NDArray[np.float64]:
    """dNLL/dlambda of Xu & Cormode's eq. 9 from one-pass sums aggregated over clients."""
    fam = normalize_family(family, allow_auto=False)
    parts = _parts(clients)  # type: ignore[arg-type]
    lam_arr = np.atleast_1d(np.asarray(lmbda, dtype=np.float64))
    out = np.empty(lam_arr.shape)
    with np.errstate(all="ignore"):
        for i, lam in enumerate(lam_arr.tolist()):
            n = c = s1 = s2 = sd = sprod = np.float64(0.0)
            for x in parts:
                y, d = _psi_linear(x, lam, fam)
                n += x.size
                c += _jacobian(x, fam)
                s1 += (np.sum(y))
                s2 += (np.sum(y * y))
                sd += (np.sum(d))
                sprod += (np.sum(y * d))
            var = s2 / n - (s1 / n) ** 2
            out[i] = (sprod - s1 * sd / n) / var - c
    return out.reshape(np.shape(lmbda))


def expsearch(
    clients: Sequence[ArrayLike] | ArrayLike,
    family: str = "boxcox",
    *,
    bounds: tuple[float, float] = (-1000.0, 1000.0),
    max_iter: int = 100,
) -> float:
    """Exponential Search for lambda (Marchand et al. 2022) with the corrected sign.

    From lambda = 0, steps of 1, 2, 4, ... move against the sign of :func:`naive_score` until
    the sign flips or a bound is hit; then bisection on the sign. A NaN derivative compares as
    "not positive", so the search drifts in one direction -- the failure the paper shows.

    Examples
    --------
    >>> from boxcoxstat.federated.baselines import expsearch
    >>> round(expsearch([0.1, 0.1, 0.1, 0.101]), 1)  # the optimum is -361.14
    -155.9
    """
    lo_b, hi_b = bounds

    def positive(lam: float) -> bool:
        return bool(naive_score(clients, [lam], family)[0] > 0)

    lam, step = 0.0, 1.0
    up = not positive(lam)
    prev = lam
    for _ in range(max_iter):
        new = min(max(lam + (step if up else -step), lo_b), hi_b)
        if positive(new) == up:  # crossed the root
            prev, lam = lam, new
            break
        prev, lam = lam, new
        if new in (lo_b, hi_b):
            return float(new)
        step *= 2
    a, b = sorted((prev, lam))
    for _ in range(max_iter):
        mid = 0.5 * (a + b)
        if mid in (a, b):
            break
        if positive(mid):
            b = mid
        else:
            a = mid
    return float(0.5 * (a + b))
