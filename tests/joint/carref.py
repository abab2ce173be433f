"""R's car on Highway1: the reference JSON and the data frame the R script used.

``tests/reference/car_multivariate_reference.R`` wrote ``car_multivariate_reference.json``:
for each case car's own output (``car``; its L-BFGS-B stops up to ~4e-5 short of the optimum)
and values at the optimum of car's own objective found in R by BFGS + Newton steps on an
analytic gradient (``tight``; gradient ~1e-13), including profile-likelihood intervals of
every power (``tight.profile_95``, ``tight.profile_90``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

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
