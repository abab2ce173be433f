"""boxcoxstat.robust.model (``fit_robust_columns``): the robust fit of validated columns,
``family="auto"`` choosing per column as cellWise's ``"bestObj"`` does."""

from __future__ import annotations

import numpy as np
import pandas as pd

import boxcoxstat as bcs

from .cellwiseref import ROBUST, TOL


def test_auto_family_matches_cellwise_bestobj():
    # RewML_SPEC section 10: robust bestObj picks BC for T1, YJ for T3 and T4 (smaller
    # criterion)
    x = {c["name"]: np.array(c["x"]) for c in ROBUST if c["type"] == "BC"}
    frame = pd.DataFrame({"T1": np.r_[x["T1"], [np.nan] * 10], "T3": x["T3"],
                          "T4": np.r_[x["T4"], [np.nan] * 5]})
    r = bcs.fit(frame, family="auto", method="rewml")
    assert list(r.families) == ["boxcox", "yeojohnson", "yeojohnson"]
    want = [next(c["lambdahats"] for c in ROBUST if c["name"] == n and c["type"] == t)
            for n, t in (("T1", "BC"), ("T3", "YJ"), ("T4", "YJ"))]
    np.testing.assert_allclose(r.lmbda, want, rtol=0, atol=TOL)
