# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown]
# # Tuning Box-Cox lambdas for a classifier
#
# Two questions from two papers:
#
# 1. **Blum, Menon & Elgendi** (Tables 4 and 6): does a lambda vector tuned for each
#    classifier by the iterative coordinate search ("Basic") improve accuracy on sonar and on
#    the Wisconsin breast cancer data (wdbc), compared with no transform?
# 2. **Bicego & Baldo (2016)** (Table 5): as one spherical lambda moves over [-5, 5], which
#    criterion (ML = Gaussianity, PCML = per-class Gaussianity, Fisher = class separability)
#    follows the classification accuracy most closely, by the L-infinity distance of the
#    normalised curves?
#
# Settings come from environment variables so the same script runs quickly in the test suite
# (`BCS_VIGNETTE_QUICK=1`) and at the size reported in the README. Figures go to
# `BCS_FIGURE_DIR` (default: a temporary folder).

# %%
from __future__ import annotations

import os
import tempfile
import time
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.linear_model import SGDClassifier  # noqa: E402
from sklearn.model_selection import (  # noqa: E402
    RepeatedStratifiedKFold,
    StratifiedShuffleSplit,
    cross_val_score,
)
from sklearn.naive_bayes import GaussianNB  # noqa: E402
from sklearn.neighbors import KNeighborsClassifier, NearestCentroid  # noqa: E402
from sklearn.neural_network import MLPClassifier  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import MinMaxScaler, StandardScaler  # noqa: E402
from sklearn.svm import SVC  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

import boxcoxstat as bcs  # noqa: E402
from boxcoxstat.classify import BoxCoxTunedClassifier, criterion_curves, linf_distance  # noqa: E402
from boxcoxstat.classify.criteria import scale_unit_range  # noqa: E402
from boxcoxstat.classify.plotting import plot_criterion_curves  # noqa: E402

threadpool_limits(1)  # many tiny fits: BLAS/OpenMP threads only add overhead (10-40x here)
warnings.simplefilter("ignore", ConvergenceWarning)  # MLP 2x10 at sklearn's default max_iter
warnings.filterwarnings("ignore", message=".*within_class_std_dev_")  # ecoli: constant in class
PART = os.environ.get("BCS_PART", "all")  # "blum", "bicego" or "all"
QUICK = os.environ.get("BCS_VIGNETTE_QUICK", "") == "1"
FIGDIR = os.environ.get("BCS_FIGURE_DIR") or tempfile.mkdtemp(prefix="bcs_classify_")
N_SPLITS = int(os.environ.get("BCS_OUTER_SPLITS", "3" if QUICK else "5"))
N_REPEATS = int(os.environ.get("BCS_OUTER_REPEATS", "1"))
EPOCHS = int(os.environ.get("BCS_EPOCHS", "1"))
GRID = np.linspace(-5, 5, int(os.environ.get("BCS_GRID", "3" if QUICK else "11")))
CRITERION = os.environ.get("BCS_CRITERION", "train")
T0 = time.time()


def load_xy(name):
    """Feature matrix and labels of a bundled dataset, as the papers use it."""
    df = bcs.datasets.load(name)
    if name == "sonar":
        return df.drop(columns="Class").to_numpy(float), df["Class"].to_numpy()
    if name == "wdbc":
        return df.drop(columns=["ID", "Diagnosis"]).to_numpy(float), df["Diagnosis"].to_numpy()
    if name == "ecoli":  # Bicego & Baldo: the 3 largest classes, 272 objects, 7 features
        df = df[df["class"].isin(["cp", "im", "pp"])]
        return df.drop(columns=["sequence", "class"]).to_numpy(float), df["class"].to_numpy()
    if name == "pima":
        return df.drop(columns="Outcome").to_numpy(float), df["Outcome"].to_numpy()
    if name == "glass_identification":  # Bicego & Baldo: 4 classes (the 4 largest)
        df = df[df["Type"].isin([1, 2, 3, 7])]
        return df.drop(columns="Type").to_numpy(float), df["Type"].to_numpy()
    if name == "wine":
        return df.drop(columns="target").to_numpy(float), df["target"].to_numpy()
    if name == "liver_bupa":  # class = selector, as most ML papers (and PRTools) use it
        return df.drop(columns="selector").to_numpy(float), df["selector"].to_numpy()
    raise ValueError(name)


# %% [markdown]
# ## 1. Blum, Menon & Elgendi: classifier-tuned lambda vectors (Tables 4 and 6)
#
# The classifiers of their Table 1, with scikit-learn defaults and seed 42. Baseline: min-max
# scaling, standard scaling, classifier (a Box-Cox with all lambdas 1 only shifts the data).
# Tuned: `BoxCoxTunedClassifier(mode="full", search="iterative")` started at the per-feature
# ML lambdas, with the criterion `BCS_CRITERION` ("train" = training accuracy, the paper's
# Optimization 2; "cv" = inner cross-validation), chosen inside each outer training fold.

# %%
CLASSIFIERS = {
    "Linear": SGDClassifier(loss="perceptron", random_state=42),
    "KNN": KNeighborsClassifier(n_neighbors=5),
    "Bayesian": GaussianNB(),
    "SVC": SVC(kernel="rbf", random_state=42),
    "NN": MLPClassifier(hidden_layer_sizes=(10, 10), random_state=42),
}
_ONLY = os.environ.get("BCS_CLASSIFIERS")  # e.g. "Linear,Bayesian" to run a subset
if _ONLY:
    CLASSIFIERS = {k: v for k, v in CLASSIFIERS.items() if k in _ONLY.split(",")}
PAPER = {  # base accuracy and "Basic" improvement, percentage points
    "sonar": {"Linear": (75.195, 1.162), "KNN": (81.343, 1.824), "Bayesian": (67.7, 7.919),
              "SVC": (84.052, 2.286), "NN": (84.024, -0.386)},
    "wdbc": {"Linear": (96.487, 0.175), "KNN": (96.838, 0.245), "Bayesian": (93.289, 1.371),
             "SVC": (97.539, 0.211), "NN": (98.103, -0.598)},
}


def blum_table(name):
    X, y = load_xy(name)
    if QUICK:
        X = X[:, :4]
    outer = RepeatedStratifiedKFold(n_splits=N_SPLITS, n_repeats=N_REPEATS, random_state=42)
    rows = []
    for cname, clf in CLASSIFIERS.items():
        t = time.time()
        base = cross_val_score(make_pipeline(MinMaxScaler((1, 2)), StandardScaler(), clf),
                               X, y, cv=outer)
        tuned = cross_val_score(
            BoxCoxTunedClassifier(clf, mode="full", search="iterative", criterion=CRITERION,
                                  cv=3, grid=GRID, epochs=EPOCHS, random_state=42),
            X, y, cv=outer)
        pb, pi = PAPER[name][cname]
        rows.append({"classifier": cname, "base (ours)": 100 * base.mean(),
                     "improvement (ours)": 100 * (tuned.mean() - base.mean()),
                     "base (paper)": pb, "improvement (paper)": pi,
                     "seconds": time.time() - t})
    return pd.DataFrame(rows).set_index("classifier")


blum = {name: blum_table(name) for name in ("sonar", "wdbc")} if PART != "bicego" else {}
for name, table in blum.items():
    print(f"\n{name}: accuracy (%), {N_SPLITS}-fold x {N_REPEATS} stratified CV, "
          f"criterion={CRITERION}, epochs={EPOCHS}, grid={len(GRID)} points")
    print(table.round(3).to_string())

# %% [markdown]
# A 2-D exploration in the style of Blum et al., Figure 2: the inner-CV accuracy of Gaussian
# naive Bayes over an 11 x 11 lambda grid on two sonar features.

# %%
Xs, ys = load_xy("sonar")
os.makedirs(FIGDIR, exist_ok=True)
two = pd.DataFrame(Xs[:, [10, 44]], columns=["V11", "V45"])
res2d = bcs.classify.tune(two, ys, GaussianNB(), mode="full", search="grid",
                          criterion="cv", cv=5, random_state=42)
print(res2d.summary())
ax = res2d.plot_heatmap()
ax.set_title("sonar V11, V45: Gaussian NB, 5-fold CV accuracy")
ax.figure.savefig(os.path.join(FIGDIR, "classify_heatmap.png"), dpi=90, bbox_inches="tight")
plt.close("all")

# %% [markdown]
# ## 2. Bicego & Baldo (2016): which criterion follows accuracy? (Table 5)
#
# Spherical lambda from -5 to 5 in steps of 0.1. For each of `BCS_HOLDOUT_REPS` random 50/50
# splits: scale into [1, 2] with the training half, transform, standard-scale, and record
# the test accuracy of four PRTools-like classifiers (nearest mean, LDA, Gaussian naive
# Bayes, 1-NN) and the ML, PCML and Fisher criteria on the training half. Curves are averaged
# over splits (accuracy also over classifiers), normalised to [0, 1], and compared by the
# L-infinity distance.

# %%
REPS = int(os.environ.get("BCS_HOLDOUT_REPS", "2" if QUICK else "30"))
LAMBDAS = np.round(np.arange(-5, 5.0001, 1.0 if QUICK else 0.1), 10)
CURVE_CLFS = [NearestCentroid(), LinearDiscriminantAnalysis(), GaussianNB(),
              KNeighborsClassifier(n_neighbors=1)]
BB_PAPER = {"ecoli": (0.583, 0.139, 0.221), "pima": (0.921, 0.921, 0.076),
            "glass_identification": (0.790, 0.768, 0.402), "wine": (0.836, 0.394, 0.349),
            "liver_bupa": (0.377, 0.356, 0.054), "sonar": (0.187, 0.184, 0.264)}


def accuracy_curve(X, y, train, test):
    lo, hi = X[train].min(0), X[train].max(0)
    a, b = scale_unit_range(X[train], lo, hi), scale_unit_range(X[test], lo, hi)
    acc = np.zeros(LAMBDAS.size)
    for k, lam in enumerate(LAMBDAS):
        za, zb = bcs.families.boxcox(a, lam), bcs.families.boxcox(b, lam)
        sc = StandardScaler().fit(za)
        za, zb = sc.transform(za), sc.transform(zb)
        acc[k] = np.mean([c.fit(za, y[train]).score(zb, y[test]) for c in CURVE_CLFS])
    return acc


def bicego_row(name):
    X, y = load_xy(name)
    split = StratifiedShuffleSplit(n_splits=REPS, test_size=0.5, random_state=0)
    acc, crit = [], []
    for train, test in split.split(X, y):
        acc.append(accuracy_curve(X, y, train, test))
        crit.append(criterion_curves(X[train], y[train], ("ml", "pcml", "fisher"),
                                     lmbda=LAMBDAS))
    accuracy = np.mean(acc, axis=0)
    curves = sum(crit) / len(crit)
    curves["accuracy"] = accuracy
    row = {f"Linf {c} (ours)": linf_distance(accuracy, curves[c]) for c in ("ml", "pcml",
                                                                               "fisher")}
    paper = BB_PAPER[name]
    row.update({"Linf ML (paper)": paper[0], "Linf PCML (paper)": paper[1],
                "Linf Fisher (paper)": paper[2],
                "best lambda (accuracy)": float(LAMBDAS[np.argmax(accuracy)]),
                "accuracy at 1": float(accuracy[np.argmin(np.abs(LAMBDAS - 1))]),
                "best accuracy": float(accuracy.max())})
    return row, curves


bb_rows, bb_curves = {}, {}
for name in BB_PAPER if PART != "blum" else ():
    bb_rows[name], bb_curves[name] = bicego_row(name)
if bb_rows:
    bicego = pd.DataFrame(bb_rows).T
    bicego.loc["Avg"] = bicego.mean()
    print(f"\nBicego & Baldo Table 5 style: {REPS} random 50/50 splits, lambda step "
          f"{LAMBDAS[1] - LAMBDAS[0]:.1f}")
    print(bicego.round(3).to_string())

# %%
if bb_curves:
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.5))
    for ax, name in zip(axes, ("pima", "liver_bupa", "wine"), strict=True):
        plot_criterion_curves(bb_curves[name][["accuracy", "ml", "pcml", "fisher"]], ax=ax)
        ax.set_title(name)
    fig.savefig(os.path.join(FIGDIR, "classify_curves.png"), dpi=90, bbox_inches="tight")
    plt.close("all")
print(f"\nfigures in {FIGDIR}; total {time.time() - T0:.0f} s")
