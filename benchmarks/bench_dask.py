"""Fit lambda on 1e8 values that never exist in memory at once: Dask, partition by partition.

Run from the repository root (``pip install -e ".[dask]"``)::

    python benchmarks/bench_dask.py                    # n = 1e8, chunks of 1e6, threads
    python benchmarks/bench_dask.py --n 2e7            # smaller
    python benchmarks/bench_dask.py --n 2e6 --check    # also fit in memory and compare
    python benchmarks/bench_dask.py --scheduler distributed --workers 2

The data are generated inside each partition (``1 + lognormal(0, 0.5)`` for Box-Cox,
``lognormal(0, 0.5) - 1`` for Yeo-Johnson, seeded by partition number), so every graph
execution regenerates them and nothing holds the whole column. The script prints the wall
time, the graph executions (full passes and subsample passes), lambda with its 95% profile
interval, and the process's peak resident memory (``ru_maxrss``) against the data size.
With ``--scheduler distributed`` the workers are threads of this process
(``processes=False``), so the peak covers them too.
"""

from __future__ import annotations

import argparse
import platform
import resource
import sys
import time

import numpy as np


def _rss_mb() -> float:
    """Peak resident set size of this process so far, in MB (Linux reports KB)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024.0 if sys.platform != "darwin" else peak / 2**20


def _generate(block_info=None, *, family: str, seed: int, size: int):
    i = block_info[None]["chunk-location"][0]
    rng = np.random.default_rng([seed, i])
    x = rng.lognormal(0.0, 0.5, size)
    return x + 1.0 if family == "boxcox" else x - 1.0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=float, default=1e8, help="number of values (default 1e8)")
    p.add_argument("--chunk", type=float, default=1e6, help="values per partition")
    p.add_argument("--family", default="boxcox", choices=["boxcox", "yeojohnson"])
    p.add_argument("--scheduler", default="threads", choices=["threads", "distributed"])
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--check", action="store_true",
                   help="also materialise the data and fit in memory (small n only)")
    args = p.parse_args(argv)

    import dask
    import dask.array as da

    import boxcoxstat as bcs

    chunk = int(args.chunk)
    k = max(1, int(round(args.n / chunk)))
    n = k * chunk
    x = da.map_blocks(_generate, dtype=np.float64, chunks=((chunk,) * k,),
                      family=args.family, seed=args.seed, size=chunk)
    print(f"python {platform.python_version()}, dask {dask.__version__}, "
          f"{platform.machine()}, scheduler={args.scheduler}, workers={args.workers}")
    print(f"n = {n:.3g} values in {k} partitions of {chunk:.3g} "
          f"({n * 8 / 2**20:.0f} MB of float64 if pooled)")
    base = _rss_mb()
    cluster = client = None
    if args.scheduler == "distributed":
        from distributed import Client, LocalCluster

        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1,
                               processes=False, dashboard_address=None)
        client = Client(cluster)
        cfg = dask.config.set()
    else:
        cfg = dask.config.set(scheduler="threads", num_workers=args.workers)
    with cfg:
        t0 = time.perf_counter()
        da.log(x).sum().compute()  # the peer: one plain dask.array reduction of log(x)
        t_log = time.perf_counter() - t0
        t0 = time.perf_counter()
        r = bcs.fit(x, family=args.family)
        t_fit = time.perf_counter() - t0
        t0 = time.perf_counter()
        ci = r.conf_int()
        summary = str(r.summary())
        t_inf = time.perf_counter() - t0
    peak = _rss_mb()
    lo, hi = float(ci["lower"].iloc[0]), float(ci["upper"].iloc[0])
    fed = r.federated
    passes = fed["passes"]  # every graph that reads the full data
    print(f"lambda = {r.lmbda:.12g}, 95% profile interval [{lo:.10g}, {hi:.10g}], "
          f"se = {float(r.bse.iloc[0]):.3g}")
    sub = passes - 1 - fed["rounds"]
    print(f"full passes: {passes} = 1 set-up + {sub} to extract the subsample + "
          f"{fed['fit_rounds']} to find lambda + "
          f"{fed['rounds'] - fed['fit_rounds']} for the interval, SE and both tests "
          f"(target <= 8); {fed['subsample_rounds']} passes over the persisted subsample")
    print(f"time: {t_fit:.1f} s ({t_fit / passes:.2f} s per full pass); a plain "
          f"da.log(x).sum() on the same data: {t_log:.2f} s; ratio per pass "
          f"{t_fit / passes / t_log:.2f}")
    print(f"summary after the fit: {t_inf * 1e3:.1f} ms (stored with the fit: "
          f"{len(summary.splitlines())} lines)")
    print(f"peak RSS: {peak:.0f} MB (before fitting: {base:.0f} MB; data size "
          f"{n * 8 / 2**20:.0f} MB; peak / data = {peak / (n * 8 / 2**20):.2f})")
    if args.check:
        xs = x.compute()
        t0 = time.perf_counter()
        m = bcs.fit(xs, family=args.family)
        print(f"in memory: lambda = {m.lmbda:.12g} ({time.perf_counter() - t0:.1f} s); "
              f"relative difference {abs(r.lmbda - m.lmbda) / abs(m.lmbda):.2e}")
    if client is not None:
        client.close()
        cluster.close()  # type: ignore[union-attr]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
