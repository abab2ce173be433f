"""Where a fit's time goes: preparation, subsample start, full passes, inference.

Run from the repository root: ``python benchmarks/where_time_goes.py [--quick]``. For each
case it prints (best of k wall-clock times) the validation + preparation time, the number of
full-data evaluations the solver took and the time of one score pass and one NLL-only pass,
the fit's total, the inference's passes and time, and the distance from the floor: one
``np.log`` pass over the data plus five score passes (the issue's measure).
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def _best(fn: Callable[[], Any], k: int) -> float:
    best = math.inf
    for _ in range(k):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


class _Counting:
    """A profile that counts its evaluations (and the lambdas in them)."""

    def __init__(self, inner: Any):
        self.inner, self.calls, self.pairs = inner, 0, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def evaluate(self, lmbda: Any, cols: Any, *, score: bool = True) -> Any:
        self.calls += 1
        self.pairs += int(np.size(lmbda))
        return self.inner.evaluate(lmbda, cols, score=score)


def case(label: str, x: np.ndarray, family: str, k: int) -> None:
    import boxcoxstat as bcs
    from boxcoxstat._validation.columns import as_columns
    from boxcoxstat.core import inference as inf
    from boxcoxstat.core.profile import SampleProfile
    from boxcoxstat.core.sample import Sample
    from boxcoxstat.core.solve import _subsample_start, solve

    t_prep = _best(lambda: Sample.from_array(as_columns(x, family=family).values, family), k)
    profile = SampleProfile.from_array(x, family)
    sol = solve(profile)
    lam = sol.lmbda
    t_score = _best(lambda: profile.evaluate(lam, [0]), k)
    t_nll = _best(lambda: profile.evaluate(lam, [0], score=False), k)
    # the Newton polish's pass: score and its derivative, without the series (None: no such
    # pass for this profile, the secant polish's score passes are used)
    has_slope = profile.evaluate_slope(lam, [0], exact=False) is not None
    t_slope = _best(lambda: profile.evaluate_slope(lam, [0], exact=False), k) if has_slope \
        else math.nan
    sub = profile.subsample()
    t_sub = 0.0 if sub is None else _best(
        lambda: _subsample_start(sub, profile.nobs() / sub.nobs()), k)
    t_fit = _best(lambda: bcs.fit(x, family=family), k)
    counted = _Counting(profile)
    inf.standard_inference(counted, lam, sol.nll, slope=sol.slope)
    t_inf = _best(lambda: inf.standard_inference(profile, lam, sol.nll, slope=sol.slope), k)
    base = np.abs(x) + (family != "boxcox")
    buf = np.empty_like(base)
    t_log = _best(lambda: np.log(base, out=buf), k)  # in place, as bench_floor.py
    floor = t_log + 5 * t_score
    print(f"{label}: prep {1e3 * t_prep:.1f} ms; subsample start {1e3 * t_sub:.1f} ms; "
          f"{int(sol.nfev[0])} full passes (score {1e3 * t_score:.1f} ms, NLL only "
          f"{1e3 * t_nll:.1f} ms, score and derivative without the series "
          f"{1e3 * t_slope:.1f} ms); fit {1e3 * t_fit:.1f} ms = {t_fit / t_log:.1f} log "
          f"passes; inference {counted.calls} passes "
          f"({counted.pairs} lambdas) {1e3 * t_inf:.1f} ms = {t_inf / t_fit:.2f}x the fit; "
          f"floor (log pass {1e3 * t_log:.1f} ms + 5 score passes) {1e3 * floor:.1f} ms, "
          f"fit / floor = {t_fit / floor:.2f}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip n = 1e7")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(20250101)
    sizes = [10**6] if args.quick else [10**6, 10**7]
    for n in sizes:
        tag = f"n=1e{round(math.log10(n))}"
        k = 2 if n >= 10**7 else 5
        case(f"Box-Cox {tag}", 1.0 + rng.lognormal(size=n), "boxcox", k)
        case(f"Yeo-Johnson one-signed {tag}", rng.lognormal(0.0, 0.75, size=n), "yeojohnson", k)
        case(f"Yeo-Johnson mixed {tag}",
             np.r_[rng.normal(size=n // 2), rng.exponential(size=n - n // 2)], "yeojohnson", k)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
