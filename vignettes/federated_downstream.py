# ---
# jupyter:
#   jupytext:
#     text_representation:
#       format_name: percent
# boxcoxstat:
#   data_not_bundled: [adult.csv, bank_full.csv, credit_default.csv]
# ---

# %% [markdown]
# # Does the power transform help a classifier? (Xu & Cormode 2025, section 6.1)
#
# Xu & Cormode (2025) close their paper with a downstream study: three UCI data sets
# (Table 2: Adult, Bank, Credit), every feature Yeo-Johnson transformed with its
# maximum-likelihood lambda from the training set, then LDA, QDA and logistic regression
# (LR), scored by the test-set ROC AUC against two baselines, standardisation (STD) and the
# raw features (Figures 6 and 9). A second study keeps only the feature with the highest
# mutual information with the label and sweeps its lambda (Figures 7 and 10). This vignette
# repeats both with boxcoxstat's `PowerTransformer` and fitted results.
#
# Protocol. Where the paper or the code it links (github.com/xuefeng-xu/powertf, `train/`)
# states a choice, we follow it:
#
# * string columns ordinal-encoded (categories sorted, codes 0..k-1), the label dropped,
#   every other column a feature -- Credit keeps its `ID` column (24 features, Table 2);
# * one 80/20 split, `train_test_split(test_size=0.2, random_state=42)`;
# * lambda by maximum likelihood on the training rows of each feature, then standardised
#   (scikit-learn's `PowerTransformer()` defaults); STD is `StandardScaler`;
# * `LinearDiscriminantAnalysis()`, `QuadraticDiscriminantAnalysis()` and
#   `LogisticRegression(max_iter=20000, random_state=42)`;
# * the sweep: the feature chosen by `mutual_info_classif` on all rows, 100 lambdas evenly
#   from lambda*(1 - e) to lambda*(1 + e) with e = 500, 300, 200 for Adult, Bank, Credit,
#   each transformed feature standardised with the training rows' mean and SD, LR with
#   scikit-learn's default `max_iter`.
#
# Our choices where neither states one: `mutual_info_classif(random_state=0)` (the paper's
# call is unseeded); LR on the *raw* features stops at 1000 lbfgs iterations instead of
# 20000 (it converges at neither -- on Adult at 20000 it still warns, AUC 0.8215 against
# 0.8149 at 1000 -- and 20000 costs 2.5 minutes per data set; the number only says how far
# lbfgs got on unscaled data). Box-Cox is not compared: every data set has features with
# zeros or negative values (`capital-gain`, `balance`, `BILL_AMT1`), which is why the paper
# uses Yeo-Johnson.
#
# The paper prints its AUCs only in the legends of Figures 6 and 9, which are images; the
# text this package reproduces from carries no AUC values. So the column "pipeline" below is
# the paper's own pipeline (scikit-learn's `PowerTransformer`, which the linked code calls)
# re-run on the same split, and "ours" replaces only the transform by boxcoxstat's. To say
# whether a gap between transforms is real, every (data set, classifier, transform) is also
# scored on five more random 80/20 splits (`random_state` 0..4): "sd" is the split-to-split
# standard deviation of the AUC.
#
# The three files come from the UCI repository (Becker & Kohavi 1996; Moro, Cortez & Rita
# 2014; Yeh & Lien 2009) and are not bundled with boxcoxstat (11 MB). The vignette reads
# `adult.csv`, `bank_full.csv` and `credit_default.csv` from `../shared/data` next to the
# repository or from the folder named by `BOXCOXSTAT_SHARED_DATA`. Figures go to the
# directory in `BCS_FIGURE_DIR` (default: a temporary directory). With
# `BCS_VIGNETTE_QUICK=1` (the test suite) every data set is subsampled to 4000 rows and the
# repetitions are cut.

# %%
from __future__ import annotations

import os
import tempfile
import time
import warnings
from pathlib import Path

import matplotlib

matplotlib.use(os.environ.get("MPLBACKEND", "Agg"))
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.discriminant_analysis import (  # noqa: E402
    LinearDiscriminantAnalysis,
    QuadraticDiscriminantAnalysis,
)
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.feature_selection import mutual_info_classif  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.metrics import roc_auc_score, roc_curve  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.preprocessing import PowerTransformer as SklearnPowerTransformer  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

import boxcoxstat as bcs  # noqa: E402
from boxcoxstat.sklearn import PowerTransformer  # noqa: E402

T0 = time.perf_counter()
QUICK = bool(os.environ.get("BCS_VIGNETTE_QUICK"))
FIGDIR = Path(os.environ.get("BCS_FIGURE_DIR") or tempfile.mkdtemp(prefix="bcs-downstream-"))
FIGDIR.mkdir(parents=True, exist_ok=True)
HERE = Path(__file__).resolve().parent if "__file__" in globals() else Path.cwd()
SHARED = Path(os.environ.get("BOXCOXSTAT_SHARED_DATA") or HERE.parent.parent / "shared" / "data")

ROWS = 4000 if QUICK else None  # subsample (quick run only)
SEEDS = [0, 1] if QUICK else [0, 1, 2, 3, 4]  # the extra splits for the noise
POINTS = 9 if QUICK else 100  # lambdas per sweep
RAW_LR_ITER = 200 if QUICK else 1000
# A few of these columns (capital-loss: 46 distinct values, lambda = -2.5) round-trip only
# to about 2e-8 relative at their exact lambda, and boxcoxstat says so with a
# ResolutionWarning; the study measures classifiers on the exact transforms, so the warning
# is silenced here, on purpose.
warnings.filterwarnings("ignore", category=bcs.ResolutionWarning)

# %% [markdown]
# ## The data (Table 2)

# %%
FILES = {  # name: (file, label column, positive class)
    "adult": ("adult.csv", "income", ">50K"),
    "bank": ("bank_full.csv", "y", "yes"),
    "credit": ("credit_default.csv", "default payment next month", 1),
}


def load(name):
    """Features (strings ordinal-encoded, sorted categories) and the 0/1 label."""
    file, label, positive = FILES[name]
    path = SHARED / file
    if not path.exists():
        raise bcs.BoxCoxError(f"{path} not found: put the UCI file {file} there or name its "
                              "folder in BOXCOXSTAT_SHARED_DATA (see /data/README.md)")
    df = pd.read_csv(path)
    y = (df.pop(label) == positive).to_numpy(dtype=int)
    for col in df.columns:
        if not pd.api.types.is_numeric_dtype(df[col]):
            codes = {c: i for i, c in enumerate(sorted(df[col].unique()))}
            df[col] = df[col].map(codes)
    X = df.astype(float)
    if ROWS is not None:
        keep = np.sort(np.random.default_rng(0).choice(len(X), ROWS, replace=False))
        X, y = X.iloc[keep].reset_index(drop=True), y[keep]
    return X, y


data = {name: load(name) for name in FILES}
for name, (X, y) in data.items():
    print(f"{name:<7}{X.shape[0]:>7} rows {X.shape[1]:>3} features, positive rate "
          f"{y.mean():.3f}")

# %% [markdown]
# ## AUC of every classifier and transform (Figures 6 and 9)

# %%
CLASSIFIERS = {
    "LDA": LinearDiscriminantAnalysis,
    "QDA": QuadraticDiscriminantAnalysis,
    "LR": lambda: LogisticRegression(max_iter=20000, random_state=42),
}


def transforms(Xtr, Xte):
    """(train, test) features under each transform; the transforms see training rows only."""
    std = StandardScaler().fit(Xtr)
    ours = PowerTransformer(method="yeo-johnson").fit(Xtr)
    theirs = SklearnPowerTransformer(method="yeo-johnson").fit(Xtr)
    out = {
        "Raw": (Xtr.to_numpy(), Xte.to_numpy()),
        "STD": (std.transform(Xtr), std.transform(Xte)),
        "YJ": (np.asarray(ours.transform(Xtr)), np.asarray(ours.transform(Xte))),
        "YJ-sklearn": (theirs.transform(Xtr), theirs.transform(Xte)),
    }
    return out, ours.lambdas_, theirs.lambdas_


def score(clf_name, tname, Xtr, Xte, ytr, yte):
    """Test AUC and the test-set scores of one classifier on one transform."""
    if clf_name == "LR" and tname == "Raw":
        clf = LogisticRegression(max_iter=RAW_LR_ITER, random_state=42)
        with warnings.catch_warnings():  # lbfgs does not converge on unscaled data
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf.fit(Xtr, ytr)
    else:
        clf = CLASSIFIERS[clf_name]().fit(Xtr, ytr)
    p = clf.predict_proba(Xte)[:, 1]
    return roc_auc_score(yte, p), p


auc = {}  # (dataset, classifier, transform) -> AUC on the paper's split
roc = {}
lam_gap = {}
for name, (X, y) in data.items():
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, random_state=42)
    feats, lam_ours, lam_sk = transforms(Xtr, Xte)
    lam_gap[name] = float(np.max(np.abs(lam_ours - lam_sk) / np.maximum(1, np.abs(lam_sk))))
    for clf_name in CLASSIFIERS:
        for tname, (a, b) in feats.items():
            auc[name, clf_name, tname], p = score(clf_name, tname, a, b, ytr, yte)
            roc[name, clf_name, tname] = roc_curve(yte, p)[:2]
    print(f"{name}: lambdas {np.round(lam_ours, 3).tolist()}")
    print(f"{name}: largest lambda difference to scikit-learn's {lam_gap[name]:.1e} "
          "(relative)")

# split-to-split noise: the same study on more random 80/20 splits (STD and YJ)
rep = {}
for name, (X, y) in data.items():
    for seed in SEEDS:
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, random_state=seed)
        feats, _, _ = transforms(Xtr, Xte)
        for clf_name in CLASSIFIERS:
            for tname in ("STD", "YJ"):
                a, b = feats[tname]
                rep.setdefault((name, clf_name, tname), []).append(
                    score(clf_name, tname, a, b, ytr, yte)[0])

print()
print(f"{'dataset':<8}{'clf':<5}{'transform':<10}{'pipeline':>9}{'ours':>8}{'diff':>10}"
      f"{'sd':>8}")
for (name, clf_name, tname), value in auc.items():
    if tname == "YJ-sklearn":
        continue
    ref = auc[name, clf_name, "YJ-sklearn"] if tname == "YJ" else value
    sd = np.std(rep[name, clf_name, tname], ddof=1) if tname in ("STD", "YJ") else np.nan
    print(f"{name:<8}{clf_name:<5}{tname:<10}{ref:>9.4f}{value:>8.4f}{value - ref:>10.1e}"
          f"{sd:>8.4f}")

# %% [markdown]
# "pipeline" is the AUC with scikit-learn's `PowerTransformer` in the YJ rows (and the
# same number as "ours" in the Raw and STD rows, which boxcoxstat does not touch). Ours
# equals it: both find the same lambdas (the largest relative difference is printed above)
# and AUC depends only on the ranks of the scores.
#
# Is the transform better than standardising? The paired difference YJ - STD on each split
# (the same rows for both), its mean and SD over the splits:

# %%
print(f"{'dataset':<8}{'clf':<5}{'YJ-STD (paper split)':>21}{'mean':>9}{'sd':>8}  verdict")
verdicts = {}
for name in data:
    for clf_name in CLASSIFIERS:
        d = np.subtract(rep[name, clf_name, "YJ"], rep[name, clf_name, "STD"])
        mean, sd = d.mean(), d.std(ddof=1)
        se = sd / np.sqrt(d.size)
        verdict = ("YJ better" if mean > 2 * se else "YJ worse" if mean < -2 * se
                   else "within noise")
        verdicts[name, clf_name] = verdict
        print(f"{name:<8}{clf_name:<5}"
              f"{auc[name, clf_name, 'YJ'] - auc[name, clf_name, 'STD']:>+21.4f}"
              f"{mean:>+9.4f}{sd:>8.4f}  {verdict}")
same = all(abs(auc[n, c, "Raw"] - auc[n, c, "STD"]) < 1e-9 for n in data for c in ("LDA", "QDA"))
print("LDA and QDA give the same AUC on Raw and STD (affine invariant):", same)

# %% [markdown]
# What this shows (full run: the numbers quoted are from it; the quick run's are noisier):
#
# * LDA and QDA are invariant to rescaling a feature, so STD and Raw give the same AUC for
#   them; the paper's two baselines differ only for LR.
# * LDA and LR gain from the transform on all three data sets, by more than the
#   split-to-split noise (YJ - STD on the paper's split: LDA +0.012, +0.014, +0.027 and LR
#   +0.004, +0.018, +0.023 for Adult, Bank, Credit; the split-to-split SD of the paired
#   difference is 0.0015 to 0.003). The paper's "power transforms consistently outperform
#   the baselines, although the improvements are modest" holds for them.
# * QDA gains on Bank (+0.033) and is within the noise on Credit (+0.008, SD 0.006), but
#   on Adult the transform *lowers* its AUC (0.8745 -> 0.8644, SD of the difference
#   0.0006): a real difference from the paper's claim. It comes from one feature,
#   `capital-gain`: 92% of its values are 0, and the maximum-likelihood lambda (-1.36)
#   makes the column as Gaussian as a point mass allows by squeezing the 118 distinct
#   non-zero gains (114 to 99,999) into [0.7336, 0.7347] -- the feature becomes
#   "zero or not", and QDA, which used the size of the gain, loses it. Transforming every
#   feature except `capital-gain` gives QDA 0.8761; transforming only it, 0.8630
#   (measured on the paper's split while writing this vignette). The code the paper
#   links trains XGBoost, not QDA, so the paper's QDA panels cannot be traced to its code.
# * LR on the raw features is far below STD on Adult and Credit: not a property of the
#   model, but of lbfgs stopping before it converges on unscaled features.

# %%
fig, axes = plt.subplots(3, 3, figsize=(10, 10), sharex=True, sharey=True)
for i, name in enumerate(data):
    for j, clf_name in enumerate(CLASSIFIERS):
        ax = axes[i, j]
        for tname, ls in (("YJ", "-"), ("STD", "--"), ("Raw", ":")):
            fpr, tpr = roc[name, clf_name, tname]
            ax.plot(fpr, tpr, ls=ls, label=f"{tname} (AUC = {auc[name, clf_name, tname]:.3f})")
        ax.plot([0, 1], [0, 1], color="0.8", lw=0.8)
        ax.set_title(f"{name.title()} ({clf_name})", fontsize=10)
        ax.legend(fontsize=7, loc="lower right")
for ax in axes[-1]:
    ax.set_xlabel("false positive rate")
for ax in axes[:, 0]:
    ax.set_ylabel("true positive rate")
fig.suptitle("Figures 6 and 9: ROC on the test split")
fig.tight_layout()
fig.savefig(FIGDIR / "downstream_roc.png", dpi=100)
plt.close(fig)

# %% [markdown]
# ## AUC against lambda (Figures 7 and 10)
#
# One feature per data set (the highest mutual information with the label), Yeo-Johnson
# with a fixed lambda from a grid around the training set's lambda*, standardised, then
# each classifier. `result.at(lmbda)` fixes the power of a fitted result without
# re-estimating it.

# %%
EPS = {"adult": 500, "bank": 300, "credit": 200}
SWEEP_CLASSIFIERS = {
    "LDA": LinearDiscriminantAnalysis,
    "QDA": QuadraticDiscriminantAnalysis,
    "LR": lambda: LogisticRegression(random_state=42),
}
sweep = {}
failed = 0
print(f"{'dataset':<8}{'feature':<14}{'lambda*':>9}{'clf':>5}{'raw AUC':>9}{'at lambda*':>11}"
      f"{'best':>8}{'at lambda':>11}{'distinct':>9}{'worst':>8}")
for name, (X, y) in data.items():
    mi = mutual_info_classif(X, y, random_state=0)
    feat = X.columns[int(np.argmax(mi))]
    xtr, xte, ytr, yte = train_test_split(X[feat].to_numpy(), y, test_size=0.2,
                                          random_state=42)
    raw_auc = roc_auc_score(yte, xte)
    fitted = bcs.fit(xtr, family="yeojohnson")
    lam_star = fitted.lmbda
    grid = np.linspace(lam_star * (1 - EPS[name]), lam_star * (1 + EPS[name]), POINTS)
    grid = np.sort(np.append(grid, lam_star))
    for clf_name, make in SWEEP_CLASSIFIERS.items():
        values = np.full(grid.size, np.nan)
        distinct = np.zeros(grid.size, dtype=int)  # distinct test-set scores
        for i, lam in enumerate(grid):
            at = fitted.at(lam)
            a, b = at.transform(xtr), at.transform(xte)
            mu, sd = a.mean(), a.std()
            try:
                clf = make().fit(((a - mu) / sd)[:, None], ytr)
            except np.linalg.LinAlgError:  # QDA: a class's transformed values all equal
                failed += 1
                continue
            p = clf.predict_proba(((b - mu) / sd)[:, None])[:, 1]
            values[i], distinct[i] = roc_auc_score(yte, p), np.unique(p).size
        sweep[name, clf_name] = (feat, lam_star, grid, values)
        k = int(np.nanargmax(values))
        s = int(np.flatnonzero(grid == lam_star)[0])
        print(f"{name:<8}{feat:<14}{lam_star:>9.4f}{clf_name:>5}"
              f"{max(raw_auc, 1 - raw_auc):>9.4f}{values[s]:>11.4f}{values[k]:>8.4f}"
              f"{grid[k]:>11.3g}{distinct[k]:>5}/{distinct[s]:<3}{np.nanmin(values):>8.4f}")
print(f"QDA fits refused (a class's transformed values all equal in float64): {failed}")

fig, axes = plt.subplots(3, 3, figsize=(10, 9))
for i, name in enumerate(data):
    for j, clf_name in enumerate(SWEEP_CLASSIFIERS):
        feat, lam_star, grid, values = sweep[name, clf_name]
        ax = axes[i, j]
        ax.plot(grid, values, lw=1.2)
        ax.axvline(lam_star, color="k", ls=":", label=f"lambda* = {lam_star:.3g}")
        ax.set_title(f"{name.title()}: {feat} ({clf_name})", fontsize=10)
        ax.set_xlabel("lambda")
        ax.set_ylabel("AUC")
        ax.legend(fontsize=7)
fig.suptitle("Figures 7 and 10: AUC against lambda, one feature")
fig.tight_layout()
fig.savefig(FIGDIR / "downstream_lambda.png", dpi=100)
plt.close(fig)

# %% [markdown]
# The features are the ones the paper's code selects: `relationship` (Adult), `duration`
# (Bank) and `PAY_0` (Credit). Read the sweep with one fact in mind: with a single feature,
# LDA and LR score every row by an increasing (or decreasing) function of it, and
# Yeo-Johnson is increasing in x at every lambda, so in exact arithmetic their AUC is the
# raw feature's at *every* lambda (or 1 minus it if the fitted direction flips). The table
# shows it: at lambda* the AUC of LDA and LR is the raw feature's ("raw AUC"). Where the
# curve moves, one of two things happens. The fitted direction flips: a strong transform
# can reverse the order of the two classes' means, and the AUC becomes 1 minus the raw one
# (the values below 0.5). Or float64 is at work: far from lambda* the transformed values,
# or the predicted probabilities, round to equal numbers and rows become ties ("distinct"
# counts the distinct test-set scores at the best lambda / at lambda*). On Adult the best
# AUC (0.757 at lambda = -177, against 0.714 at lambda*) is such a case: `relationship`
# has six ordinal codes, and at lambda = -177 the codes 1 to 5 become equal to the last
# bit or two (0.00566422), which merges five categories into one
# -- a better grouping for this label, found by accident. This is the paper's
# "lambda* does not always yield the absolute highest AUC (e.g., Adult)"; it is not evidence
# that another lambda normalises better. Only QDA, whose score is quadratic in the
# feature, can genuinely prefer one lambda: on Credit its AUC at lambda* is 0.692 against
# 0.705 at lambda = 17.8. QDA refuses to fit where one class's transformed values are all
# equal in float64 (counted above); those lambdas are gaps in the curve.

# %%
print(f"ran in {time.perf_counter() - T0:.0f} s; figures written to {FIGDIR}")
