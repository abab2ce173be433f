# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # Regression with a transformed response
#
# Which power of the response makes a linear model's errors normal with constant variance?
# `bcs.lm` answers as `MASS::boxcox(lm(...))` and `car::powerTransform(lm(...))` do, by the
# exact profile likelihood, and then carries the analyst's whole path: round the power, refit,
# predict on the original scale with intervals. The data: R's `trees` (volume, girth and
# height of 31 black cherry trees), bundled.

# %%
import matplotlib.pyplot as plt
import numpy as np  # noqa: F401 - the formulas below call np.log
import pandas as pd

import boxcoxstat as bcs

trees = bcs.datasets.load("trees")
m = bcs.lm("Volume ~ np.log(Height) + np.log(Girth)", trees)
print(m.summary())

# %% [markdown]
# `m.power` is lambda's own result (estimate, SE, profile interval, tests, rounded power);
# `m.params`, `m.bse`, `m.conf_int()`, `m.llf`, `m.aic` describe the regression at that power,
# with statsmodels' names. R's numbers, from `tests/reference/mass_lm_reference.R` (R's
# `optimize` and `uniroot` on `MASS::boxcox`'s own profile function):

# %%
lo, hi = m.power.conf_int().iloc[0]
print(f"boxcoxstat: lambda = {m.lmbda:.7f}, 95% interval [{lo:.7f}, {hi:.7f}]")
print("MASS:       lambda = -0.0673168, 95% interval [-0.2424358, 0.1095294]")
m.plot_profile()
plt.show()

# %% [markdown]
# ## A fixed or rounded power
#
# lambda = 0 lies well inside the interval, so the log model is the one to report.
# `m.at("rounded")` (or `m.at(0)`, or `bcs.lm(..., lmbda=0)`, or `bc(Volume, lmbda=0)` on the
# left of the formula) refits at that power: the same kind of result, whose power is now a
# setting (no standard error or interval of its own). Its `ols` is a statsmodels OLS of the
# transformed response built from the formula, so it takes new data by column name.

# %%
log_model = m.at("rounded")
print(log_model.params)
print(f"log-likelihood: estimated power {m.llf:.2f}, the log {log_model.llf:.2f}")
print(type(log_model.ols).__name__, log_model.ols.params.round(4).to_dict())

# %% [markdown]
# ## Predictions and intervals on the response scale
#
# `predict` answers on the volume scale: the back-transformed linear predictor (the
# conditional median; `kind="mean"` gives Duan's smearing mean), and with `interval=` the
# linear model's t intervals mapped back. Fitted to 24 trees, predicting 3 held out, at the log.
# R's numbers, from `tests/reference/lm_predict_reference.R`, are
# `exp(predict(lm(log(Volume) ~ log(Girth) + log(Height), train), new, interval = "prediction"))`:

# %%
held = [2, 7, 12, 17, 22, 27, 30]
train = trees.drop(index=trees.index[held])
new = trees.iloc[held][["Girth", "Height"]]
fixed = bcs.lm("Volume ~ np.log(Girth) + np.log(Height)", train, lmbda=0)
print(fixed.predict(new, interval="prediction").head(3).round(4))
print("R: 9.8744 [8.2037, 11.8854], 19.1461 [16.1839, 22.6504], 20.8748 [17.6532, 24.6843]")

# %% [markdown]
# Those intervals take the power as known. `include_lambda_uncertainty=True` carries its
# uncertainty too (Box & Cox's 1964 predictive distribution, mixed over lambda's posterior):
# the interval widens most where the model extrapolates.

# %%
estimated = bcs.lm("Volume ~ np.log(Girth) + np.log(Height)", train)
big = pd.DataFrame({"Girth": [25.0], "Height": [95.0]}, index=["a bigger tree"])
print(pd.concat({
    "power fixed at 0": fixed.predict(big, interval="prediction"),
    "estimated, taken as known": estimated.predict(big, interval="prediction"),
    "estimated, uncertainty carried": estimated.predict(
        big, interval="prediction", include_lambda_uncertainty=True),
}).round(2))

# %% [markdown]
# ## Transformed predictors
#
# `bc(x)` and `yj(x)` in a formula learn a predictor's power once, on the data the model is
# fitted to, and reuse it for new data; `summary()` shows their powers with intervals and tests.
# The same terms work in `statsmodels.formula.api` (`from boxcoxstat import bc`).

# %%
prestige = bcs.datasets.load("prestige")
pm = bcs.lm("prestige ~ bc(income) + education", prestige)
print(pm.summary())
print(pm.predict(pd.DataFrame({"income": [3000.0, 12000.0], "education": [10.0, 14.0]}),
                 interval="confidence").round(2))

# %% [markdown]
# Saving: `m.to_json()` and `bcs.LmResult.from_json(...)` keep everything `predict` needs
# (the formula and what it learned, read back by the package's own grammar: nothing in a
# document is evaluated). Residual plots: `m.qqplot()` (studentized residuals with a simulated
# envelope, as `car::qqPlot`) and `m.plot_residuals()`.

# %%
loaded = bcs.LmResult.from_json(estimated.to_json())
print(loaded.predict(big, interval="prediction").round(2))
estimated.qqplot()
plt.show()

# %% [markdown]
# ## Which model? One likelihood for `y`, `log y` and `y^lambda`
#
# A model of `log(y)` and a model of `y` have log-likelihoods on different scales; the
# Jacobian of the transform puts them on one, the untransformed response's:
# `llf` of the log model is R's `logLik(lm(log(y) ~ x)) - sum(log(y))`. `bcs.compare` lines
# up any models of one response on that scale, with their parameter counts (lambda counted
# where it was estimated), AIC, BIC, and a likelihood-ratio test of each row against the row
# before when one is nested in the other. A fit of the column alone (`bcs.fit`) is the model
# with no predictors. Its `summary()` prints as text, HTML or LaTeX like every report.

# %%
f = "Volume ~ np.log(Height) + np.log(Girth)"
table = bcs.compare(
    untransformed=bcs.lm(f, trees, lmbda=1),
    log=bcs.lm(f, trees, lmbda=0),
    estimated=bcs.lm(f, trees),
    girth_only=bcs.lm("Volume ~ np.log(Girth)", trees),
    no_predictors=bcs.fit(trees["Volume"]),
)
print(table.summary())

# %% [markdown]
# The log model and the estimated power have nearly the same likelihood (LR 0.59 on 1 df) and
# the log has the lower AIC, with one parameter fewer; the untransformed model is far behind.
# (R's numbers for these rows: `tests/reference/weights_bounds_compare_reference.R`.)
#
# ## Case weights and bounds on lambda
#
# `weights=` (a column name or an array) is `lm(weights=)`'s: each row's variance is
# `sigma^2 / w`; `bcs.fit(x, weights=w)` is the same likelihood for a column alone
# (`car::powerTransform(lm(x ~ 1, weights=w))`). `bounds=(lo, hi)` keeps lambda in an
# interval you decided on beforehand (forecast's `lower`/`upper`): the estimate is the
# profile maximum on it, the interval and the tests are measured from that bounded maximum,
# and the summary says when a bound is active. `bcs.fit_joint`, `bcs.guerrero` and
# `PowerTransformer` take `bounds=` too; `fit_joint` takes `weights=` as well.

# %%
wm = bcs.lm(f, trees, weights="Height")
print(f"weighted by Height: lambda = {wm.lmbda:.4f}")
bounded = bcs.fit(trees["Volume"], bounds=(0.5, 2))
print(bounded.summary())
