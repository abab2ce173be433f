"""``core.resolution``: the round-trip bound, the extremes that decide it, the safe interval.

Reference facts: round trips measured with the package's unchecked forward and inverse
transforms on random data and powers (the bound must cover them), and the interval's ends
checked in mpmath against the conditions that define them.
"""

from __future__ import annotations

from dataclasses import replace

import mpmath
import numpy as np
import pytest

import boxcoxstat as bcs
from boxcoxstat.core.resolution import (
    SAFE_RTOL,
    SAFE_YMAX,
    loses_resolution,
    measure_loss,
    round_trip_bound,
    safe_interval,
    safe_powers,
)
from boxcoxstat.families import forward_unchecked, inverse_unchecked

EPS = np.finfo(float).eps


def _random_columns(family: str, trials: int, seed: int):
    """Columns spread over 60 orders of magnitude (Yeo-Johnson: of both signs) with powers
    from -1000 to 1000."""
    rng = np.random.default_rng(seed)
    for _ in range(trials):
        lam = rng.choice([1.0, -1.0]) * 10 ** rng.uniform(-3, 3)
        if family == "boxcox":
            x = np.exp(rng.uniform(-60, 60)) * (1 + rng.uniform(-0.5, 0.5, 100))
        else:
            x = rng.choice([1.0, -1.0], 100) * np.exp(rng.uniform(-30, 30)) * rng.uniform(
                0, 2, 100)
        yield lam, x


def _measured(x, lam, family):
    with np.errstate(all="ignore"):
        y = forward_unchecked(x, lam, family)
        back = inverse_unchecked(y, lam, family)
        err = np.abs(back - x) / np.abs(x)
    return y, np.where(np.isfinite(err), err, np.inf)


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_bound_covers_the_measured_round_trip(family):
    worst = 0.0
    for lam, x in _random_columns(family, 600, 1):
        y, err = _measured(x, lam, family)
        bound = round_trip_bound(x, lam, family)
        # where the bound is small the error is a first-order effect it must cover; beyond
        # 1e-3 the values are lost anyway (and an output may have no inverse at all)
        ok = np.isfinite(y) & (bound < 1e-3) & (x != 0)
        assert np.all(err[ok] <= bound[ok]), (lam, x[ok][np.argmax(err[ok] / bound[ok])])
        if ok.any():
            worst = max(worst, float(np.max(err[ok] / bound[ok])))
    assert worst > 0.2  # the bound is not loose by orders of magnitude either


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_the_extremes_decide(family):
    """The largest bound of a column is at its smallest or largest value (monotone in x on
    each side), so the check needs only the two."""
    for lam, x in _random_columns(family, 300, 2):
        b = round_trip_bound(x, lam, family)
        ends = round_trip_bound(np.array([x.min(), x.max()]), lam, family)
        big = np.max(b)
        assert big <= np.max(ends) * (1 + 1e-9) or big <= 1e-13  # 1e-13: eps-level noise in
        # |log b| near the fixed point, far below any threshold


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_a_resolved_power_keeps_values_apart_beyond_2e8(family):
    """Where loses_resolution is False the measured round trip is within 1e-8, and values
    sharing an output agree to 2e-8 relative (each maps back within 1e-8 of the output's
    inverse)."""
    checked = 0
    for lam, x in _random_columns(family, 300, 3):
        if loses_resolution([x.min()], [x.max()], [lam], (family,))[0]:
            continue
        checked += 1
        u = np.unique(x)
        y, err = _measured(u, lam, family)
        assert np.all(err <= 1e-8)
        same = np.flatnonzero(~(y[1:] > y[:-1]))
        assert np.all(np.abs(u[same + 1] - u[same]) <= 2e-8 * np.abs(u[same + 1]))
    assert checked > 30


def test_lost_columns_are_measured_exactly():
    x = np.array([4.61, 4.60, 4.60, 4.62, 4.61])
    loss = measure_loss(x, -143.0, "boxcox")
    y = forward_unchecked(np.unique(x), -143.0, "boxcox")
    assert loss.n_distinct == 3 and loss.n_outputs == np.unique(y).size
    assert loss.n_shared == int(np.sum(np.diff(y) <= 0))
    assert loss.digits == pytest.approx(-np.log10(0.02 / 4.62))
    assert not loses_resolution([np.nan], [np.nan], [-143.0], ("boxcox",))[0]  # no values


def test_safe_interval_ends_are_where_the_conditions_bind():
    a, b = safe_interval([4.6], [4.62], ("boxcox",))
    with mpmath.workdps(50):
        x = mpmath.mpf(4.62)
        lam = mpmath.mpf(float(a[0]))
        g = abs(1 - x ** (-lam)) / abs(lam)
        bound = 2 * mpmath.mpf(EPS) * (g + mpmath.log(x) + 1)
        assert float(bound / mpmath.mpf(SAFE_RTOL)) == pytest.approx(1.0, rel=1e-9)
        psi = (x ** mpmath.mpf(float(b[0])) - 1) / mpmath.mpf(float(b[0]))
        assert float(mpmath.log10(psi)) == pytest.approx(np.log10(SAFE_YMAX), rel=1e-12)
    # ymax tightens the size condition
    _, b2 = safe_interval([4.6], [4.62], ("boxcox",), ymax=1e10)
    assert b2[0] < b[0]


def test_yeojohnson_with_huge_values_of_both_signs_has_no_safe_power():
    a, b = safe_interval([-1e200], [1e200], ("yeojohnson",))
    assert np.isnan(a[0]) and np.isnan(b[0])
    # lambda = 5 sends 1e200 beyond float64: lost, and no power is safe
    assert np.isnan(safe_powers([5.0], [-1e200], [1e200], ("yeojohnson",))[0])
    # a power that keeps them (finite, round trip within 1e-8) is its own safe power, even
    # beyond 1e100: the margins apply only to a power chosen in place of the MLE
    assert safe_powers([1.0], [-1e200], [1e200], ("yeojohnson",))[0] == 1.0
    r = bcs.fit(np.array([-1e200, -3e199, 2.0, 5e199, 1e200]), family="yeojohnson")
    assert r.safe == r.lmbda
    with pytest.raises(bcs.BoxCoxError, match="no power keeps"):  # where none is safe
        replace(r, _safe_values=np.array([np.nan])).at("safe")


def test_the_log_is_always_safe_for_box_cox():
    """Box-Cox at 0 keeps every positive float64: the interval always holds it."""
    lo = np.array([5e-324, 1e-300, 1.0, 0.5])
    hi = np.array([1.7e308, 1e-299, 1.0 + 1e-15, 1e300])
    a, b = safe_interval(lo, hi, ("boxcox",) * 4)
    assert np.all(a <= 0) and np.all(b >= 0)


def test_few_columns_and_many_columns_decide_alike():
    """loses_resolution works on Python floats for up to 4 columns and on arrays beyond:
    one decision either way (boundary cases included: x = 1, x = 0, overflow)."""
    rng = np.random.default_rng(5)
    fams = tuple(rng.choice(["boxcox", "yeojohnson"], 400))
    lo = np.exp(rng.uniform(-60, 60, 400))
    hi = lo * np.exp(rng.uniform(0, 10, 400))
    lo = np.where(np.array(fams) == "yeojohnson", -lo * rng.integers(0, 2, 400), lo)
    lo[:4], hi[:4] = [1.0, 0.0, 1e-300, 2.0], [1.0, 0.0, 1e300, 2.0]
    lam = rng.choice([1.0, -1.0], 400) * 10 ** rng.uniform(-3, 3, 400)
    many = loses_resolution(lo, hi, lam, fams)
    few = [loses_resolution(lo[j : j + 1], hi[j : j + 1], lam[j : j + 1], fams[j : j + 1])[0]
           for j in range(400)]
    np.testing.assert_array_equal(many, few)
    assert 50 < many.sum() < 350  # both outcomes are exercised


# --------------------------------------------------------------- every door warns (issue 27)
_SK29595 = np.array([4.61, 4.60, 4.60, 4.62, 4.61])  # scikit-learn #29595's data


def _collapses(x, lam: float) -> bool:
    """Independently of the package: Box-Cox at ``lam`` in plain float64 maps distinct values
    to one output, or its inverse misses a value by more than 1e-8 relative."""
    x = np.unique(np.asarray(x, dtype=np.float64))
    with np.errstate(all="ignore"):
        y = (x ** lam - 1.0) / lam
        back = (1.0 + lam * y) ** (1.0 / lam)
    return bool(np.unique(y).size < x.size
                or not np.all(np.abs(back - x) <= 1e-8 * x))


def _doors():
    import dask.array as da
    import pandas as pd
    from sklearn.linear_model import LinearRegression

    from boxcoxstat.sklearn import BoxCoxRegressor

    x = _SK29595
    frame = pd.DataFrame({"y": x, "z": x[::-1] + 0.001 * np.arange(5)})
    return {
        "fit_joint": (lambda: bcs.fit_joint(frame), lambda r: r.lmbda["y"], "y"),
        "bcnpower": (lambda: bcs.fit(frame["y"], family="bcnpower"),
                     lambda r: r.lmbda, "y"),
        "BoxCoxRegressor": (lambda: BoxCoxRegressor(LinearRegression()).fit(frame[["z"]],
                                                                            frame["y"]),
                            lambda r: r.lmbda_, "y"),
        "dask": (lambda: bcs.fit(da.from_array(np.r_[x, x].reshape(-1, 1), chunks=5)),
                 lambda r: r.lmbda, "x0"),
        "federated": (lambda: bcs.federated.fit([x[:3], x[3:]]), lambda r: r.lmbda, None),
    }


@pytest.mark.parametrize("door", ["fit_joint", "bcnpower", "BoxCoxRegressor", "dask",
                                  "federated"])
def test_every_door_warns_when_the_power_loses_the_resolution_gh27(door):
    """bcs.fit, lm and PowerTransformer warned; fit_joint, bcnPower, BoxCoxRegressor, Dask and
    federated fits returned such powers silently. Each warns now, naming the column, and the
    power it warns about does collapse the data (checked in plain float64 here)."""
    make, lam_of, name = _doors()[door]
    with pytest.warns(bcs.ResolutionWarning, match="loses the data's resolution") as rec:
        r = make()
    lam = float(np.asarray(lam_of(r), dtype=np.float64).reshape(-1)[0])
    if door == "bcnpower":  # Box-Cox of bcnPower's positive base
        g = float(np.asarray(r.gamma).reshape(-1)[0])
        base = (_SK29595 + np.sqrt(_SK29595 ** 2 + g ** 2)) / 2.0
        assert _collapses(base, lam)
    else:
        assert _collapses(_SK29595, lam)
    if name is not None:
        assert any(f"'{name}'" in str(w.message) for w in rec)
    assert str(rec[0].filename) == __file__  # points at the caller's line
