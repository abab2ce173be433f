"""Coverage of bcs.lm's intervals on the response scale, by simulation.

For each setting, ``--reps`` data sets (default 1000) are drawn from a Box-Cox linear model

    g_lambda(y) = b0 + b1 x + sigma e,   x ~ U(0, 1),  e ~ N(0, 1),

``bcs.lm("y ~ x", data)`` is fitted, and three kinds of 95% intervals are formed at a central
new point (x = 0.5) and an extrapolated one (x = 1.2):

* ``oracle``: the model fitted at the true power (``lmbda=`` the truth): exact intervals, a
  check of the simulation itself;
* ``plug-in``: at the estimated power, taken as known (``predict(interval=...)``);
* ``mixture``: at the estimated power with its uncertainty
  (``predict(..., include_lambda_uncertainty=True)``: Box & Cox's posterior mixture).

A prediction interval's coverage is computed exactly given the data set,
``P(lower <= Y_new <= upper)`` under the true model, and averaged over the data sets; a
confidence interval's is whether it holds the true conditional median ``g^{-1}(b0 + b1 x)``.
The Monte Carlo standard error is the standard deviation over data sets divided by sqrt(reps).

Run from the repository root (about 10 minutes on 2 cores):

    python benchmarks/coverage_lm.py [--reps 1000] [--seed 2024]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from scipy import stats

import boxcoxstat as bcs
from boxcoxstat.families import inverse_transform, transform

SETTINGS = [  # (true lambda, n, b0, b1, sigma)
    (0.0, 25, 1.0, 1.0, 0.3),
    (0.0, 100, 1.0, 1.0, 0.3),
    (0.5, 25, 4.0, 2.0, 0.5),
    (0.5, 100, 4.0, 2.0, 0.5),
]
NEW_X = (0.5, 1.2)
ALPHA = 0.05


def _cdf(y: np.ndarray, lam: float, mu: float, sigma: float) -> np.ndarray:
    """P(Y <= y) under the true model (y >= 0; the mass below the Box-Cox range is at 0)."""
    y = np.asarray(y, dtype=np.float64)
    out = np.ones_like(y)
    finite = np.isfinite(y)
    pos = finite & (y > 0)
    out[pos] = stats.norm.cdf((transform(y[pos], lam) - mu) / sigma)
    zero = finite & (y <= 0)
    low = -1.0 / lam if lam > 0 else -np.inf
    out[zero] = stats.norm.cdf((low - mu) / sigma)
    return out


def one_setting(lam: float, n: int, b0: float, b1: float, sigma: float, reps: int,
                rng: np.random.Generator) -> pd.DataFrame:
    new = pd.DataFrame({"x": NEW_X})
    mu = b0 + b1 * new["x"].to_numpy()
    median = inverse_transform(mu, lam)
    rows = []
    for _ in range(reps):
        x = rng.uniform(0.0, 1.0, n)
        z = b0 + b1 * x + sigma * rng.standard_normal(n)
        df = pd.DataFrame({"x": x, "y": inverse_transform(z, lam)})
        fits = {"oracle": (bcs.lm("y ~ x", df, lmbda=lam), False)}
        est = bcs.lm("y ~ x", df)
        fits["plug-in"] = (est, False)
        fits["mixture"] = (est, True)
        for name, (m, carry) in fits.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # unbounded ends are counted
                pi = m.predict(new, interval="prediction", alpha=ALPHA,
                               include_lambda_uncertainty=carry)
                ci = m.predict(new, interval="confidence", alpha=ALPHA,
                               include_lambda_uncertainty=carry)
            for j, x0 in enumerate(NEW_X):
                lo, hi = pi["lower"].iloc[j], pi["upper"].iloc[j]
                cover = float(_cdf(np.array([hi]), lam, mu[j], sigma)[0]
                              - _cdf(np.array([lo]), lam, mu[j], sigma)[0])
                if lo <= 0:  # a closed interval from 0 holds the mass at 0 too
                    cover = float(_cdf(np.array([hi]), lam, mu[j], sigma)[0])
                rows.append((name, "prediction", x0, cover, np.isinf(hi)))
                c_lo, c_hi = ci["lower"].iloc[j], ci["upper"].iloc[j]
                rows.append((name, "confidence", x0, float(c_lo <= median[j] <= c_hi),
                             np.isinf(c_hi)))
    out = pd.DataFrame(rows, columns=["intervals", "interval", "x", "covered", "unbounded"])
    return out.assign(lmbda=lam, n=n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    parts = [one_setting(*s, reps=args.reps, rng=rng) for s in SETTINGS]
    data = pd.concat(parts, ignore_index=True)
    keys = ["lmbda", "n", "interval", "x", "intervals"]
    table = data.groupby(keys, sort=False)["covered"].agg(["mean", "std", "count"])
    table["mc_se"] = table["std"] / np.sqrt(table["count"])
    wide = table["mean"].unstack("intervals")[["oracle", "plug-in", "mixture"]]
    se = table["mc_se"].unstack("intervals")[["oracle", "plug-in", "mixture"]]
    print(f"Coverage of nominal {100 * (1 - ALPHA):g}% intervals, {args.reps} data sets per "
          f"setting (seed {args.seed}); y = g^-1(b0 + b1 x + sigma e), x ~ U(0, 1); new x at "
          f"{NEW_X[0]} (centre) and {NEW_X[1]} (extrapolated)")
    print(wide.round(3).to_string())
    print(f"Monte Carlo standard error: at most {se.max().max():.4f}")
    unb = data[data["intervals"] == "mixture"]["unbounded"].mean()
    print(f"mixture intervals with an infinite end: {100 * unb:.2f}%")
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
