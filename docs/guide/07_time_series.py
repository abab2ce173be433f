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
