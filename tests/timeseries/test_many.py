"""bcs.guerrero on many series (issue 31 item 3) against forecast 8.20
(tests/reference/forecast_many_reference.R: 40 monthly series of 120 values, 6 quarterly of 30).

"Tight" is forecast's own objective solved tightly in R: ``guer.cv`` by ``optimize(tol =
1e-12)``, and the ``loglik`` objective (``tslm`` trend + season) by ``uniroot(tol = 1e-14)`` on
its analytic derivative. Tolerances: Guerrero's lambda 1e-7 (the issue's bar; R's optimize
resolves the minimum of a criterion to about 4e-8), loglik's 1e-10 (both sides solve the score
to about 1e-13; we agree to 5e-13), the criterion 1e-8 relative (flat at the minimum, R stops
a few 1e-8 away in lambda), one series against the same series alone 1e-9 (the same criterion,
a different grid of evaluations: both to 1e-12 of the root).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs

REF = json.loads((Path(__file__).parents[1] / "reference" / "forecast_many_reference.json")
                 .read_text())
PERIOD = {"monthly": 12, "quarterly": 4}
START = {"monthly": "2010-01", "quarterly": "2000Q1"}
FREQ = {"monthly": "M", "quarterly": "Q"}


def _wide(kind: str) -> pd.DataFrame:
    cases = REF[kind]
    values = np.column_stack([c["x"] for c in cases])
    index = pd.period_range(START[kind], periods=values.shape[0], freq=FREQ[kind])
    return pd.DataFrame(values, index=index, columns=[f"{kind}{i}" for i in range(len(cases))])


def _tight(kind: str, key: str) -> np.ndarray:
    return np.array([c[key] for c in REF[kind]])


@pytest.mark.parametrize("kind", list(PERIOD))
def test_guerrero_of_a_frame_matches_forecast_tightly(kind):
    frame = _wide(kind)
    r = bcs.guerrero(frame)  # the period from the PeriodIndex
    assert isinstance(r, bcs.GuerreroFrameResult)
    assert r.period == PERIOD[kind]
    assert list(r.lmbda.index) == list(frame.columns)
    np.testing.assert_allclose(r.lmbda.to_numpy(), _tight(kind, "guerrero"), rtol=0, atol=1e-7)
    np.testing.assert_allclose(r.criterion.to_numpy(), _tight(kind, "guerrero_cv"), rtol=1e-8)
    # forecast's defaults (optimize's tolerance about 1e-4)
    np.testing.assert_allclose(r.lmbda.to_numpy(), _tight(kind, "guerrero_forecast"), atol=2e-4)


@pytest.mark.parametrize("kind", list(PERIOD))
def test_loglik_of_a_frame_matches_forecast_tightly(kind):
    r = bcs.guerrero(_wide(kind), method="loglik")
    np.testing.assert_allclose(r.lmbda.to_numpy(), _tight(kind, "loglik"), rtol=0, atol=5e-13)
    # forecast's own answer is the best of its grid of step 0.05
    assert np.all(np.abs(r.lmbda.to_numpy() - _tight(kind, "loglik_forecast")) <= 0.025 + 1e-12)


@pytest.mark.parametrize("method", ["guerrero", "loglik"])
def test_every_series_of_a_frame_is_the_series_alone(method):
    frame = _wide("monthly")
    many = bcs.guerrero(frame, method=method)
    for name in frame.columns[::7]:
        one = bcs.guerrero(frame[name], method=method)
        assert many.lmbda[name] == pytest.approx(one.lmbda, abs=1e-9)
        assert many.criterion[name] == pytest.approx(one.criterion, rel=1e-9)
    table = many.to_frame()
    assert table.loc[frame.columns[0], "n"] == 120 and table["n_dropped"].eq(0).all()


def test_long_data_of_different_lengths_and_shuffled_rows():
    frame = _wide("monthly").iloc[:, :6]
    frame.index = frame.index.to_timestamp()
    long = frame.melt(ignore_index=False, var_name="store", value_name="sales")
    long = long.reset_index(names="month")
    # store 2 starts 17 months later, store 4 ends 30 months earlier: three lengths
    long = long[~((long.store == "monthly2") & (long.month < "2011-06"))]
    long = long[~((long.store == "monthly4") & (long.month >= "2017-07"))]
    shuffled = long.sample(frac=1.0, random_state=3)
    before = shuffled.copy()
    for method in ("guerrero", "loglik"):
        r = bcs.guerrero(shuffled, id="store", time="month", method=method)
        assert r.period == 12  # from the months' frequency
        assert list(r.names) == list(pd.unique(shuffled.store))
        for name in r.names:
            series = long[long.store == name].set_index("month")["sales"]
            alone = bcs.guerrero(series.to_numpy(), 12, method=method)
            assert r.lmbda[name] == pytest.approx(alone.lmbda, abs=1e-9)
            assert r.to_frame().loc[name, "n"] == series.size
        if method == "guerrero":
            assert r.to_frame().loc["monthly2", "n_dropped"] == 103 % 12
    pd.testing.assert_frame_equal(shuffled, before)  # the caller's data untouched


def test_frame_result_surface_and_json():
    frame = _wide("quarterly")
    r = bcs.guerrero(frame)
    back = bcs.GuerreroFrameResult.from_json(r.to_json())
    pd.testing.assert_frame_equal(back.to_frame(), r.to_frame())
    assert "6 time series" in str(r.summary()) and "6 series" in repr(r)
    out = r.transform(frame)
    lam = r.lmbda["quarterly0"]
    np.testing.assert_allclose(out["quarterly0"], np.expm1(lam * np.log(frame["quarterly0"]))
                               / lam, rtol=1e-13)
    with pytest.raises(bcs.BoxCoxError, match="not estimated with a likelihood"):
        r.conf_int()


def test_bad_frames_get_errors_naming_the_series():
    frame = _wide("quarterly")
    holed = frame.copy()
    holed.iloc[5, 2] = np.nan
    with pytest.raises(bcs.BoxCoxError, match="'quarterly2' have missing values.*long data"):
        bcs.guerrero(holed)
    assert np.isnan(holed.iloc[5, 2])
    neg = frame.copy()
    neg.iloc[0, 4] = -1.0
    with pytest.raises(bcs.BoxCoxError, match="'quarterly4'.*not positive"):
        bcs.guerrero(neg)
    flat = frame.copy()
    flat.iloc[:, 1] = 3.0
    with pytest.raises(bcs.BoxCoxError, match="'quarterly1' are constant"):
        bcs.guerrero(flat)
    steps = frame.copy()
    steps.iloc[:, 3] = np.repeat(np.arange(1.0, 9.0), 4)[2:]  # every whole year constant
    with pytest.raises(bcs.BoxCoxError, match="'quarterly3': fewer than two.*vary"):
        bcs.guerrero(steps)
    with pytest.raises(bcs.BoxCoxError, match="not more than two periods"):
        bcs.guerrero(frame.iloc[:8])
    long = frame.reset_index(names="quarter").melt(id_vars="quarter", var_name="id")
    with pytest.raises(bcs.BoxCoxError, match="needs both id="):
        bcs.guerrero(long, id="id")
    with pytest.raises(bcs.BoxCoxError, match="time='when' is not a column"):
        bcs.guerrero(long, id="id", time="when")
    with pytest.raises(bcs.BoxCoxError, match="two rows for one time"):
        bcs.guerrero(pd.concat([long, long.iloc[:1]]), id="id", time="quarter")
    with pytest.raises(bcs.BoxCoxError, match="name the values with value="):
        bcs.guerrero(long.assign(other=1.0), id="id", time="quarter")
    assert bcs.guerrero(long.assign(other=1.0), id="id", time="quarter",
                        value="value").period == 4


# --- method="loglik" on many series: the Taylor model at lambda = 0 (issue 31) -------------

def _near_log_series(s: int, seed: int = 31) -> np.ndarray:
    """benchmarks/bench_floor.py's monthly series (multiplicative: lambda near 0), 120 x s."""
    rng = np.random.default_rng(seed)
    t = np.arange(120)[:, None]
    level = np.exp(rng.uniform(1, 5, (1, s)) + rng.uniform(0, 0.03, (1, s)) * t)
    wave = 1 + rng.uniform(0.05, 0.3, (1, s)) * np.sin(2 * np.pi * t / 12
                                                        + rng.uniform(0, 6, (1, s)))
    return level * wave * np.exp(rng.normal(0, 0.05, (120, s)))


def _mp_loglik_root(x: np.ndarray, period: int, guess: float) -> float:
    """forecast's loglik score (tslm trend + season) solved in mpmath at 40 digits: the
    residual projection from the normal equations of the integer design (exact), the score
    ``n <M phi, chi> / |M phi|^2`` with ``phi = expm1(lambda v)/lambda`` of the log-ratios to
    the geometric mean; secant from ``guess``."""
    import mpmath as mp

    with mp.workdps(40):
        n = x.size
        cols = [[mp.mpf(1)] * n, [mp.mpf(i + 1) for i in range(n)]]
        cols += [[mp.mpf(1 if i % period == k else 0) for i in range(n)]
                 for k in range(1, period)]
        d = mp.matrix(n, len(cols))
        for j, c in enumerate(cols):
            for i in range(n):
                d[i, j] = c[i]
        dtd = d.T * d
        logs = [mp.log(mp.mpf(float(xi))) for xi in x]
        mean = mp.fsum(logs) / n
        v = [lg - mean for lg in logs]

        def score(lam):
            e = [mp.exp(lam * vi) for vi in v]
            phi = mp.matrix([(ei - 1) / lam for ei in e])
            chi = [(lam * vi * ei - (ei - 1)) / lam**2 for vi, ei in zip(v, e, strict=True)]
            r = phi - d * mp.lu_solve(dtd, d.T * phi)
            return n * mp.fsum(r[i] * chi[i] for i in range(n)) / mp.fsum(ri**2 for ri in r)

        return float(mp.findroot(score, (mp.mpf(guess) - mp.mpf("1e-6"),
                                          mp.mpf(guess) + mp.mpf("1e-6")),
                                 solver="secant", tol=mp.mpf("1e-35")))


def test_loglik_near_log_series_are_solved_on_the_model_in_at_most_three_rounds():
    from boxcoxstat.timeseries.guerrero import loglik_lambdas
    from boxcoxstat.timeseries.model import _seasonal_trend

    x = _near_log_series(400)
    info: dict = {}
    lam, llf, ok = loglik_lambdas(x, _seasonal_trend(120, 12), -1.0, 2.0, info)
    assert ok.all() and np.isfinite(llf).all()
    # the full score (expm1 per value) is evaluated for the few series the model cannot
    # prove: before, every series took about 12 rounds (both ends, then Chandrupatla)
    assert info["model"] >= 0.9 * x.shape[1]
    assert info["rounds"] <= 3
    assert info["evaluations"] <= 0.4 * x.shape[1]
    frame = pd.DataFrame(x, columns=[f"s{j}" for j in range(x.shape[1])])
    many = bcs.guerrero(frame, 12, method="loglik")
    np.testing.assert_array_equal(many.lmbda.to_numpy(), lam)
    # each series alone (the one-series solver; 1e-11 its tolerance), and with bounds that
    # put some lambdas at an end, proven there by the model's score
    for lower, upper in ((-1.0, 2.0), (-0.02, 0.03)):
        r = bcs.guerrero(frame, 12, method="loglik", lower=lower, upper=upper)
        got = r.lmbda.to_numpy()
        ends = np.flatnonzero((got == lower) | (got == upper))
        assert (ends.size >= 10) == (lower > -1)
        for j in np.r_[ends[:4], np.arange(0, 400, 57)]:
            alone = bcs.guerrero(x[:, j], 12, method="loglik", lower=lower, upper=upper)
            assert got[j] == pytest.approx(alone.lmbda, abs=1e-11)
            assert r.criterion.iloc[j] == pytest.approx(alone.criterion, rel=1e-12)


def test_loglik_model_roots_match_mpmath():
    """Series proven by the model, and the quarterly case where R's uniroot stops 3.4e-13
    away: every lambda within 2e-14 of the score's root in 40-digit arithmetic."""
    from boxcoxstat.timeseries.guerrero import loglik_lambdas
    from boxcoxstat.timeseries.model import _seasonal_trend

    x = _near_log_series(6, seed=5)
    info: dict = {}
    lam, _, _ = loglik_lambdas(x, _seasonal_trend(120, 12), -1.0, 2.0, info)
    assert info["model"] == 6
    quarter = np.array(REF["quarterly"][1]["x"])
    lq = bcs.guerrero(_wide("quarterly"), method="loglik").lmbda.to_numpy()[1]
    for series, period, ours in [(x[:, j], 12, lam[j]) for j in range(6)] + [(quarter, 4, lq)]:
        assert abs(ours - _mp_loglik_root(series, period, ours)) <= 2e-14  # a few ulps of 1


def test_loglik_score_rounds_on_forecasts_own_cases():
    """R's monthly cases (lambda near 1, log-ranges up to 3: mostly beyond the model at 0)
    are proven on expansions at the model's roots, a few by the score from there: at most 2
    score evaluations per series (before: about 12, both ends and Chandrupatla)."""
    from boxcoxstat.timeseries.guerrero import loglik_lambdas
    from boxcoxstat.timeseries.model import _seasonal_trend

    x = _wide("monthly").to_numpy()
    info: dict = {}
    lam, _, _ = loglik_lambdas(x, _seasonal_trend(120, 12), -1.0, 2.0, info)
    np.testing.assert_allclose(lam, _tight("monthly", "loglik"), rtol=0, atol=5e-13)
    assert info["evaluations"] <= 2 * x.shape[1]


def test_loglik_additive_series_are_solved_on_expansions_at_their_starts():
    """Additive series (lambda near 1, |lambda| max|v| about 1-1.5, beyond the model at 0):
    an expansion at each start proves them, with no score round; each lambda the series'
    own (1e-11) and, for two, within 2e-14 of the 40-digit root."""
    from boxcoxstat.timeseries.guerrero import loglik_lambdas
    from boxcoxstat.timeseries.model import _seasonal_trend

    rng = np.random.default_rng(1)
    t = np.arange(120)[:, None]
    x = ((50 + rng.uniform(0.5, 3, (1, 200)) * t) * (1 + 0.1 * np.sin(2 * np.pi * t / 12))
         + rng.normal(0, 3, (120, 200)))
    info: dict = {}
    lam, llf, _ = loglik_lambdas(x, _seasonal_trend(120, 12), -1.0, 2.0, info)
    assert info["model"] == 0 and info["centred"] >= 150
    assert info["evaluations"] <= 0.5 * x.shape[1]  # before: about 12 per series
    for j in range(0, 200, 23):
        alone = bcs.guerrero(x[:, j], 12, method="loglik")
        assert lam[j] == pytest.approx(alone.lmbda, abs=1e-11)
        assert llf[j] == pytest.approx(alone.criterion, rel=1e-12)
    for j in (0, 1):
        assert abs(lam[j] - _mp_loglik_root(x[:, j], 12, lam[j])) <= 2e-14


def test_loglik_long_series_in_row_blocks():
    """Series longer than the model's block (2^15 values): the power sums and projections
    added up over row blocks; each lambda the series' own (1e-11: the one-series solver)."""
    rng = np.random.default_rng(8)
    t = np.arange(40_000)
    x = np.exp(rng.normal(0, 0.3, (t.size, 2)) + np.outer(t, [1e-5, 3e-5])
               + 0.1 * np.sin(2 * np.pi * t / 7)[:, None])
    r = bcs.guerrero(pd.DataFrame(x, columns=["a", "b"]), 7, method="loglik")
    for j, name in enumerate("ab"):
        alone = bcs.guerrero(x[:, j], 7, method="loglik")
        assert r.lmbda[name] == pytest.approx(alone.lmbda, abs=1e-11)
        assert r.criterion[name] == pytest.approx(alone.criterion, rel=1e-12)
