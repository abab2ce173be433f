# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # scikit-learn pipelines
#
# `bcs.PowerTransformer` is a drop-in for `sklearn.preprocessing.PowerTransformer`: replace
# the import and nothing else changes (needs the `sklearn` extra). Its lambdas are the exact
# optima, it fits all columns at once, and its `result_` carries the statistics scikit-learn
# does not give: intervals, tests, a summary.

# %%
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import PowerTransformer as SkPowerTransformer

import boxcoxstat as bcs
from boxcoxstat import PowerTransformer

wdbc = bcs.datasets.load("wdbc")  # Wisconsin breast cancer diagnosis (UCI), bundled
X = wdbc[["radius1", "texture1", "perimeter1", "area1", "smoothness1", "compactness1"]]
y = (wdbc["Diagnosis"] == "M").to_numpy()  # malignant
pt = PowerTransformer(method="box-cox").fit(X)
sk = SkPowerTransformer(method="box-cox").fit(X)
for name, ours, theirs in zip(X.columns, pt.lambdas_, sk.lambdas_, strict=True):
    print(f"{name:18s} boxcoxstat {ours: .6f}   scikit-learn {theirs: .6f}")
print(pt.result_.summary())

# %% [markdown]
# In a pipeline it is refitted on each training fold, as any scikit-learn transformer.

# %%
model = make_pipeline(PowerTransformer(), LogisticRegression(max_iter=1000))
print("5-fold accuracy:", cross_val_score(model, X, y, cv=5).mean().round(4))

# %% [markdown]
# Options of its own: `PowerTransformer("auto")` chooses the family per column,
# `estimator="rewml"` gives robust lambdas, `sample_weight=` frequency weights,
# `set_output(transform="pandas" | "polars")` DataFrames out, and `to_json()` /
# `PowerTransformer.from_json()` deploy it without pickle.

# %%
robust = PowerTransformer("auto", estimator="rewml").set_output(transform="pandas")
print(robust.fit_transform(X).head(3).round(3))
again = PowerTransformer.from_json(pt.to_json())
print("same lambdas after JSON:", bool((again.lambdas_ == pt.lambdas_).all()))

# %% [markdown]
# ## The power of a regression's target
#
# scikit-learn's `TransformedTargetRegressor(transformer=PowerTransformer())` picks the target's
# power from y alone. `bcs.BoxCoxRegressor` picks it **given X** (MASS's lambda: the profile
# likelihood of the linear model), fits any regressor on the transformed target and predicts the
# conditional median (or Duan's smearing mean). On the trees data the power given the logs of
# girth and height is about 0, as `bcs.lm` finds.

# %%
import numpy as np  # noqa: E402

trees = bcs.datasets.load("trees")
Xt = np.log(trees[["Girth", "Height"]])
reg = bcs.BoxCoxRegressor(LinearRegression()).fit(Xt, trees["Volume"])
print(f"power of Volume given X: {reg.power_.lmbda:.4f}")
print(reg.power_.conf_int())
print(reg.predict(Xt.head(3)).round(2))
