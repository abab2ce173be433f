"""Benchmark the drop-in ``boxcoxstat.PowerTransformer`` against scikit-learn's, in one run.

Run from the repository root::

    python benchmarks/bench_sklearn.py              # 1000 x 2000, both families, ~2 minutes
    python benchmarks/bench_sklearn.py --repeats 3  # best of 3 instead of 2

Both transformers are used as a user would use them, with their defaults
(``standardize=True``): ``fit_transform(X)`` on the same 1000 x 2000 matrix (the data of
``bench_fit.py``: columns lognormal with sigmas spread over [0.2, 2], shifted by +1 for Box-Cox
and -1 for Yeo-Johnson). It prints the best-of-k wall time of each, the speed-up (scikit-learn
/ boxcoxstat) against the target of 10x, the largest lambda difference (relative above 1,
absolute below), the largest difference of the standardised outputs, and in how many columns
scikit-learn's lambda has a lower profile NLL than ours by more than rounding (1e-12
relative; it should be none).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_fit import SEED, best_of, data_matrix, machine_info  # noqa: E402

TARGET = 10.0


def _nll_worse(x: np.ndarray, ours: np.ndarray, theirs: np.ndarray, family: str) -> int:
    """Columns where the profile NLL at our lambda exceeds that at scikit-learn's by more
    than rounding (1e-12 relative): where scikit-learn's lambda would be the better one."""
    from boxcoxstat.core.profile import SampleProfile

    prof = SampleProfile.from_array(x, family)
    cols = np.arange(x.shape[1])
    a, _ = prof.evaluate(ours, cols, score=False)
    b, _ = prof.evaluate(theirs, cols, score=False)
    return int(np.sum(a - b > 1e-12 * np.abs(b)))


def run(n: int, p: int, repeats: int) -> list[tuple[str, float, float]]:
    from sklearn.preprocessing import PowerTransformer as SkPowerTransformer

    from boxcoxstat import PowerTransformer

    rng = np.random.default_rng(SEED)
    rows = []
    for method, family in (("box-cox", "boxcox"), ("yeo-johnson", "yeojohnson")):
        x = data_matrix(rng, n, p, family)
        t_ours, ours, _ = best_of(lambda x=x, m=method: _fitted(PowerTransformer(m), x),
                                  repeats)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # scikit-learn's overflow warnings, if any
            t_sk, sk, _ = best_of(lambda x=x, m=method: _fitted(SkPowerTransformer(m), x),
                                  repeats)
        lam_o, lam_s = ours[0].lambdas_, sk[0].lambdas_
        dlam = np.max(np.abs(lam_o - lam_s) / np.maximum(1.0, np.abs(lam_s)))
        dout = float(np.max(np.abs(ours[1] - sk[1])))
        worse = _nll_worse(x, lam_o, lam_s, family)
        ratio = t_sk / t_ours
        print(f"{method:12s} {n} x {p}: boxcoxstat {t_ours:7.3f} s   scikit-learn {t_sk:7.3f} s"
              f"   speed-up {ratio:5.1f}x   max lambda diff {dlam:.1e}   max output diff "
              f"{dout:.1e}   columns where scikit-learn's NLL is lower: {worse}/{p}")
        rows.append((method, t_ours, t_sk))
    return rows


def _fitted(est, x):
    out = est.fit_transform(x)
    return est, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--p", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args(argv)
    for line in machine_info():
        print(line)
    print("PowerTransformer(method).fit_transform(X), standardize=True (both defaults), "
          f"best of {args.repeats}")
    rows = run(args.n, args.p, args.repeats)
    ok = all(sk / ours >= TARGET for _, ours, sk in rows)
    print(f"target >= {TARGET:g}x over scikit-learn on every family: "
          f"{'met' if ok else 'NOT met'}")
    print("\n| method | size | boxcoxstat (s) | scikit-learn (s) | speed-up |")
    print("| --- | --- | ---: | ---: | ---: |")
    for method, ours, sk in rows:
        print(f"| {method} | {args.n} x {args.p} | {ours:.3f} | {sk:.3f} | {sk / ours:.1f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
