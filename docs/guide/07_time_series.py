# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # Time series
#
# A seasonal series whose swings grow with its level wants a power before it is modelled.
# `bcs.guerrero` chooses it as R's `forecast::BoxCox.lambda` does: Guerrero's (1993)
# criterion, the coefficient of variation of the ratios of each season's standard deviation to
# its mean to the power 1 - lambda (or `method="loglik"`, the profile likelihood of a linear
# trend model). The data: R's AirPassengers, monthly totals 1949-1960, bundled.

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import boxcoxstat as bcs

air = bcs.datasets.load("airpassengers")
series = pd.Series(air["passengers"].to_numpy(),
                   index=pd.period_range("1949-01", periods=len(air), freq="M"),
                   name="passengers")
g = bcs.guerrero(series)  # the period, 12, comes from the monthly index
print(g.summary())

# %% [markdown]
# forecast's numbers (`tests/reference/forecast_reference.R`): `BoxCox.lambda(AirPassengers)`
# gives -0.2947156 (its `optimize` stops at about 1e-5; R's criterion minimised tightly gives
# -0.2947236, as here); `method = "loglik"` picks 0.2 from a grid of step 0.05, where the
# likelihood's maximum is 0.1977782.

# %%
gl = bcs.guerrero(series, method="loglik")
print(f"guerrero: {g.lmbda:.7f} (forecast -0.2947156; tight -0.2947236)")
print(f"loglik:   {gl.lmbda:.7f} (forecast's grid 0.2; tight 0.1977782)")

# %% [markdown]
# Transform, model on that scale, and back-transform forecasts with `bcs.inv_boxcox`:
# `kind="median"` is the plain inverse, `kind="mean"` the bias-adjusted mean given the
# forecast variance `fvar` (forecast's `InvBoxCox(biasadj = TRUE)`).

# %%
z = g.transform(series)
fig, axes = plt.subplots(1, 2, figsize=(9, 3))
series.plot(ax=axes[0], title="passengers")
z.plot(ax=axes[1], title=f"Box-Cox, lambda = {g.lmbda:.3f}")
fig.tight_layout()
plt.show()
last = float(z.iloc[-1])
print("median:", bcs.inv_boxcox([last], g.lmbda).round(2),
      " mean with forecast variance 1e-4:",
      bcs.inv_boxcox([last], g.lmbda, kind="mean", fvar=[1e-4]).round(2))

# %% [markdown]
# ## Thousands of series at once
#
# A retailer's stores, a utility's meters: one lambda per series. Pass a DataFrame with one
# series per column (times in the index) or long data with `id=` and `time=` columns (series
# may differ in length); every series is solved together, vectorised, and each lambda is
# the one `bcs.guerrero` gives for that series alone. 10,000 monthly series of 10 years take
# about the time of one `bcs.fit` of their 1.2 million values (`benchmarks/bench_floor.py`),
# with either method; each lambda agrees with forecast's criterion minimised tightly in R to
# 4e-8, and `method="loglik"` with forecast's likelihood to 5e-13
# (`tests/reference/forecast_many_reference.R`). For `"loglik"` most series never evaluate a
# power: near lambda = 0 the likelihood of each series is a polynomial in lambda (the Taylor
# series of the transform, built from power sums of the log data in one pass), solved for
# all series at once and accepted where its proven truncation error is below 1e-14; series
# farther from 0 are expanded again around that polynomial's root (one exponential per
# value) and accepted likewise, and the few left close on the exact score. The result, a
# `GuerreroFrameResult`, has
# `lmbda` and `criterion` by series, `to_frame()` for the table, and `transform` for a wide
# frame.

# %%
rng = np.random.default_rng(7)
months = pd.period_range("2015-01", periods=120, freq="M")
t = np.arange(120)
stores = pd.DataFrame(
    {f"store{k}": np.exp(3 + 0.01 * k * t / 10) * (1 + 0.2 * np.sin(2 * np.pi * t / 12))
     * np.exp(rng.normal(0, 0.05, 120)) + k for k in range(500)}, index=months)
many = bcs.guerrero(stores)  # period 12 from the index
print(many.to_frame().head())
print(many.summary())

# %% [markdown]
# The same data in long form (one row per store and month), and `method="loglik"`:

# %%
long = stores.melt(ignore_index=False, var_name="store", value_name="sales").reset_index(
    names="month")
by_store = bcs.guerrero(long, id="store", time="month")
print(bool(np.allclose(by_store.lmbda.to_numpy(), many.lmbda.to_numpy(), atol=1e-9)))
print(bcs.guerrero(stores, method="loglik").lmbda.describe().round(3))
