"""``guerrero(bounds=(lo, hi))`` = forecast's ``BoxCox.lambda(lower=lo, upper=hi)``
(tests/reference/forecast_bounds_reference.R and its JSON)."""

import json
from pathlib import Path

import numpy as np
import pytest

import boxcoxstat as bcs

REF = json.loads((Path(__file__).resolve().parents[1] / "reference"
                  / "forecast_bounds_reference.json").read_text())["cases"]


@pytest.mark.parametrize("case", sorted(REF))
@pytest.mark.parametrize("method", ["guerrero", "loglik"])
def test_guerrero_bounds_equal_forecast(case, method):
    c = REF[case]
    x = np.array(c["x"])
    r = bcs.guerrero(x, period=int(c["frequency"]), method=method,
                     bounds=(c["lower"], c["upper"]))
    assert c["lower"] <= r.lmbda <= c["upper"]
    # the same objective optimised by R's optimize(tol = 1e-10): lambda to about 1e-8 (Brent
    # on function values resolves a flat minimum to ~ sqrt(eps))
    assert r.lmbda == pytest.approx(c["tight"][method], abs=5e-8)
    # forecast itself: optimize's default tol (eps^0.25 ~ 1.2e-4) for Guerrero, a grid of step
    # 0.05 for loglik
    tol = 2e-4 if method == "guerrero" else 0.026
    assert r.lmbda == pytest.approx(c["forecast"][method], abs=tol)
    same = bcs.guerrero(x, period=int(c["frequency"]), method=method, lower=c["lower"],
                        upper=c["upper"])
    assert same.lmbda == r.lmbda


def test_bound_active_is_reported():
    c = REF["airpassengers_0_1"]
    r = bcs.guerrero(np.array(c["x"]), period=12, bounds=(0, 1))
    assert r.lmbda == 0.0 and r.at_bound
    assert "at a bound" in str(r.summary())


@pytest.mark.parametrize("kw, message", [
    ({"bounds": (1, 0)}, "lower end must be below"),
    ({"bounds": (0, np.inf)}, "finite lower < upper"),
    ({"bounds": (0, 1), "lower": 0.0}, "not both"),
    ({"bounds": (np.nan, 1)}, "not NaN"),
])
def test_bad_bounds(kw, message):
    x = np.array(REF["airpassengers_0_1"]["x"])
    with pytest.raises(bcs.BoxCoxError, match=message):
        bcs.guerrero(x, period=12, **kw)
