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

r = bcs.federated.fit(sites, family="boxcox")  # the paper's messages (protocol="minimal")
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
# ## What each client revealed
#
# By default the clients speak the paper's protocol (Xu & Cormode 2025, Algorithms 2-3;
# `protocol="full"` also sends ranges and derivative moments, for the same numbers): at
# set-up their counts only (no minimum, no maximum), then per round the server sends lambda
# alone and each Box-Cox client answers `(c, n, mean, s)` -- 4 numbers (Yeo-Johnson: 5,
# `(c, n+, n-, mean, s)`). Every exchange is in the result, by round and kind; the profile
# interval's rounds carry both ends (two lambdas). The standard error, the tests at 0 and 1
# and the influence screen take no extra round.

# %%
import pandas as pd  # noqa: E402

print(pd.DataFrame(r.federated["by_kind"]).to_string(index=False))
print(pd.DataFrame(r.federated["revealed"]).T)
print(pd.DataFrame(r.federated["messages"][:4]))

# %% [markdown]
# ## On Flower
#
# The same coordinator, messages and checks run on Flower (`pip install
# "boxcoxstat[flower]"`): `boxcoxstat.federated.flower` has the `ServerApp` and `ClientApp`,
# and `boxcoxstat federated-demo --clients 3` starts Flower's deployment engine on 127.0.0.1 --
# a SuperLink with TLS and node authentication, one SuperNode per site, each its own process
# -- fits TopGear's MPG split across them, prints the federated and the central fit side by
# side, and stops every process it started. Clients are named by Flower's node ids. Flower
# starts one process per message, so the run takes minutes; it is not executed here. Its
# output is shown on the federated topic page (docs/topics/federated.rst).

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
