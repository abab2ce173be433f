"""Benchmark RewML on the glass spectra (180 x 500, Yeo-Johnson), as in the paper's s. 4.2.

Run from the repository root::

    python benchmarks/bench_robust.py            # best of 5 runs
    python benchmarks/bench_robust.py --repeat 3

Reference: cellWise 2.5.3 ``transfo(X, type="YJ")`` took about 2.1 s on this data on the
machine where the target was set. cellWise cannot be installed here (CRAN is unreachable), so
that figure is a constant, not a measurement of this run; the script prints our time, the
ratio to the 2.1 s reference (target: at least 5x, i.e. below 0.42 s), and -- measured in the
same run on the same machine -- our own ML fit of the same columns, scipy's
``yeojohnson_normmax`` looped over the columns, and RewML fitted one column at a time (to show
what batching the columns buys). It also checks that the batched and one-at-a-time RewML give
the same lambdas.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np
from scipy import stats

import boxcoxstat as bcs
from boxcoxstat.datasets import load
from boxcoxstat.robust.estimators import robust_lambda
from boxcoxstat.robust.registry import parse_spec

CELLWISE_SECONDS = 2.1  # cellWise 2.5.3 transfo() on glass 180 x 500, reference machine


def best_of(fn, repeat):
    times = []
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    glass = load("glass_spectra").iloc[:, 13:513]  # V14..V513: V1..V13 have no robust scale
    x = glass.to_numpy()
    print(f"python {platform.python_version()}, numpy {np.__version__}, "
          f"{os.cpu_count()} cpu(s); data {x.shape}")
    t_rew, r = best_of(lambda: bcs.fit(glass, family="yeojohnson", method="rewml"),
                       args.repeat)
    t_ml, _ = best_of(lambda: bcs.fit(glass, family="yeojohnson"), args.repeat)
    t_sp, _ = best_of(lambda: [stats.yeojohnson_normmax(x[:, j]) for j in range(x.shape[1])],
                      max(1, args.repeat // 2))
    rewml = parse_spec("rewml").options
    t_one, lam_one = best_of(
        lambda: np.array([robust_lambda(x[:, j], "yeojohnson", "rewml", rewml).lmbda[0]
                          for j in range(x.shape[1])]), 1)
    diff = float(np.max(np.abs(lam_one - r.params.to_numpy())))
    rows = [
        ("boxcoxstat RewML, 500 columns batched", t_rew),
        ("boxcoxstat RewML, one column at a time", t_one),
        ("boxcoxstat ML (exact), 500 columns", t_ml),
        ("scipy yeojohnson_normmax, looped", t_sp),
        ("cellWise 2.5.3 transfo (reference figure, not run)", CELLWISE_SECONDS),
    ]
    for name, t in rows:
        print(f"{name:55s} {t:8.3f} s")
    ratio = CELLWISE_SECONDS / t_rew
    print(f"speed-up over the cellWise reference figure: {ratio:.1f}x "
          f"(target >= 5x, i.e. < {CELLWISE_SECONDS / 5:.2f} s): "
          f"{'met' if ratio >= 5 else 'NOT met'}")
    print(f"batched vs one-at-a-time RewML: max |lambda difference| = {diff:.1e}")
    print(f"flagged cells: {int(np.sum(r.weights_matrix == 0))} of {x.size}")


if __name__ == "__main__":
    main()
