# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # Federated and Dask fitting
#
# When the data sit at several sites that cannot pool them, averaging each site's own lambda
# is wrong: the power must maximise the likelihood of all the data. `bcs.federated.fit` finds
# it from per-site summaries exchanged as explicit messages (the stable protocol of Xu &
# Cormode 2025: moments of the scaled transform, merged pairwise), and `bcs.fit` does the same
# on Dask arrays and DataFrames without gathering them. Here three "sites" hold parts of the
# TopGear weights.

# %%
import numpy as np

import boxcoxstat as bcs

cars = bcs.datasets.load("topgear")
weight = cars["Weight"].dropna().to_numpy()
rng = np.random.default_rng(0)
sites = np.array_split(rng.permutation(weight), 3)
print("values per site:", [len(s) for s in sites])
print("each site's own lambda:", [round(bcs.fit(s).lmbda, 3) for s in sites])

r = bcs.federated.fit(sites, family="boxcox")
pooled = bcs.fit(weight, family="boxcox")
print(f"federated lambda {r.lmbda:.10f}, pooled in memory {pooled.lmbda:.10f}")
print({k: r.federated[k] for k in ("clients", "rounds", "bytes_up")})

# %% [markdown]
# The result is a `PowerTransformResult` like any other, with the interval, standard error
# and the tests at 0 and 1 computed in a few extra rounds. Sites may hold several columns
# (one lambda each), `family="auto"` and `ymax=` work as in memory, and a client that fails the
# server's checks, raises or times out stops the fit naming it, or with
# `on_bad_client="drop"` is left out and listed.

# %%
print(r.summary())

# %% [markdown]
# ## Dask
#
# `bcs.fit` accepts `dask.array` and `dask.dataframe` input (the `dask` extra): partitions
# play the clients, and each optimiser step is one graph in which every partition computes its
# moments and `dask.array.reduction` merges them in a tree.

# %%
import dask.array as da  # noqa: E402

x = da.from_array(weight, chunks=50)
rd = bcs.fit(x, family="boxcox")
print(f"Dask ({x.npartitions} partitions): lambda {rd.lmbda:.10f}")
print(rd.conf_int())
