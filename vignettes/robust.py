# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown]
# # Transforming variables to central normality (RewML)
#
# This vignette reproduces the examples of Raymaekers & Rousseeuw (2021), *Transforming
# variables to central normality*, Machine Learning 113, 4953-4975, with `boxcoxstat`:
# the TopGear cars (Figures 2, 3, 9, 10), the glass spectra (Figure 11), the DPOSS stars
# (section 4.3), the sensitivity curves (Figure 5) and a reduced simulation (Figures 6-8).
#
# Figures go to the folder named by the environment variable `BOXCOXSTAT_FIGDIR` (a temporary
# folder otherwise). `BOXCOXSTAT_VIGNETTE_M` sets the number of simulation replications
# (default 20; the paper uses 100).

# %%
import os
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import BoundaryNorm, ListedColormap

import boxcoxstat as bcs
from boxcoxstat.datasets import load

FIGDIR = Path(os.environ.get("BOXCOXSTAT_FIGDIR") or tempfile.mkdtemp(prefix="bcs_robust_"))
FIGDIR.mkdir(parents=True, exist_ok=True)
M = int(os.environ.get("BOXCOXSTAT_VIGNETTE_M", "20"))


def save(fig, name):
    fig.tight_layout()
    fig.savefig(FIGDIR / name, dpi=90)
    plt.close(fig)


# %% [markdown]
# ## TopGear: MPG and Weight (sections 1 and 4.1)
#
# The paper scales each variable so its median is 1 before the Box-Cox fit; `method="rewml"`
# does this by default (cellWise's prestandardization), and ML's lambda does not depend on it.
# Missing values are dropped per variable (285 cars have MPG, 264 have Weight).

# %%
cars = load("topgear")
cars.index = cars["Maker"] + " " + cars["Model"]
fits = {}
for var in ("MPG", "Weight"):
    ml = bcs.fit(cars[var], family="boxcox")
    rew = bcs.fit(cars[var], family="boxcox", method="rewml")
    fits[var] = (ml, rew)
    print(f"{var}: ML lambda = {ml.lmbda:.2f}, RewML lambda = {rew.lmbda:.2f}; "
          f"flagged: {rew.outliers}")

# %%
print(fits["MPG"][1].summary())

# %% [markdown]
# Figures 2/9 and 3/10: the original data, the ML transform, and the RewML transform with
# the flagged cars in red. The line in the RewML panel is the robust location + scale * z.

# %%
for var in ("MPG", "Weight"):
    ml, rew = fits[var]
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    ml.qqplot(axes=axes[:2])
    axes[1].set_title(f"Box-Cox {var} by ML, λ = {ml.lmbda:.2f}", fontsize=10)
    rew.qqplot(axes=[axes[0], axes[2]])
    axes[0].set_title(f"original {var}", fontsize=10)
    axes[2].set_title(f"Box-Cox {var} by RewML, λ = {rew.lmbda:.2f}", fontsize=10)
    save(fig, f"robust_topgear_{var.lower()}.png")

# %% [markdown]
# ## Glass spectra (section 4.2, Figure 11)
#
# Yeo-Johnson per wavelength, prestandardized by median and MAD (as the paper did for this
# example), with lambda by ML and by RewML; then each column is standardized (ML: mean and sd
# of all points; RewML: of the weight-1 points) and cells beyond +-2.57 are coloured.
# `V1..V13` are constant, so the 500 wavelengths are `V14..V513`.

# %%
glass = load("glass_spectra").iloc[:, 13:513]
rew_g = bcs.fit(glass, family="yeojohnson", method="rewml")
pre = (glass - glass.median()) / (1.4826 * (glass - glass.median()).abs().median())
ml_g = bcs.fit(pre, family="yeojohnson")
y_ml = ml_g.transform(pre)
z_ml = (y_ml - y_ml.mean()) / y_ml.std()
z_rew = rew_g.standardized
print("lambda quartiles, ML:", ml_g.params.quantile([0.25, 0.5, 0.75]).round(2).tolist(),
      " RewML:", rew_g.params.quantile([0.25, 0.5, 0.75]).round(2).tolist())
print(f"cells beyond 2.57: ML {int((z_ml.abs() > 2.57).sum().sum())}, "
      f"RewML {int((z_rew.abs() > 2.57).sum().sum())}")

# %%
cmap = ListedColormap(["#2b59c3", "#ffe45c", "#d7263d"])
norm = BoundaryNorm([-1e9, -2.57, 2.57, 1e9], cmap.N)
fig, axes = plt.subplots(2, 1, figsize=(10, 8))
for ax, z, title in ((axes[0], z_ml, "YJ transformed variables by ML"),
                     (axes[1], z_rew, "YJ transformed variables by RewML")):
    ax.imshow(z.to_numpy(), aspect="auto", cmap=cmap, norm=norm, interpolation="nearest")
    ax.set_title(title)
    ax.set_xlabel("wavelengths")
    ax.set_ylabel("samples")
save(fig, "robust_glass_heatmap.png")

# %% [markdown]
# ## DPOSS stars (section 4.3)
#
# Colour band J, rows with all seven variables observed (11478 x 7, shipped as `dposs_j`).
# Yeo-Johnson by RewML per variable. (The paper continues with a cellwise robust PCA, which
# is outside this package.)

# %%
dposs = load("dposs_j").drop(columns="id")
rew_d = bcs.fit(dposs, family="yeojohnson", method="rewml")
table = pd.DataFrame({"lambda": rew_d.params.round(3),
                      "flagged": pd.Series({k: len(v) for k, v in rew_d.outliers.items()})})
print(table)
fig, axes = plt.subplots(1, 2, figsize=(9, 4))
rew_d.qqplot("AreaJ", axes=axes)
save(fig, "robust_dposs_area.png")

# %% [markdown]
# ## Sensitivity curves (section 2.6, Figure 5)
#
# n = 100; Yeo-Johnson with true lambda 1 (standard normal data) and Box-Cox with lambda 0
# (lognormal, plotted against log z). ML and Carroll are unbounded, RewML redescends to
# exactly zero, MTL95 (`("mtl", {"h": 0.95})`, labelled `mtl(h=0.95)`) jumps. Estimators are
# given as for `bcs.fit`: a method name, or a method with its options.

# %%
fig, axes = plt.subplots(2, 1, figsize=(7, 8))
for ax, family in zip(axes, ("yeojohnson", "boxcox"), strict=True):
    sc = bcs.sensitivity_curve(["mle", "carroll", "rewml", ("mtl", {"h": 0.95})], family)
    sc.plot(ax=ax)
    ax.set_ylim(-60, 60)
    far = np.abs(sc.x_axis) >= 4
    print(f"{family}: RewML SC is exactly 0 for |z| >= 4: "
          f"{bool((sc.values['rewml'][far] == 0).all())}; ML max |SC| = "
          f"{sc.values['mle'].abs().max():.1f}")
save(fig, "robust_sensitivity.png")
print(sc.summary())

# %% [markdown]
# ## A reduced simulation (section 3, Figures 6-8)
#
# `m` replications of n = 100 per setting (the paper: m = 100). Figure 6: bias and MSE
# against the contamination fraction at k = 10; Figure 7: against k at 10%; Figure 8:
# Box-Cox with lambda 0 against k at 10%.

# %%
EST = ["mle", "carroll", ("mtl", {"h": 0.9}), "rewml", ("rewml", {"rectified": False})]
LABEL = {"mle": "ML", "carroll": "Carroll", "mtl(h=0.9)": "MTL90", "rewml": "RewML",
         "rewml(rectified=False)": "RewMLnr"}  # the paper's names for the table labels


def panel(sim, by, title, fname):
    table = sim.table.reset_index()  # one row per (lmbda, epsilon, k, estimator)
    lams = sorted(table["lmbda"].unique())
    fig, axes = plt.subplots(len(lams), 2, figsize=(9, 3 * len(lams)), squeeze=False)
    for i, lam in enumerate(lams):
        t = table[table["lmbda"] == lam]
        for j, stat in enumerate(("bias", "mse")):
            ax = axes[i, j]
            for e in LABEL:
                s = t[t["estimator"] == e].sort_values(by)
                ax.plot(s[by], s[stat], marker="o", ms=3, label=LABEL[e])
            ax.set_ylim((-1.5, 1.5) if stat == "bias" else (0, 1.5))
            ax.set_title(f"{title}, λ = {lam:g}: {stat}", fontsize=9)
            ax.set_xlabel(by)
    axes[0, 0].legend(fontsize=7)
    save(fig, fname)


sim6 = bcs.simulate("yeojohnson", lmbda=(0.5, 1.0, 1.5), epsilon=(0, 0.05, 0.1, 0.15),
                    k=10, estimators=EST, m=M, random_state=1, progress=False)
panel(sim6, "epsilon", "YJ, k = 10", "robust_sim_fig6.png")
sim7 = bcs.simulate("yeojohnson", lmbda=(0.5, 1.0, 1.5), epsilon=0.1, k=range(0, 11, 2),
                    estimators=EST, m=M, random_state=2, progress=False)
panel(sim7, "k", "YJ, 10%", "robust_sim_fig7.png")
sim8 = bcs.simulate("boxcox", lmbda=0.0, epsilon=0.1, k=range(0, 11, 2), estimators=EST,
                    m=M, random_state=3, progress=False)
panel(sim8, "k", "BC, 10%", "robust_sim_fig8.png")
print(sim7.bias().round(2))

# %%
print(f"figures written to {FIGDIR}")
