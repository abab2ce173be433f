# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # Mixed models: the response's power with random effects
#
# Repeated measures, patients within clinics, plates and samples crossed in an assay: the
# observations share group effects, and `bcs.lm` would treat them as independent.
# `bcs.lmer` takes lme4's formula, `y ~ x + (1 + x | g)`, and estimates the response's power
# as `car::powerTransform(lmer(...))` defines it: at each lambda the Jacobian-adjusted
# transformed response is refitted (REML, as `lmer`, or ML with `REML=False`) and its
# log-likelihood maximised. Here the random-effect parameters are refitted tightly at every
# lambda and lambda is the root of the exact score, so the estimate agrees with a tight R
# optimum to better than 1e-6 (car's own, with `optimize`'s default tolerance, to about
# 1e-4; `tests/reference/lmer_reference.R` on lme4's sleepstudy, Dyestuff, Penicillin,
# Pastes, MASS's oats and nlme's Orthodont).
#
# The data: a simulated reaction-time study, 18 subjects measured on 10 days, with a subject
# intercept and slope, generated on the log scale.

# %%
import numpy as np
import pandas as pd

import boxcoxstat as bcs

rng = np.random.default_rng(42)
subjects, days = 18, 10
subject = np.repeat([f"s{k:02d}" for k in range(subjects)], days)
day = np.tile(np.arange(days, dtype=float), subjects)
u0 = rng.normal(scale=0.15, size=subjects)  # each subject's own level
u1 = rng.normal(scale=0.03, size=subjects)  # and its own trend
k = np.repeat(np.arange(subjects), days)
log_rt = 5.5 + 0.04 * day + u0[k] + u1[k] * day + rng.normal(scale=0.08, size=subjects * days)
study = pd.DataFrame({"reaction": np.exp(log_rt), "day": day, "subject": subject})

m = bcs.lmer("reaction ~ day + (1 + day | subject)", study)
print(m.summary())

# %% [markdown]
# `m.power` is lambda's own result, the same as `bcs.lm`'s: estimate, standard error, profile
# interval, likelihood-ratio tests and the rounded power; `m.params`, `m.bse`, `m.conf_int()`
# and `m.variance_components` (lme4's `VarCorr`) describe the model at that power.

# %%
lo, hi = m.power.conf_int().iloc[0]
print(f"lambda = {m.lmbda:.4f}, 95% profile interval [{lo:.3f}, {hi:.3f}], "
      f"rounded {m.power.rounded:.4g}, car's rounding {m.power.rounded_power(rule='car'):g}")
print(m.power.test(0))
print(m.variance_components.round(5))

# %% [markdown]
# ## The log model, and predictions on the response scale
#
# The interval holds 0, the log the data were generated on (the profile rule's rounded power
# is -1/3, the convenient power nearest the estimate; car's rule, the first of 1, 0, -1, ...
# inside the Wald interval, gives 0). `m.at(0)` refits at the log. `predict` answers in
# milliseconds: the back-transformed linear predictor, with the subject's own random effects
# for a subject the model has seen, and the population level for a new one (or for everyone
# with `random=False`).

# %%
log_model = m.at(0)
print(log_model.params.round(4))
new = pd.DataFrame({"day": [0.0, 9.0, 9.0], "subject": ["s00", "s00", "new subject"]})
print(log_model.predict(new).round(1))
print(log_model.predict(new, random=False).round(1))

# %% [markdown]
# ## Likelihoods that compare
#
# `llf` is car's objective: the log-likelihood of the Jacobian-adjusted response, so the
# estimated power and the log compare on one scale; `df_model_llf` counts the fixed effects,
# the random-effect parameters, the residual variance and lambda where it was estimated.
# With `REML=False` it is the log-likelihood of the untransformed response itself.

# %%
ml = bcs.lmer("reaction ~ day + (1 + day | subject)", study, REML=False)
ml_log = ml.at(0)
print(f"ML: estimated power llf {ml.llf:.2f} ({ml.df_model_llf} parameters), "
      f"log llf {ml_log.llf:.2f} ({ml_log.df_model_llf} parameters)")
print(f"LR statistic for lambda = 0: {2 * (ml.llf - ml_log.llf):.4f} "
      f"(m.power.test(0): {ml.power.test(0).statistic:.4f})")

# %% [markdown]
# ## A power within bounds
#
# `bounds=(lo, hi)` keeps the power in a range you can interpret (forecast's `lower` and
# `upper`, recipes' `limits`): lambda is the maximum of car's objective on `[lo, hi]`. When
# the unconstrained maximum lies outside, lambda is the bound and the summary says so; the
# interval is the powers within the bounds whose profile likelihood is within the cut-off of
# the bounded maximum, and the LR tests compare with it (a power outside the bounds is
# refused). car has no bounds for mixed models; `tests/reference/lmer_bounds_reference.R`
# maximises its objective on the bounds in R, and `bcs.lmer` agrees to 1e-7 or better.

# %%
bounded = bcs.lmer("reaction ~ day + (1 + day | subject)", study, bounds=(0.5, 2))
print(f"lambda = {bounded.lmbda:g} (unconstrained {bounded.power.lmbda_free[0]:.4f}); "
      f"interval {bounded.power.conf_int().iloc[0].round(3).tolist()}")
print(bounded.summary().notes[-2])

# %% [markdown]
# ## What the engine fits, and what it refuses
#
# Random intercepts `(1 | g)`, correlated intercepts and slopes `(1 + x | g)`, uncorrelated
# ones `(x || g)`, nested factors `(1 | a/b)`, interactions `(1 | a:b)` and crossed factors
# `(1 | a) + (1 | b)`: lme4's model, evaluated exactly (Bates et al. 2015). A grouping factor
# with one level, or with as many levels as observations, a grouping expression that is not
# data columns are refused with an error that names them. A random-effect fit that does not
# converge at some lambda is reported by a warning and in `m.nonconverged`, never smoothed
# over. car's `bcnPower` family (`family="bcnpower"`, a response with zeros or negative values)
# profiles its shift out as `bcs.lm` does; it refits the random effects for every (lambda,
# gamma) it tries, so it takes seconds to a minute, and is not run on this page.

# %%
try:
    bcs.lmer("reaction ~ day + (1 | one)", study.assign(one="all"))
except bcs.BoxCoxError as err:
    print(err)
