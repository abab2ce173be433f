"""Independent high-precision reference for Box-Cox / Yeo-Johnson lambda estimation.

Everything numerical here is done in mpmath; numpy is used only to hold and hand over data.
Inputs are converted with ``mpmath.mpf(float(v))`` so float64 data is taken exactly.

Definitions (Xu & Cormode 2025, eqs. 1-4), with optional weights ``w_i >= 0``::

    Box-Cox      psi(lam, x) = (x**lam - 1)/lam            (log x at lam = 0),  x > 0
    Yeo-Johnson  psi(lam, x) = ((1+x)**lam - 1)/lam        (log1p(x) at lam = 0),  x >= 0
                 psi(lam, x) = -((1-x)**(2-lam) - 1)/(2-lam)  (-log1p(-x) at lam = 2), x < 0

    NLL(lam) = (1 - lam) * J + W/2 * log(var_w(psi(lam, x)))

with ``J = sum w log x`` (BC) or ``sum w sign(x) log1p(|x|)`` (YJ), ``W = sum w`` and the
weighted variance with divisor ``W``.  The score is ``dNLL/dl = -J + W cov_w(psi, dpsi)/var_w``.
"""

from __future__ import annotations

import csv
import functools
import os
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent
DATA_DIR = REPO / "data"
# Data that may not be redistributed (Kaggle's House Prices train.csv) are not in data/. Every
# development machine and CI keep them in ../shared/data next to the repository; the
# environment variable BOXCOXSTAT_SHARED_DATA names another folder.
SHARED_DATA_DIR = Path(os.environ.get("BOXCOXSTAT_SHARED_DATA") or REPO.parent / "shared" / "data")

FAMILIES = ("boxcox", "yeojohnson")

_GUARD_DIGITS = 30  # covers cancellation in the variance (float data: <= ~17 digits) and more


# ---------------------------------------------------------------------------------------------
# data preparation
# ---------------------------------------------------------------------------------------------
def _key(x, weights, family):
    """Deduplicate to sorted (value, total weight) pairs; hashable, exact."""
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}")
    xs = [float(v) for v in np.asarray(x, dtype=float).ravel()]
    if weights is None:
        ws = [1.0] * len(xs)
    else:
        ws = [float(v) for v in np.asarray(weights, dtype=float).ravel()]
        if len(ws) != len(xs):
            raise ValueError("weights must have the same length as x")
    agg: dict[float, list[float]] = {}
    for v, w in zip(xs, ws, strict=True):
        if not (v == v and abs(v) != float("inf")):
            raise ValueError("non-finite data")
        if w < 0 or w != w:
            raise ValueError("weights must be >= 0")
        if w == 0:
            continue
        if family == "boxcox" and v <= 0:
            raise ValueError("Box-Cox needs x > 0")
        agg.setdefault(v + 0.0, []).append(w)  # + 0.0 folds -0.0 into 0.0
    if len(agg) < 2:
        raise ValueError("need at least two distinct values with positive weight")
    # total weight per value, exact (Fraction of the float64 weights)
    pairs = tuple(
        sorted((v, sum((Fraction(w) for w in ws_), Fraction(0))) for v, ws_ in agg.items())
    )
    return pairs, family


class _Prepared:
    """Per-precision cache of logs for one deduplicated data set."""

    def __init__(self, pairs, family):
        self.pairs = pairs
        self.family = family
        self._cache: dict[int, tuple] = {}

    def at(self, dps):
        """Return (xs, ws, W, us, sgn, J) as mpf at ``dps`` digits (cached)."""
        if dps not in self._cache:
            with mpmath.workdps(dps):
                xs = [mpmath.mpf(v) for v, _ in self.pairs]
                ws = [mpmath.mpf(w.numerator) / w.denominator for _, w in self.pairs]
                W = mpmath.fsum(ws)
                if self.family == "boxcox":
                    us = [mpmath.log(v) for v in xs]
                    sgn = [1] * len(xs)
                    J = mpmath.fsum(w * u for w, u in zip(ws, us, strict=True))
                else:
                    # u = log1p(|x|) and sign; psi uses u with lam (x >= 0) or 2 - lam (x < 0)
                    us = [mpmath.log1p(abs(v)) for v in xs]
                    sgn = [1 if v >= 0 else -1 for v in xs]
                    J = mpmath.fsum(w * s * u for w, s, u in zip(ws, sgn, us, strict=True))
            self._cache[dps] = (xs, ws, W, us, sgn, J)
        return self._cache[dps]

    def max_abs_u(self):
        return max(
            abs(float(mpmath.log(mpmath.mpf(v))))
            if self.family == "boxcox"
            else float(mpmath.log1p(abs(mpmath.mpf(v))))
            for v, _ in self.pairs
        )


@functools.lru_cache(maxsize=256)
def _prepared(pairs, family):
    return _Prepared(pairs, family)


def _work_dps(prep, lmbda, dps):
    """Working precision: requested + guard digits + digits lost forming lam*u (|lam*u| large)."""
    mag = abs(float(lmbda)) + 2.0
    t = mag * prep.max_abs_u()
    extra = int(mpmath.ceil(mpmath.log10(t + 1))) if t > 1 else 0
    wd = dps + _GUARD_DIGITS + extra
    return 10 * ((wd + 9) // 10)  # round up so the log cache is reused


# ---------------------------------------------------------------------------------------------
# the transform, its lambda-derivative, NLL and score
# ---------------------------------------------------------------------------------------------
def _g(t):
    """g(t) = (e^t (t - 1) + 1) / t^2, with g(0) = 1/2 (series for small |t|)."""
    if t == 0:
        return mpmath.mpf(1) / 2
    if abs(t) < mpmath.mpf("0.25"):
        # e^t (t-1) + 1 = sum_{k>=2} (k-1) t^k / k!  =>  g(t) = sum_{k>=2} (k-1) t^(k-2) / k!
        eps = mpmath.eps
        total = mpmath.mpf(0)
        k = 2
        tk = mpmath.mpf(1)  # t^(k-2)
        fact = mpmath.mpf(2)  # k!
        while True:
            term = (k - 1) * tk / fact
            total += term
            if abs(term) <= eps * abs(total):
                break
            k += 1
            tk *= t
            fact *= k
        return total
    return (mpmath.exp(t) * (t - 1) + 1) / (t * t)


def _group(ws, us, lam, sign):
    """Moments of one one-sided group, psi = sign * expm1(lam*u)/lam, dpsi = u^2 g(lam*u).

    Returns (W_g, mean psi, mean dpsi, sum w (psi - mean)^2, sum w (psi - mean)(dpsi - mean)).
    When every ``t = lam*u <= -1`` the constants ``-1/lam`` (psi) and ``1/lam^2`` (dpsi) are taken
    out before the deviations are formed (x**lam would otherwise be absorbed by the constant,
    as with 0.1**(-359353) or 2**(-3.35e9)); the group means add them back.
    """
    ts = [lam * u for u in us]
    Wg = mpmath.fsum(ws)
    if lam != 0 and max(ts) <= -1:
        es = [mpmath.exp(t) for t in ts]
        d = [sign * e / lam for e in es]
        dd = [e * (t - 1) / (lam * lam) for e, t in zip(es, ts, strict=True)]
        c, cd = -sign / lam, 1 / (lam * lam)
    else:
        if lam == 0:
            d = [sign * u for u in us]
        else:
            d = [sign * mpmath.expm1(t) / lam for t in ts]
        dd = [u * u * _g(t) for u, t in zip(us, ts, strict=True)]
        c, cd = 0, 0
    md = mpmath.fsum(w * v for w, v in zip(ws, d, strict=True)) / Wg
    mdd = mpmath.fsum(w * v for w, v in zip(ws, dd, strict=True)) / Wg
    dev = [v - md for v in d]
    S = mpmath.fsum(w * e * e for w, e in zip(ws, dev, strict=True))
    C = mpmath.fsum(w * e * (v - mdd) for w, e, v in zip(ws, dev, dd, strict=True))
    return Wg, c + md, cd + mdd, S, C


def _var_cov(prep, lam, dps):
    """(J, W, weighted variance of psi, weighted covariance of psi and dpsi/dl), divisor W."""
    xs, ws, W, us, sgn, J = prep.at(dps)
    if prep.family == "boxcox":
        groups = [_group(ws, us, lam, 1)]
    else:
        groups = []
        pos = [(w, u) for w, u, s in zip(ws, us, sgn, strict=True) if s > 0]
        neg = [(w, u) for w, u, s in zip(ws, us, sgn, strict=True) if s < 0]
        if pos:
            groups.append(_group([w for w, _ in pos], [u for _, u in pos], lam, 1))
        if neg:
            groups.append(_group([w for w, _ in neg], [u for _, u in neg], 2 - lam, -1))
    if len(groups) == 1:
        _, _, _, S, C = groups[0]
        return J, W, S / W, C / W
    (W1, P1, Q1, S1, C1), (W2, P2, Q2, S2, C2) = groups
    f = W1 * W2 / W
    var = (S1 + S2 + f * (P1 - P2) ** 2) / W
    cov = (C1 + C2 + f * (P1 - P2) * (Q1 - Q2)) / W
    return J, W, var, cov


def _nll_key(pairs, family, lmbda, dps):
    prep = _prepared(pairs, family)
    wd = _work_dps(prep, lmbda, dps)
    with mpmath.workdps(wd):
        lam = mpmath.mpf(lmbda)
        J, W, var, _ = _var_cov(prep, lam, wd)
        out = (1 - lam) * J + W / 2 * mpmath.log(var)
    with mpmath.workdps(dps):
        return +out


def _score_key(pairs, family, lmbda, dps):
    prep = _prepared(pairs, family)
    wd = _work_dps(prep, lmbda, dps)
    with mpmath.workdps(wd):
        lam = mpmath.mpf(lmbda)
        J, W, var, cov = _var_cov(prep, lam, wd)
        out = -J + W * cov / var
    with mpmath.workdps(dps):
        return +out


def _as_mpf(lmbda):
    if isinstance(lmbda, mpmath.mpf):
        return lmbda
    return mpmath.mpf(float(lmbda)) if not isinstance(lmbda, str) else mpmath.mpf(lmbda)


def exact_nll(x, lmbda, family, weights=None, dps=60):
    """Profile NLL ``(1-lam) J + W/2 log var_w(psi)`` at ``lmbda`` (float taken exactly)."""
    pairs, family = _key(x, weights, family)
    return _nll_key(pairs, family, _as_mpf(lmbda), dps)


def exact_score(x, lmbda, family, weights=None, dps=60):
    """dNLL/dlambda at ``lmbda``, analytic, in mpmath."""
    pairs, family = _key(x, weights, family)
    return _score_key(pairs, family, _as_mpf(lmbda), dps)


# ---------------------------------------------------------------------------------------------
# the minimiser
# ---------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=512)
def _lambda_key(pairs, family, dps):
    def S(lam):
        return _score_key(pairs, family, lam, dps + 10)

    with mpmath.workdps(dps + 10):
        a, b = mpmath.mpf(0), mpmath.mpf(1)
        fa, fb = S(a), S(b)
        if fa == 0:
            return a
        if fb == 0:
            return b
        step = mpmath.mpf(1)
        if fa > 0:  # score increasing: root < 0
            while True:
                b, fb = a, fa
                a = -step
                fa = S(a)
                if fa <= 0:
                    break
                step *= 2
                if step > mpmath.mpf(2) ** 1100:  # past float64 (|lambda| ~ 1e308)
                    raise RuntimeError("no bracket found")
            if fa == 0:
                return a
        elif fb < 0:  # root > 1
            while True:
                a, fa = b, fb
                b = 1 + step
                fb = S(b)
                if fb >= 0:
                    break
                step *= 2
                if step > mpmath.mpf(2) ** 1100:  # past float64 (|lambda| ~ 1e308)
                    raise RuntimeError("no bracket found")
            if fb == 0:
                return b
        # Illinois regula falsi with bisection safeguard; invariant fa < 0 < fb
        tol = mpmath.mpf(10) ** (-(dps - 15))
        side = 0
        width = b - a
        for it in range(2000):
            if b - a <= tol * max(abs(a), abs(b), mpmath.mpf(1) / 10**20):
                break
            if it % 4 == 3 and (b - a) > width / 4:
                c = (a + b) / 2  # safeguard: force progress
            else:
                c = (a * fb - b * fa) / (fb - fa)
                if not (a < c < b):
                    c = (a + b) / 2
            if it % 4 == 3:
                width = b - a
            fc = S(c)
            if fc == 0:
                return c
            if fc < 0:
                a, fa = c, fc
                if side == -1:
                    fb /= 2
                side = -1
            else:
                b, fb = c, fc
                if side == 1:
                    fa /= 2
                side = 1
        else:  # pragma: no cover
            raise RuntimeError("root finder did not converge")
        return (a + b) / 2


def exact_lambda(x, family, weights=None, dps=60):
    """The exact minimiser of the profile NLL (relative accuracy ~10**-(dps-15))."""
    pairs, family = _key(x, weights, family)
    lam = _lambda_key(pairs, family, dps)
    with mpmath.workdps(dps):
        return +lam


# ---------------------------------------------------------------------------------------------
# cases from the paper
# ---------------------------------------------------------------------------------------------
def table1():
    """The 12 adversarial data sets of Table 1 (Xu & Cormode 2025) with the printed lambda*."""
    rows = [
        ("boxcox", [0.1, 0.1, 0.1, 0.101], -361.15, "double"),
        ("boxcox", [10.0, 10.0, 10.0, 9.9], 357.55, "double"),
        ("yeojohnson", [-10.0, -10.0, -10.0, -9.9], -391.49, "double"),
        ("yeojohnson", [10.0, 10.0, 10.0, 9.9], 393.49, "double"),
        ("boxcox", [0.1, 0.1, 0.1, 0.10001], -35936.9, "quadruple"),
        ("boxcox", [10.0, 10.0, 10.0, 9.999], 35933.3, "quadruple"),
        ("yeojohnson", [-10.0, -10.0, -10.0, -9.999], -39524.8, "quadruple"),
        ("yeojohnson", [10.0, 10.0, 10.0, 9.999], 39526.8, "quadruple"),
        ("boxcox", [0.1, 0.1, 0.1, 0.100001], -359353.0, "octuple"),
        ("boxcox", [10.0, 10.0, 10.0, 9.9999], 359349.0, "octuple"),
        ("yeojohnson", [-10.0, -10.0, -10.0, -9.9999], -395283.0, "octuple"),
        ("yeojohnson", [10.0, 10.0, 10.0, 9.9999], 395285.0, "octuple"),
    ]
    return [
        {"family": f, "data": list(d), "paper_lambda": lam, "precision": p}
        for f, d, lam, p in rows
    ]


def huge_lambda_case():
    """500 copies of 2.0 and 3 of 2.0000001 (Box-Cox lambda* near -3.35e9)."""
    return np.array([2.0] * 500 + [2.0000001] * 3)


def tight_gaussian_case():
    """100 draws of N(1e4, sd 1e-3), seed 0: the paper's Figure 5 data (lambda* near -9.3e4)."""
    return np.random.default_rng(0).normal(1e4, 1e-3, 100)


def house_prices_path():
    """Where the tests read Kaggle's House Prices train.csv; fails (never skips) if absent."""
    path = SHARED_DATA_DIR / "house_prices_train.csv"
    if not path.is_file():
        pytest.fail(
            f"Kaggle's House Prices train.csv is not at {path}. It is not bundled (Kaggle's rules "
            "forbid redistributing it); the tests read it from ../shared/data next to the "
            "repository. Put the competition's train.csv there as house_prices_train.csv "
            "(https://www.kaggle.com/competitions/house-prices-advanced-regression-techniques/data)"
            " or set BOXCOXSTAT_SHARED_DATA to the folder that holds it.",
            pytrace=False,
        )
    return path


def data_file(dataset):
    """The CSV file of a dataset: data/ for the bundled ones, the shared folder otherwise."""
    if dataset == "house_prices_train":
        return house_prices_path()
    return DATA_DIR / f"{dataset}.csv"


def _read_columns(dataset, columns):
    with open(data_file(dataset), newline="") as fh:
        rows = list(csv.DictReader(fh))
    return {c: [r[c] for r in rows] for c in columns}


def _numeric(values):
    return np.array([float(v) for v in values], dtype=float)


def _ordinal(values):
    cats = sorted(set(values))
    code = {c: i for i, c in enumerate(cats)}
    return np.array([float(code[v]) for v in values], dtype=float)


def _families(arr):
    return ("boxcox", "yeojohnson") if bool(np.all(arr > 0)) else ("yeojohnson",)


@functools.lru_cache(maxsize=1)
def _unstable():
    out = []
    specs = [
        ("blood_transfusion", ["Monetary"], ()),
        ("wdbc", ["ID", "area1", "area3"], ()),
        ("ecoli", ["lip", "chg"], ()),
        ("house_prices_train", ["YearRemodAdd", "YrSold", "Street"], ("Street",)),
    ]
    for name, cols, ordinal in specs:
        data = _read_columns(name, cols)
        for c in cols:
            arr = _ordinal(data[c]) if c in ordinal else _numeric(data[c])
            arr.setflags(write=False)
            out.append((name, c, arr, _families(arr)))
    return tuple(out)


def unstable_features():
    """(dataset, feature, values, families) for the paper's nine unstable features (Table 3)."""
    return [(d, f, a.copy(), fam) for d, f, a, fam in _unstable()]
