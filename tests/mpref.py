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
import re
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent
DATA_DIR = REPO / "data"
# Data that may not be redistributed (Kaggle's House Prices train.csv, UCI's adult, bank and
# credit files the downstream vignette reads) are not in data/. Development machines and CI
# keep them in ../shared/data next to the repository; the environment variable
# BOXCOXSTAT_SHARED_DATA names another folder. A test that needs one skips when it is absent
# (a fresh clone runs every other test), and fails instead when BOXCOXSTAT_REQUIRE_DATA is set
# (CI: ``.ci/run`` sets it, so a missing file cannot pass unnoticed); see tests/conftest.py.
SHARED_DATA_DIR = Path(os.environ.get("BOXCOXSTAT_SHARED_DATA") or REPO.parent / "shared" / "data")
REQUIRE_DATA_ENV = "BOXCOXSTAT_REQUIRE_DATA"
NOT_BUNDLED = {  # file in the shared folder: what it is and where to get it
    "house_prices_train.csv": (
        "Kaggle's House Prices train.csv; Kaggle's competition rules forbid redistributing it. "
        "Download train.csv from https://www.kaggle.com/competitions/"
        "house-prices-advanced-regression-techniques/data and save it as "
        "house_prices_train.csv"),
    "adult.csv": (
        "UCI Adult, https://archive.ics.uci.edu/dataset/2/adult: adult.data, the training "
        "split, as a CSV with a header row of UCI's column names (age, workclass, fnlwgt, ...,"
        " income)"),
    "bank_full.csv": (
        "UCI Bank Marketing, https://archive.ics.uci.edu/dataset/222/bank+marketing: "
        "bank-full.csv rewritten comma-separated"),
    "credit_default.csv": (
        "UCI Default of Credit Card Clients, https://archive.ics.uci.edu/dataset/350: the "
        "data as a CSV whose header is the .xls file's second header row (ID, LIMIT_BAL, ..., "
        "default payment next month)"),
}

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


def data_required():
    """Whether a missing shared data file fails a test (``BOXCOXSTAT_REQUIRE_DATA`` set to
    anything but empty or 0) instead of skipping it."""
    return os.environ.get(REQUIRE_DATA_ENV, "").strip() not in ("", "0")


def missing_data_message(filename):
    """What a test that needs ``filename`` says when it is absent: the file, what it is and
    where to put it."""
    path = SHARED_DATA_DIR / filename
    return (f"needs {filename}, which boxcoxstat does not bundle ({NOT_BUNDLED[filename]}). "
            f"It is not at {path}: put it in ../shared/data next to the repository, or set "
            "BOXCOXSTAT_SHARED_DATA to the folder that holds it.")


def require_data(filename):
    """The path of a shared (not bundled) data file; skips the calling test when the file is
    absent, or fails it when ``BOXCOXSTAT_REQUIRE_DATA`` is set (CI)."""
    if filename not in NOT_BUNDLED:
        raise ValueError(f"{filename!r} is not a shared data file; bundled data are in data/")
    path = SHARED_DATA_DIR / filename
    if path.is_file():
        return path
    message = missing_data_message(filename)
    if data_required():
        pytest.fail(f"{message} ({REQUIRE_DATA_ENV} is set, so missing data fail)",
                    pytrace=False)
    pytest.skip(message)


def house_prices_path():
    """Where the tests read Kaggle's House Prices train.csv (skips or fails if absent, see
    :func:`require_data`)."""
    return require_data("house_prices_train.csv")


def data_file(dataset):
    """The CSV file of a dataset: data/ for the bundled ones, the shared folder otherwise."""
    if f"{dataset}.csv" in NOT_BUNDLED:
        return require_data(f"{dataset}.csv")
    return DATA_DIR / f"{dataset}.csv"


def data_marks(dataset):
    """Marks for a parametrized case built on ``dataset``: ``needs_data`` for one that is not
    bundled, so the case skips (or fails, in CI) at set-up when the file is absent, while
    collection never reads it."""
    file = f"{dataset}.csv"
    return [pytest.mark.needs_data(file)] if file in NOT_BUNDLED else []


_VIGNETTE_DATA = re.compile(r"^#\s+data_not_bundled:\s*\[([^\]]*)\]\s*$", re.M)


def vignette_data(script):
    """The shared (not bundled) files a vignette reads, as its jupytext header declares them
    (``data_not_bundled: [file, ...]``); the docs build reads the same line."""
    text = (REPO / "vignettes" / script).read_text(encoding="utf-8")
    m = _VIGNETTE_DATA.search(text)
    return [] if m is None else [f.strip() for f in m.group(1).split(",") if f.strip()]


def vignette_needs(script):
    """The ``needs_data`` mark of a test that runs vignette ``script`` (a decorator, or a
    module's ``pytestmark``)."""
    return pytest.mark.needs_data(*vignette_data(script))


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


# the paper's nine unstable features (Table 3): dataset, feature, ordinal-encoded, families
# (Box-Cox too where every value is positive; fixed here so that collection needs no data)
_UNSTABLE = (
    ("blood_transfusion", "Monetary", False, ("boxcox", "yeojohnson")),
    ("wdbc", "ID", False, ("boxcox", "yeojohnson")),
    ("wdbc", "area1", False, ("boxcox", "yeojohnson")),
    ("wdbc", "area3", False, ("boxcox", "yeojohnson")),
    ("ecoli", "lip", False, ("boxcox", "yeojohnson")),
    ("ecoli", "chg", False, ("boxcox", "yeojohnson")),
    ("house_prices_train", "YearRemodAdd", False, ("boxcox", "yeojohnson")),
    ("house_prices_train", "YrSold", False, ("boxcox", "yeojohnson")),
    ("house_prices_train", "Street", True, ("yeojohnson",)),
)


@functools.cache
def _feature(dataset, feature):
    ordinal = next(o for d, f, o, _ in _UNSTABLE if (d, f) == (dataset, feature))
    col = _read_columns(dataset, [feature])[feature]
    arr = _ordinal(col) if ordinal else _numeric(col)
    arr.setflags(write=False)
    return arr


def unstable_feature(dataset, feature):
    """The values of one unstable feature (a fresh array); skips or fails the calling test
    when its dataset is not bundled and absent (:func:`require_data`)."""
    arr = _feature(dataset, feature)
    fams = next(fa for d, f, _, fa in _UNSTABLE if (d, f) == (dataset, feature))
    assert _families(arr) == fams, f"{dataset}.{feature}: families {fams} do not fit the data"
    return arr.copy()


def unstable_features():
    """(dataset, feature, values, families) for the paper's nine unstable features (Table 3).

    ``values`` is ``None`` for a feature whose dataset is not bundled and whose file is
    absent: parametrize with ``marks=data_marks(dataset)``, which skips such a case (or fails
    it, in CI) before its body runs.
    """
    out = []
    for d, f, _, fams in _UNSTABLE:
        available = f"{d}.csv" not in NOT_BUNDLED or (SHARED_DATA_DIR / f"{d}.csv").is_file()
        out.append((d, f, unstable_feature(d, f) if available else None, fams))
    return out
