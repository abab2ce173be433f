"""R's car on Highway1: the reference JSON and the data frame the R script used.

``tests/reference/car_multivariate_reference.R`` wrote ``car_multivariate_reference.json``:
for each case car's own output (``car``; its L-BFGS-B stops up to ~4e-5 short of the optimum)
and values at the optimum of car's own objective found in R by BFGS + Newton steps on an
analytic gradient (``tight``; gradient ~1e-13), including profile-likelihood intervals of
every power (``tight.profile_95``, ``tight.profile_90``). :func:`direct_nll` is the joint
Box-Cox NLL written from its definition, for brute-force references.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import boxcoxstat as bcs

REF = json.loads(
    (Path(__file__).parent.parent / "reference" / "car_multivariate_reference.json").read_text()
)
CASES = [pytest.param(c, id=c["name"]) for c in REF["cases"]]


def highway() -> pd.DataFrame:
    """car's Highway1 with ``shldc = shld - 6`` (negative, zero and positive values)."""
    hw = bcs.datasets.load("highway1")
    hw["shldc"] = hw["shld"] - 6
    return hw


def direct_nll(y: np.ndarray, x: np.ndarray, lam: np.ndarray) -> float:
    """Box-Cox joint NLL straight from the definition: scipy's transform, least-squares
    residuals on the design ``x``, log det of their covariance (divisor n), Jacobian."""
    n = y.shape[0]
    z = np.column_stack([stats.boxcox(y[:, j], lmbda=lam[j]) for j in range(y.shape[1])])
    resid = z - x @ np.linalg.lstsq(x, z, rcond=None)[0]
    _, logdet = np.linalg.slogdet(resid.T @ resid / n)
    return 0.5 * n * logdet - float(np.sum((np.asarray(lam) - 1.0) * np.log(y).sum(axis=0)))
