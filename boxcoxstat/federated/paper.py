"""The paper's protocol, the default: Xu & Cormode (2025), Algorithms 2-3, lambda alone down.

Per column, a client first reports its counts (no minimum, no
maximum); then in every round the server sends the lambda alone and a Box-Cox client answers
``(c, n, mean, s)`` (Algorithm 2), a Yeo-Johnson client ``(c, n_pos, n_neg, mean, s)``
(Algorithm 3) -- :class:`~.messages.PaperReply`. ``c`` and the counts do not depend on
lambda; ``mean`` and ``s`` are the mean and the sum of squared deviations of the client's
transformed values, computed in the client's own frame:

* a client whose values are all on one side (Box-Cox, or one-signed Yeo-Johnson) transforms
  the log-ratio ``d = log(b / g)`` of its bases ``b`` (``x``, ``1 + x`` or ``1 - x``) to their
  geometric mean ``g = exp(c/n)`` -- which the server derives from ``c`` and ``n``, so it
  reveals nothing more -- by ``expm1(k d)/k`` (``k = lambda``, or ``2 - lambda`` on the
  negative side); the log-ratio keeps every digit of tightly clustered data, and no exponent
  is larger than the spread of the client's own logs allows;
* a mixed-sign client sends the moments of ``psi_YJ(lambda, x)`` itself (Algorithm 3, line 9).

The server re-expresses every client's moments in one frame (an exact affine map, the mean
correction of Algorithm 3, lines 21-26, in a stable form: log-ratio of each client's ``g`` to
the pooled one, and a shift so no factor overflows), merges them pairwise through a queue
(Algorithm 1, Chan, Golub & LeVeque 1982) and evaluates the profile NLL

    f(lambda) = A + B lambda + N/2 Q(lambda),    Q = log of the variance of the transform
                                                     (up to a term linear in lambda)

where ``A`` comes from ``sum c`` and ``N``, and ``B`` (for one-signed data) from the pooled
mean of the round at ``k = 0``, which is the exact sum of the log-ratios to the pooled base:
``sum c`` carries an ulp of rounding that moves a lambda of order 1e9 by 1e-7 relative
(:meth:`Frame.anchor`). ``Q`` is the log of the pooled variance times a power of two fixed per
column (:meth:`Frame.q`), so it is of order 1 whatever the data's scale and its rounding is
about 1e-16. The NLL is convex in lambda. The search (:func:`minimise`) brackets the minimum
from lambda = 0 and 1 (after the round at ``k = 0``) with parabolic extrapolation, its first
step the data's own unit of lambda where that is large (data on a tiny scale), and closes it
with Brent's safeguarded parabolic steps (Brent 1973) to about 1e-5 of the profile's natural
scale; NLL values alone cannot locate the minimum to better than the square root of their
rounding (the paper's limit). The polish then evaluates ``Q`` at four more lambdas ``hat +-
h, hat +- 2 h`` and steps to the root of the score's quadratic model ``B + N/2 (Q' + Q'' t +
Q''' t^2 / 2)`` with the derivatives from the five values: at step ``h = 1e-3`` of the
natural scale they are good to about 1e-12, and lambda lands within about 1e-12 of the
natural scale of the root of the score -- the central MLE (``tests/test_nested.py``: 1e-10
relative on Table 1 of Xu & Cormode 2025, lambda = -3.35e9 and Yeo-Johnson data of order
1e-100).

What it costs (measured in the tests): 14-25 rounds for lambda (those at 0 and 1 also give
the LR tests' NLL values; all-negative Yeo-Johnson data one more, at 2), the standard error
from the polish's ``Q''`` (no extra round), the 95% profile interval in 5-9 more rounds that
carry both ends (two lambdas each), and the influence screen in no extra round: the server
keeps every client's moments at the polish lambdas, so it can merge all the clients but one
and take the same Newton step for each leave-one-out fit (a one-step approximation, as
Cook's distance is for regression).

What the checks can refuse without ranges: a count that differs from the set-up, a ``c``
that changes between rounds or has the wrong sign for a one-signed Yeo-Johnson client, a
negative ``s``, a single value with a spread, and a mean that breaks Jensen's inequality
(``expm1(k d)/k`` is convex in ``d`` for ``k > 0`` and concave for ``k < 0``, and ``d`` has
mean 0, so ``k * mean >= 0``). The range checks of the full protocol need the ranges it
sends; a consistent liar is left to the influence screen.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from .._validation.columns import BoxCoxError
from ..core.bounds import lambda_bounds
from ..core.likelihood import llf_constant
from ..core.solve import Solution
from .messages import CountsReport, LambdaRequest, PaperReply, finite, numbers

__all__ = [
    "site_stats",
    "log_ratio_sum",
    "SiteView",
    "Evaluation",
    "Tally",
    "minimise",
    "PaperFit",
    "fit_column",
    "screen_effects",
    "check_paper_reply",
    "POLISH_STEP",
]

POLISH_STEP = 1e-3  # the polish's step, in the profile's natural scale (see the module doc)
_MAX_SEARCH = 60  # rounds the search may take before it reports non-convergence
_OVER = 300.0  # largest exponent a frame factor may have before the frame shifts
RTOL = 1e-9


# ------------------------------------------------------------------ the client's side
def _phi(d: NDArray[np.float64], k: NDArray[np.float64]) -> NDArray[np.float64]:
    """``expm1(k d)/k`` for every value (rows) and exponent (columns); ``d`` at ``k = 0``."""
    kk = k[None, :]
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        out = np.expm1(kk * d[:, None]) / np.where(kk == 0, 1.0, kk)
    return np.where(kk == 0, d[:, None], out)


def _ratio_log(b: NDArray[np.float64], g: float, one: float) -> NDArray[np.float64]:
    """``log(b / base(g))`` from the exact difference: ``log1p((x - g)/(one + g))`` with
    ``one = 0`` (Box-Cox: base x) or 1 (Yeo-Johnson: base 1 + |x|)."""
    return np.log1p((b - g) / (one + g))


def _bases(x: NDArray[np.float64], family: str
           ) -> tuple[float, int, int, NDArray[np.float64] | None, bool]:
    """``c``, the counts, and a one-signed client's log-ratios ``d`` of its bases to their
    geometric mean (``None`` for a mixed-sign Yeo-Johnson client); the last item says
    whether ``k = 2 - lambda`` (all values negative)."""
    if family == "boxcox":
        c = float(np.sum(np.log(x)))
        g = float(np.exp(c / x.size))
        return c, int(x.size), 0, _ratio_log(x, g, 0.0), False
    pos = x >= 0
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    c = float(np.sum(np.log1p(x[pos])) - np.sum(np.log1p(-x[~pos])))
    if n_neg == 0:
        return c, n_pos, 0, _ratio_log(x, float(np.expm1(c / n_pos)), 1.0), False
    if n_pos == 0:
        return c, 0, n_neg, _ratio_log(-x, float(np.expm1(-c / n_neg)), 1.0), True
    return c, n_pos, n_neg, None, False


def log_ratio_sum(x: NDArray[np.float64], family: str) -> float | None:
    """The sum of a one-signed client's log-ratios ``d`` (``None`` for mixed signs): the
    residue of rounding in ``c``, which a weighted fit needs at set-up (the weighted moments
    no longer carry it: see :meth:`Frame.anchor`)."""
    d = _bases(np.asarray(x, dtype=np.float64).ravel(), family)[3]
    return None if d is None else float(math.fsum(d))


def site_stats(x: NDArray[np.float64], family: str, lmbda: Any,
               weights: NDArray[np.float64] | None = None
               ) -> tuple[float, int, int, NDArray[np.float64], NDArray[np.float64]]:
    """What a client sends for its finite values ``x`` at the lambdas ``lmbda``:
    ``(c, n_pos, n_neg, mean, s)`` (see :class:`~.messages.PaperReply`; NaN where the
    transformed values overflow). With case ``weights`` (positive, one per value) ``mean``
    and ``s`` are weighted (``sum w phi / sum w`` and ``sum w (phi - mean)^2``); ``c`` is
    not (the Jacobian of ``lm(weights=)``'s likelihood is not weighted).

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.federated.paper import site_stats
    >>> c, n, _, mean, s = site_stats(np.array([1.0, np.e, np.e**2]), "boxcox", [0.0])
    >>> round(c, 12), n, round(float(mean[0]), 12) + 0.0, round(float(s[0]), 12)
    (3.0, 3, 0.0, 2.0)
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    lam = np.atleast_1d(np.asarray(lmbda, dtype=np.float64))
    c, n_pos, n_neg, d, negative = _bases(x, family)
    w = None if weights is None else np.asarray(weights, dtype=np.float64).ravel()
    if d is not None:
        phi = _phi(d, 2.0 - lam if negative else lam)
    else:  # psi_YJ itself (Algorithm 3, line 9)
        pos = x >= 0
        phi = np.concatenate([_phi(np.log1p(x[pos]), lam),
                              -_phi(np.log1p(-x[~pos]), 2.0 - lam)])
        if w is not None:
            w = np.concatenate([w[pos], w[~pos]])
    with np.errstate(over="ignore", invalid="ignore"):
        if w is None:
            mean = phi.mean(axis=0)
            s = np.sum((phi - mean) ** 2, axis=0)
        else:
            mean = (w @ phi) / np.sum(w)
            s = w @ (phi - mean) ** 2
    bad = ~(np.isfinite(mean) & np.isfinite(s))
    mean[bad] = np.nan
    s[bad] = np.nan
    return c, n_pos, n_neg, mean, s


# ------------------------------------------------------------------ the server's side
@dataclass(frozen=True)
class SiteView:
    """What the server knows of one client's column: its counts and ``c`` (lambda-free);
    under case weights also its weight total ``w``, the sum of its weights' logs ``lw`` and
    the sum ``e`` of its log-ratios (:func:`log_ratio_sum`)."""

    n_pos: int
    n_neg: int
    c: float
    w: float | None = None
    lw: float = 0.0
    e: float | None = None

    @property
    def weight(self) -> float:
        """The client's share of the pooled moments: its weight total, else its count."""
        return float(self.n) if self.w is None else self.w

    @property
    def n(self) -> int:
        return self.n_pos + self.n_neg

    def kind(self, family: str) -> str:
        """``"pos"`` (Box-Cox or x >= 0 only), ``"neg"`` (x < 0 only) or ``"mixed"``."""
        if family == "boxcox" or self.n_neg == 0:
            return "pos"
        return "neg" if self.n_pos == 0 else "mixed"

    def log_base(self, family: str) -> float:
        """The log of the client's geometric-mean base (``c/n`` as the client forms it)."""
        kind = self.kind(family)
        if kind == "pos":
            return self.c / self.n_pos
        return -self.c / self.n_neg


@dataclass
class Evaluation:
    """One lambda: the merged count and log-variance term ``Q``, and each client's moments in
    the common frame (kept for the influence screen)."""

    lmbda: float
    q: float  # log of the pooled variance in the frame, plus 2 k shift (inf: overflow)
    parts: list[tuple[float, float, float]]  # per client (n, mean, s) in the common frame
    shift: float


class Frame:
    """The server's common frame for a column and family, from the counts and ``c``'s.

    One-signed data (Box-Cox, or Yeo-Johnson with every value on one side) are measured by
    the log-ratio to the pooled geometric-mean base ``G`` (``log G = sum c / N``); mixed-sign
    Yeo-Johnson data by ``psi_YJ`` itself (Algorithm 3), into which every one-signed client's
    moments are mapped exactly.
    """

    def __init__(self, family: str, views: list[SiteView]):
        self.family = family
        self.views = views
        kinds = {v.kind(family) for v in views}
        self.mode = kinds.pop() if len(kinds) == 1 and "mixed" not in kinds else "mixed"
        self.N = sum(v.n for v in views)
        self.C = float(math.fsum(v.c for v in views))
        one = 0.0 if family == "boxcox" else 1.0
        if self.mode in ("pos", "neg"):
            ell = (self.C / self.N) if self.mode == "pos" else (-self.C / self.N)
            self.ell = ell
            gbar = math.exp(ell) if family == "boxcox" else math.expm1(ell)
            self.gbar = gbar
            # delta_j = log(g_j / G), from the exact difference of the bases
            self.delta = []
            for v in views:
                lb = v.log_base(family)
                gj = math.exp(lb) if family == "boxcox" else math.expm1(lb)
                self.delta.append(math.log1p((gj - gbar) / (one + gbar)))
        else:
            self.ell = 0.0
            self.gbar = 0.0
            self.delta = [v.log_base(family) if v.kind(family) != "mixed" else 0.0
                          for v in views]
        # f = A + B lambda + N/2 Q. For one-signed data B is N log(G) - J (J the Jacobian's
        # sum of logs): from the counts it would be -C + N ell, whose rounding (an ulp of C,
        # and log(G) != ell once G is rounded) moves a lambda of order 1e9 by 1e-7 relative;
        # :meth:`anchor` replaces it by the exact -sum log(x/G), the pooled mean of the
        # round at k = 0 (which the search evaluates first).
        self.anchored = self.mode == "mixed"
        self.exp2: int | None = None  # the power of two that brings the variance near 1
        self.sum0: list[float] = []
        self.weighted = any(v.w is not None for v in views)
        # R's logLik of lm(weights=): sum(log w)/2 - n/2 log(W/n) beside the unweighted form
        self.llf_offset = 0.0
        if self.weighted:
            W = math.fsum(v.weight for v in views)
            self.llf_offset = (0.5 * math.fsum(v.lw for v in views)
                               - 0.5 * self.N * math.log(W / self.N))
        if self.mode == "pos":
            self.A, self.B = self.C, -self.C + self.N * self.ell
        elif self.mode == "neg":  # Q is measured with k = 2 - lambda
            self.A, self.B = self.C + 2.0 * self.N * self.ell, -self.C - self.N * self.ell
        else:
            self.A, self.B = self.C, -self.C
        if self.weighted and self.mode != "mixed":
            # the weighted moments at k = 0 give sum w d, not sum d: the clients send e = sum d
            self.sum0 = [float(v.e or 0.0) + v.n * d for v, d in
                         zip(views, self.delta, strict=True)]
            self.B = self.linear()[1]
            self.anchored = True

    @property
    def lambda_k0(self) -> float | None:
        """The lambda at which ``k = 0`` (one-signed data; ``None`` for mixed-sign data)."""
        return {"pos": 0.0, "neg": 2.0}.get(self.mode)

    def anchor(self, parts: list[tuple[float, float, float]]) -> None:
        """Set ``B`` from the round at ``k = 0``: each client's ``n (delta + mean)`` is the
        sum of its log-ratios to the pooled base ``G`` (exact up to their own rounding)."""
        self.sum0 = [n * m for n, m, _ in parts]
        self.B = self.linear()[1]
        self.anchored = True

    def linear(self, members: list[bool] | None = None) -> tuple[float, float]:
        """``(A, B)`` of all clients or of the ``members`` only (the influence screen)."""
        keep = [True] * len(self.views) if members is None else members
        N = sum(v.n for v, m in zip(self.views, keep, strict=True) if m)
        C = float(math.fsum(v.c for v, m in zip(self.views, keep, strict=True) if m))
        if self.mode == "mixed":
            return C, -C
        if self.sum0:
            u = float(math.fsum(t for t, m in zip(self.sum0, keep, strict=True) if m))
            if self.mode == "pos":
                return C, -u
            return C + 2.0 * N * self.ell, u
        if self.mode == "pos":
            return C, -C + N * self.ell
        return C + 2.0 * N * self.ell, -C - N * self.ell

    def k(self, lam: float) -> float:
        return 2.0 - lam if self.mode == "neg" else lam

    def q(self, parts: list[tuple[float, float, float]], k: float, shift: float) -> float:
        """``Q`` of merged parts with the column's power of two added: ``log`` of a variance
        of order 1, so its rounding (half an ulp of ``Q``) does not grow with the data's
        scale (``Q`` near -460 for data of order 1e-100 carries 3e-14 of rounding, which
        the polish's stencil turns into 2e-10 of a standard error in lambda)."""
        if self.exp2 is None:
            n, _, s = merge(parts)
            if n > 0 and s > 0 and math.isfinite(s):
                self.exp2 = -math.frexp(s / n)[1]
        return q_value(parts, k, shift, self.exp2 or 0)

    @property
    def q_offset(self) -> float:
        """What :meth:`q` adds to ``Q``: ``exp2 log 2``."""
        return (self.exp2 or 0) * math.log(2.0)

    def nll(self, lam: float, q: float) -> float:
        return self.A + self.B * lam + 0.5 * self.N * (q - self.q_offset)

    def convert(self, lam: float, stats_: list[tuple[float, float]]
                ) -> tuple[list[tuple[float, float, float]], float]:
        """Each client's ``(mean, s)`` at ``lam`` in the common frame: ``(n, mean, s)``."""
        out: list[tuple[float, float, float]] = []
        if self.mode in ("pos", "neg"):
            k = self.k(lam)
            reach = max(abs(k * d) for d in self.delta)
            shift = 0.0
            if reach > _OVER:
                shift = max(self.delta) if k > 0 else min(self.delta)
            for v, d, (m, s) in zip(self.views, self.delta, stats_, strict=True):
                e = k * (d - shift)
                a = math.exp(e)
                b = math.expm1(e) / k if k != 0 else (d - shift)
                out.append((v.weight, a * m + b, a * a * s))
            return out, shift
        for v, lb, (m, s) in zip(self.views, self.delta, stats_, strict=True):
            kind = v.kind(self.family)
            if kind == "mixed":
                out.append((v.weight, m, s))
                continue
            # psi = sign * (e^{k lb} phi + expm1(k lb)/k), k = lambda or 2 - lambda
            k = lam if kind == "pos" else 2.0 - lam
            sign = 1.0 if kind == "pos" else -1.0
            try:
                a = math.exp(k * lb)
            except OverflowError:
                a = math.inf
            b = math.expm1(k * lb) / k if k != 0 else lb
            out.append((v.weight, sign * (a * m + b), a * a * s))
        return out, 0.0


def merge(parts: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    """Pairwise merge of ``(n, mean, s)`` through a queue (Xu & Cormode 2025, Algorithm 1).

    Examples
    --------
    >>> from boxcoxstat.federated.paper import merge
    >>> merge([(2.0, 1.5, 0.5), (1.0, 3.0, 0.0), (1.0, 4.0, 0.0)])
    (4.0, 2.5, 5.0)
    """
    q = deque(p for p in parts if p[0] > 0)
    if not q:
        return 0.0, 0.0, 0.0
    while len(q) > 1:
        na, ma, sa = q.popleft()
        nb, mb, sb = q.popleft()
        n = na + nb
        dlt = mb - ma
        q.append((n, ma + dlt * nb / n, sa + sb + dlt * dlt * na * nb / n))
    return q[0]


def q_value(parts: list[tuple[float, float, float]], k: float, shift: float,
            exp2: int = 0) -> float:
    """``Q`` of merged parts: ``log(S/N) + 2 k shift`` (inf where it is not finite), plus
    ``exp2 log 2`` (a column's fixed power of two, :attr:`Frame.exp2`)."""
    n, _, s = merge(parts)
    if not (n > 0 and s > 0 and math.isfinite(s)):
        return math.inf if not math.isfinite(s) else -math.inf
    return math.log(math.ldexp(s / n, exp2)) + 2.0 * k * shift


# ------------------------------------------------------------------ the search
_GOLD = 1.618033988749895
_CGOLD = 0.3819660112501051


def _parabola(a: float, fa: float, b: float, fb: float, c: float, fc: float) -> float | None:
    r = (b - a) * (fb - fc)
    q = (b - c) * (fb - fa)
    den = 2.0 * (q - r)
    if den == 0 or not all(map(math.isfinite, (fa, fb, fc))):
        return None
    return b - ((b - c) * q - (b - a) * r) / den


def minimise(f: Callable[[float], float], a: float, b: float, *,
             max_evals: int = _MAX_SEARCH, step: float | None = None
             ) -> tuple[float, float, float, bool]:
    """Minimum of a convex ``f`` from two starting points, by bracketing with parabolic
    extrapolation and Brent's safeguarded parabolic steps (Brent 1973; Press et al.'s
    ``mnbrak`` and ``brent``), stopped at about 1e-6 of the curvature's natural scale.

    Returns ``(x, f(x), natural scale, converged)``; the natural scale is ``1/sqrt(f'')`` of
    the last parabola (its estimate of the standard error).

    Examples
    --------
    >>> from boxcoxstat.federated.paper import minimise
    >>> x, fx, scale, ok = minimise(lambda t: (t - 3.0) ** 2 + 1.0, 0.0, 1.0)
    >>> round(x, 6), ok
    (3.0, True)
    """
    evals = 0

    def ev(t: float) -> float:
        nonlocal evals
        evals += 1
        v = f(t)
        return v if not math.isnan(v) else math.inf

    fa, fb = ev(a), ev(b)
    if fb > fa:
        a, b, fa, fb = b, a, fb, fa
    c = b + _GOLD * (b - a)
    if step is not None and step > abs(c - b):  # the first step, from the data's scale
        c = b + math.copysign(step, b - a)
    fc = ev(c)
    while fb >= fc and evals < max_evals:  # still descending: extrapolate
        u = _parabola(a, fa, b, fb, c, fc)
        ulim = c + 100.0 * (c - b)
        if u is not None and (b - u) * (u - c) > 0:
            fu = ev(u)
            if fu < fc:
                a, b, fa, fb = b, u, fb, fu
                break
            if fu > fb:
                c, fc = u, fu
                break
            u = c + _GOLD * (c - b)
            fu = ev(u)
        elif u is not None and (c - u) * (u - ulim) > 0:
            # far from the minimum the NLL is nearly linear and the parabola's step short:
            # at least double the last step (a bracket in log2 of the distance)
            if abs(u - c) < 2.0 * abs(c - b):
                u = c + 2.0 * (c - b)
            fu = ev(u)
        elif u is not None and (u - ulim) * (ulim - c) >= 0:
            u = ulim
            fu = ev(u)
        else:
            u = c + 2.0 * (c - b)
            fu = ev(u)
        a, b, c, fa, fb, fc = b, c, u, fb, fc, fu
    if not (fb <= fa and fb <= fc):
        return b, fb, math.nan, False
    # Brent on the bracket (a, c) around b
    lo, hi = min(a, c), max(a, c)
    x = w = v = b
    fx = fw = fv = fb
    pts = sorted([(a, fa), (b, fb), (c, fc)])
    curv = _curvature(pts)
    scale = 1.0 / math.sqrt(curv) if curv > 0 else abs(hi - lo)
    d = e = 0.0
    while evals < max_evals:
        tol = 1e-7 * abs(x) + 1e-5 * scale
        xm = 0.5 * (lo + hi)
        if abs(x - xm) <= 2.0 * tol - 0.5 * (hi - lo):
            return x, fx, scale, True
        use_golden = True
        if abs(e) > tol:
            r = (x - w) * (fx - fv)
            q = (x - v) * (fx - fw)
            p = (x - v) * q - (x - w) * r
            q = 2.0 * (q - r)
            if q > 0:
                p = -p
            q = abs(q)
            etemp = e
            e = d
            if (math.isfinite(p) and math.isfinite(q) and abs(p) < abs(0.5 * q * etemp)
                    and q * (lo - x) < p < q * (hi - x)):
                d = p / q
                u = x + d
                if u - lo < 2 * tol or hi - u < 2 * tol:
                    d = tol if xm >= x else -tol
                use_golden = False
        if use_golden:
            e = (lo - x) if x >= xm else (hi - x)
            d = _CGOLD * e
        u = x + (d if abs(d) >= tol else (tol if d > 0 else -tol))
        fu = ev(u)
        if fu <= fx:
            if u >= x:
                lo = x
            else:
                hi = x
            v, w, x = w, x, u
            fv, fw, fx = fw, fx, fu
        else:
            if u < x:
                lo = u
            else:
                hi = u
            if fu <= fw or w == x:
                v, w, fv, fw = w, u, fw, fu
            elif fu <= fv or v == x or v == w:
                v, fv = u, fu
        pts = sorted([(x, fx), (w, fw), (v, fv)])
        c2 = _curvature(pts)
        if c2 > 0 and math.isfinite(c2):
            scale = 1.0 / math.sqrt(c2)
    return x, fx, scale, False


def _curvature(pts: list[tuple[float, float]]) -> float:
    """Second derivative of the parabola through three points (NaN if they coincide)."""
    (a, fa), (b, fb), (c, fc) = pts
    if a == b or b == c or a == c or not all(map(math.isfinite, (fa, fb, fc))):
        return math.nan
    return 2.0 * ((fc - fb) / (c - b) - (fb - fa) / (b - a)) / (c - a)


# ------------------------------------------------------------------ one column
@dataclass
class Tally:
    """What travelled, by round: ``rows`` of ``{"column", "round", "kind", "down", "up"}``
    (numbers per client down, and up by client label)."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    rounds: int = 0
    dropped: dict[str, str] = field(default_factory=dict)

    def add(self, column: int, kind: str, down: int, up: dict[str, int]) -> None:
        self.rows.append({"column": column, "round": self.rounds if kind != "counts" else 0,
                          "kind": kind, "down": down, "up": dict(up)})

    def by_kind(self) -> list[dict[str, Any]]:
        """Rounds and numbers per client, by kind of message (what the summary prints)."""
        out: dict[str, dict[str, Any]] = {}
        for r in self.rows:
            k = out.setdefault(r["kind"], {"kind": r["kind"], "rounds": 0, "down": 0,
                                           "up_per_client": 0})
            k["rounds"] += 1
            k["down"] += r["down"]
            k["up_per_client"] += max(r["up"].values(), default=0)
        return list(out.values())

    def per_client(self) -> dict[str, dict[str, int]]:
        """Numbers each client sent and received over the fit."""
        out: dict[str, dict[str, int]] = {}
        for r in self.rows:
            for label, n in r["up"].items():
                d = out.setdefault(label, {"sent": 0, "received": 0})
                d["sent"] += n
                d["received"] += r["down"]
        return out


def check_paper_reply(rep: Any, req: LambdaRequest, view: SiteView | None, n_pos: int,
                      n_neg: int, family: str, weighted: bool = False) -> str | None:
    """What is wrong with a reply to ``req`` from a client that declared ``n_pos``/``n_neg``
    at set-up (``view``: what it sent before, ``None`` in its first round); ``None`` if
    nothing (see the module doc for what can be checked without ranges).

    Examples
    --------
    >>> from boxcoxstat.federated.messages import LambdaRequest, PaperReply
    >>> from boxcoxstat.federated.paper import check_paper_reply
    >>> req = LambdaRequest("boxcox", (0.5,), 0, 3)
    >>> check_paper_reply(PaperReply("", 1.0, 4, None, (0.1,), (-1.0,), 0, 3), req, None,
    ...                   4, 0, "boxcox")
    'sent a negative sum of squared deviations'
    """
    if not isinstance(rep, PaperReply):
        return f"sent {type(rep).__name__} instead of a PaperReply"
    if rep.column != req.column or rep.round != req.round:
        return (f"answered column {rep.column!r}, round {rep.round!r} when column "
                f"{req.column}, round {req.round} was asked (a stale or replayed reply)")
    nn = 0 if rep.n_neg is None else rep.n_neg
    if rep.n_pos != n_pos or nn != n_neg:
        return (f"sent inconsistent counts: {rep.n_pos!r} and {rep.n_neg!r}, "
                f"{n_pos} and {n_neg} reported at set-up")
    if family == "boxcox" and rep.n_neg not in (None, 0):
        return "sent a count of negative values to a Box-Cox fit"
    L = len(req.lmbda)
    if not finite(rep.c) or not (numbers(rep.mean, L) and numbers(rep.s, L)):
        return "sent a non-finite c or malformed moments"
    if view is not None and abs(rep.c - view.c) > RTOL * (abs(view.c) + view.n):
        return "changed its sum of logs c between rounds"
    kind = SiteView(n_pos, n_neg, rep.c).kind(family)
    if family != "boxcox" and ((kind == "pos" and rep.c < 0) or (kind == "neg" and rep.c > 0)):
        return "sent a sum of logs c of the wrong sign for its values"
    n = n_pos + n_neg
    for lam, m, s in zip(req.lmbda, rep.mean, rep.s, strict=True):
        if math.isnan(m) and math.isnan(s):
            continue  # overflow at this lambda, declared as such
        if not (math.isfinite(m) and math.isfinite(s)):
            return "sent non-finite moments"
        if s < 0:
            return "sent a negative sum of squared deviations"
        spread = math.sqrt(s / n)
        if n == 1 and s > 0:
            return "sent a spread for a single value"
        if kind != "mixed" and not weighted:  # weighted: d's weighted mean is not 0
            k = 2.0 - lam if kind == "neg" else lam
            # Jensen: expm1(k d)/k is convex (k > 0) or concave (k < 0) and d has mean 0
            # (d's mean is 0 up to the rounding of g = exp(c/n): a few eps of |c/n|)
            centre = abs(rep.c) / n
            if k * m < -abs(k) * (1e-13 * (1.0 + centre) + 1e-9 * (abs(m) + spread)):
                return ("sent a mean of its transformed values that no data can give "
                        "(Jensen's inequality)")
    return None


@dataclass
class PaperFit:
    """One column's fit by the paper's protocol."""

    lmbda: float
    nll: float
    converged: bool
    bse: float
    lower: float
    upper: float
    lr0: float
    lr1: float
    fit_rounds: int
    infer_rounds: int
    frame: Frame
    polish: list[Evaluation]  # the five evaluations around the minimum (screen)
    nobs: int


# a round: lambdas -> per client (mean[], s[]) in the order of the views; raises on a drop
RoundFn = Callable[[list[float], str], list[tuple[NDArray[np.float64], NDArray[np.float64]]]]


def _stencil(q: list[float], h: float) -> tuple[float, float, float]:
    """``Q'``, ``Q''`` and ``Q'''`` at the centre of five values at ``-2h .. 2h``."""
    d1 = (q[0] - 8.0 * q[1] + 8.0 * q[3] - q[4]) / (12.0 * h)
    d2 = (-q[0] + 16.0 * q[1] - 30.0 * q[2] + 16.0 * q[3] - q[4]) / (12.0 * h * h)
    d3 = (-q[0] + 2.0 * q[1] - 2.0 * q[3] + q[4]) / (2.0 * h ** 3)
    return d1, d2, d3


def newton_from(frame: Frame, polish: list[Evaluation], h: float,
                members: list[bool] | None = None) -> tuple[float, float, float]:
    """One Newton step on the score from the polish's centre, for all clients or the
    ``members`` only: ``(lambda, nll, curvature)``."""
    centre = polish[2].lmbda
    if members is None:
        N, A, B, qs = frame.N, frame.A, frame.B, [e.q for e in polish]
    else:
        N = sum(v.n for v, m in zip(frame.views, members, strict=True) if m)
        A, B = frame.linear(members)
        qs = [q_value([p for p, m in zip(e.parts, members, strict=True) if m],
                      frame.k(e.lmbda), e.shift, frame.exp2 or 0) for e in polish]
    d1, d2, d3 = _stencil(qs, h)
    g0, curv, c3 = B + 0.5 * N * d1, 0.5 * N * d2, 0.5 * N * d3
    # the root nearest 0 of the score's quadratic model g0 + curv t + c3 t^2 / 2 (a Newton
    # step corrected by the third derivative): the search leaves the centre up to ~1e-5 of
    # the natural scale away, where a plain Newton step would still be off by ~1e-10 of it
    t = -g0 / curv
    t = -g0 / (curv + 0.5 * c3 * t)
    f0 = A + B * centre + 0.5 * N * (qs[2] - frame.q_offset)
    return (centre + t, f0 + g0 * t + 0.5 * curv * t * t + c3 * t ** 3 / 6.0,
            curv + c3 * t)


def fit_column(round_fn: RoundFn, frame: Frame, *, alpha: float = 0.05,
               interval: bool = True, limits: tuple[float, float] | None = None,
               evals: dict[float, Evaluation] | None = None) -> PaperFit:
    """Fit one column: the search, the polish, the standard error and the profile interval.

    ``round_fn(lambdas, kind)`` runs one round and returns each client's ``(mean, s)``.
    """
    seen: dict[float, Evaluation] = {} if evals is None else evals
    rounds = {"fit": 0, "interval": 0}

    def evaluate(lams: list[float], kind: str) -> list[Evaluation]:
        rounds["interval" if kind == "interval" else "fit"] += 1
        replies = round_fn(lams, kind)
        out = []
        for i, lam in enumerate(lams):
            st = [(float(m[i]), float(s[i])) for m, s in replies]
            if any(math.isnan(m) for m, _ in st):
                ev = Evaluation(lam, math.inf, [], 0.0)
            else:
                with np.errstate(all="ignore"):
                    parts, shift = frame.convert(lam, st)
                ev = Evaluation(lam, frame.q(parts, frame.k(lam), shift), parts, shift)
            seen[lam] = ev
            out.append(ev)
        return out

    def f(lam: float) -> float:
        ev = seen.get(lam) or evaluate([lam], "search")[0]
        return frame.nll(lam, ev.q) if math.isfinite(ev.q) else math.inf

    k0 = frame.lambda_k0
    if k0 is not None and not frame.anchored:  # one-signed: the round at k = 0 first
        ev0 = seen.get(k0) or evaluate([k0], "search")[0]
        if ev0.parts and math.isfinite(ev0.q):
            frame.anchor(ev0.parts)
    first, second = (0.0, 1.0) if frame.mode == "pos" else (1.0, 0.0)
    if f(first) == -math.inf or f(first) == math.inf and f(second) == math.inf:
        raise BoxCoxError("the pooled data have no spread (constant values) or their "
                          "transformed values overflow at lambda = 0 and 1")
    # the profile's natural unit of lambda is about 1/sd of the transformed values at k = 0
    # (mixed-sign data: at lambda = 1); data on a tiny scale put the minimum near 1/sd, so
    # the bracket's first step is that far, not 1 (Yeo-Johnson data of order 1e-100)
    ref = seen.get(k0 if k0 is not None else 1.0) or seen.get(1.0)
    unit = (math.exp(min(-0.5 * (ref.q - frame.q_offset), 700.0))
            if ref is not None and math.isfinite(ref.q) else 1.0)
    x, fx, scale, ok = minimise(f, first, second, step=unit if unit > 10.0 else None)
    lam, nll_hat, curv = x, fx, math.nan
    polish: list[Evaluation] = []
    # the step in Q's natural scale: 1/sqrt(Q'') = scale * sqrt(N/2) (scale is f''^-1/2)
    h = (POLISH_STEP * scale * math.sqrt(0.5 * frame.N) if math.isfinite(scale) and scale > 0
         else math.nan)
    if ok and math.isfinite(h):
        pts = [x - 2 * h, x - h, x + h, x + 2 * h]
        todo = [p for p in pts if p not in seen]
        for p in todo:
            evaluate([p], "polish")
        polish = [seen[x - 2 * h], seen[x - h], seen[x], seen[x + h], seen[x + 2 * h]]
        if all(math.isfinite(e.q) for e in polish):
            lam, nll_hat, curv = newton_from(frame, polish, h)
            ok = math.isfinite(lam) and curv > 0 and abs(lam - x) < 10 * h
        else:
            ok = False
    bse = 1.0 / math.sqrt(curv) if ok and curv > 0 else math.nan
    lower = upper = math.nan
    lr = [math.nan, math.nan]
    if ok:
        for i, t in enumerate((0.0, 1.0)):
            ft = f(t) if t in seen else math.nan  # evaluated by the search's first rounds
            lr[i] = max(2.0 * (ft - nll_hat), 0.0)
        if interval:
            lower, upper = _interval(evaluate, frame, lam, nll_hat, curv, alpha)
    return PaperFit(lam, nll_hat, ok, bse, lower, upper, lr[0], lr[1], rounds["fit"],
                    rounds["interval"], frame, polish, frame.N)


def _interval(evaluate: Callable[[list[float], str], list[Evaluation]], frame: Frame,
              lam: float, nll_hat: float, curv: float, alpha: float,
              max_rounds: int = 40) -> tuple[float, float]:
    """Both ends of the profile-likelihood interval, in rounds that carry both: a cubic
    model from the curvature and one value per end, then secant steps."""
    half = 0.5 * float(stats.chi2.isf(alpha, 1))
    t0 = math.sqrt(half / curv)
    scale = 1.0 / math.sqrt(curv)
    ts = [[t0], [-t0]]
    gs: list[list[float]] = [[], []]
    done = [False, False]
    for _ in range(max_rounds):
        want = [i for i in (0, 1) if not done[i]]
        if not want:
            break
        evs = evaluate([lam + ts[i][-1] for i in want], "interval")
        for i, ev in zip(want, evs, strict=True):
            g = frame.nll(ev.lmbda, ev.q) - nll_hat - half if math.isfinite(ev.q) else math.inf
            gs[i].append(g)
            t = ts[i][-1]
            if not math.isfinite(g):
                ts[i].append(0.5 * t)
                continue
            if len(gs[i]) == 1 or not math.isfinite(gs[i][-2]):
                # cubic model a t^2 + b t^3 = half with a = curv/2 from the polish
                a = 0.5 * curv
                b = (g + half - a * t * t) / t ** 3
                tn = t
                for _ in range(30):
                    r = a * tn * tn + b * tn ** 3 - half
                    dr = 2 * a * tn + 3 * b * tn * tn
                    if dr == 0:
                        break
                    tn -= r / dr
                if not math.isfinite(tn) or tn * t <= 0:
                    tn = t * math.sqrt(half / (g + half)) if g + half > 0 else 2 * t
            else:
                tp, gp = ts[i][-2], gs[i][-2]
                tn = t - g * (t - tp) / (g - gp) if g != gp else t
            ts[i].append(tn)
            if abs(tn - t) < 1e-13 * max(scale, abs(tn)) or g == 0:
                done[i] = True
    up = lam + ts[0][-1] if done[0] else math.nan
    lo = lam + ts[1][-1] if done[1] else math.nan
    return lo, up


def screen_effects(fit: PaperFit, threshold: float, budget: int, labels: list[str]
                   ) -> dict[str, float]:
    """The influence screen on the stored polish moments, no extra round: the client whose
    leave-one-out lambda (one Newton step from the polish) moves lambda most, in standard
    errors of the fit without it, is flagged when that exceeds ``threshold`` (one per pass,
    ``budget`` > 0, three or more clients); under ``on_influential="drop"`` the fit restarts
    without it and screens the others afresh (backward deletion, one refit per flag)."""
    if not fit.polish or len(labels) < 3:
        return {}
    h = fit.polish[3].lmbda - fit.polish[2].lmbda
    members = [True] * len(labels)
    base = fit.lmbda
    out: dict[str, float] = {}
    while budget > 0 and sum(members) >= 3:
        best, best_eff = -1, 0.0
        for j in range(len(labels)):
            if not members[j]:
                continue
            sub = list(members)
            sub[j] = False
            lam_j, _, curv_j = newton_from(fit.frame, fit.polish, h, sub)
            if not (curv_j > 0 and math.isfinite(lam_j)):
                continue
            eff = (base - lam_j) * math.sqrt(curv_j)
            if abs(eff) > abs(best_eff):
                best, best_eff = j, eff
        if best < 0 or abs(best_eff) <= threshold:
            break
        out[labels[best]] = float(best_eff)
        break  # one per pass: the polish was taken with it, so the one-step leave-two-out
        # fits would be far from their optima; a restart without it screens the rest afresh
    return out


def ymax_limits(frame: Frame, first: Evaluation | None, family: str, ymax: float,
                value_range: tuple[float, float] | None) -> tuple[tuple[float, float], str]:
    """The lambda interval on which ``|psi| <= ymax`` for every value: from the global range
    where the clients shared it (``share_range=True``), else from the outer range that the
    first round's moments prove (:func:`outer_range`), which is wider than the data and so
    gives a safe, more cautious interval."""
    if value_range is not None:
        return lambda_bounds(np.array(value_range), ymax, family), "shared range"
    lo, hi = outer_range(frame, first, family)
    return lambda_bounds(np.array([lo, hi]), ymax, family), "outer range from round 1"


def outer_range(frame: Frame, first: Evaluation | None, family: str) -> tuple[float, float]:
    """The range every value provably lies in, from the first round's moments alone
    (Samuelson's inequality: no value lies more than ``sqrt(s (n - 1)/n)`` from its client's
    mean); wider than the data."""
    if first is None or not first.parts:
        raise BoxCoxError("ymax needs the first round's moments")
    lo, hi = math.inf, -math.inf
    for n, m, s in first.parts:
        half = math.sqrt(max(s, 0.0) * (n - 1.0) / n) if n > 1 else 0.0
        ua, ub = m - half, m + half
        # the first round is at lambda = 0 (Box-Cox: u = log(x/G) - shift) or 1
        # (Yeo-Johnson: u = base/G e^-shift - 1 on one side, psi = x for mixed data)
        if family == "boxcox":
            a = frame.gbar * math.exp(min(ua + first.shift, 709.0))
            b = frame.gbar * math.exp(min(ub + first.shift, 709.0))
        elif frame.mode == "mixed":
            a, b = ua, ub
        else:
            g = (1.0 + frame.gbar) * math.exp(first.shift)
            blo, bhi = max(g * (1.0 + ua), 1.0), max(g * (1.0 + ub), 1.0)
            a, b = (blo - 1.0, bhi - 1.0) if frame.mode == "pos" else (1.0 - bhi, 1.0 - blo)
        lo, hi = min(lo, a), max(hi, b)
    if family == "boxcox":
        lo = max(lo, 5e-324)
    return lo, hi


def solution(fit: PaperFit) -> Solution:
    """The fit as the core's :class:`~boxcoxstat.core.solve.Solution` (one column)."""
    return Solution(np.array([fit.lmbda]), np.array([fit.nll]), np.array([fit.converged]),
                    np.array([fit.fit_rounds], dtype=np.int64),
                    np.array([2.0 / fit.bse ** 2 if fit.bse > 0 else np.nan]))


def llf_of(fit: PaperFit) -> float:
    """The maximised log-likelihood (with the Jacobian; weighted: R's ``logLik`` of
    ``lm(weights=)``, plus the Jacobian)."""
    return float(-fit.nll + llf_constant(fit.nobs) + fit.frame.llf_offset)


def deadline_left(start: float, deadline: float | None) -> float | None:
    """Seconds left before the fit's overall deadline (``None``: no deadline)."""
    if deadline is None:
        return None
    return deadline - (time.monotonic() - start)


def counts_numbers(rep: CountsReport) -> int:
    return rep.nbytes // 8
