"""boxcoxstat.robust.model (``fit_robust_columns``): the robust fit of validated columns,
``family="auto"`` choosing per column as cellWise's ``"bestObj"`` does, and columns without
a robust scale (constant, MAD 0) left out and reported as cellWise's ``transfo`` drops them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs
from boxcoxstat.datasets import load

from .cellwiseref import ROBUST, TOL


def test_auto_family_matches_cellwise_bestobj():
    # RewML_SPEC section 10: robust bestObj picks BC for T1, YJ for T3 and T4 (smaller
    # criterion)
    x = {c["name"]: np.array(c["x"]) for c in ROBUST if c["type"] == "BC"}
    frame = pd.DataFrame({"T1": np.r_[x["T1"], [np.nan] * 10], "T3": x["T3"],
                          "T4": np.r_[x["T4"], [np.nan] * 5]})
    r = bcs.fit(frame, family="auto", method="rewml")
    assert list(r._families) == ["boxcox", "yeojohnson", "yeojohnson"]
    want = [next(c["lambdahats"] for c in ROBUST if c["name"] == n and c["type"] == t)
            for n, t in (("T1", "BC"), ("T3", "YJ"), ("T4", "YJ"))]
    np.testing.assert_allclose(r.lmbda, want, rtol=0, atol=TOL)


# --- columns without a robust scale are left out and reported (issue 29, item 7) -----------
def _glass(last="V40"):
    return load("glass_spectra").loc[:, :last]


def _no_robust_scale(frame):
    """The columns cellWise's checkDataSet would drop for their scale, computed directly:
    constant, or MAD 0 (at least half the values equal the median)."""
    constant = [c for c in frame if frame[c].nunique() == 1]
    mad0 = [c for c in frame if (frame[c] - frame[c].median()).abs().median() == 0]
    return constant, [c for c in mad0 if c not in constant]


def test_glass_columns_without_scale_are_skipped_and_reported_gh29():
    """RewML on the glass spectra fits the columns it can and reports the others (was: the
    error "column 'V1' is constant", then "'V3' ... MAD = 0")."""
    glass = _glass()
    constant, mad0 = _no_robust_scale(glass)
    assert constant == ["V1", "V2", "V5", "V6", "V8", "V9", "V10", "V11"]
    assert mad0 == ["V3", "V4", "V7", "V12", "V13"]
    r = bcs.fit(glass, family="yeojohnson", method="rewml")
    assert list(r.skipped) == constant + mad0
    assert all(r.skipped[c] == "constant (every value is 0.1)" for c in constant)
    assert all("MAD = 0" in r.skipped[c] for c in mad0)
    assert list(r.lmbda.index) == [f"V{j}" for j in range(14, 41)]
    assert r.weights.shape == (180, 27) and list(r.outliers) == list(r.lmbda.index)
    text = str(r.summary())
    assert "Not fitted: 13 of 40 columns" in text
    assert "V1, V2, V5, V6, V8, V9, V10, V11: constant (every value is 0.1)" in text
    assert "V3, V4, V7, V12, V13: at least half of its 180 values equal its median 0.1" in text
    assert repr(r).endswith("13 not fitted>")
    back = bcs.RobustTransformResult.from_json(r.to_json())
    assert back.skipped == r.skipped and list(back.names) == list(r.names)


def test_glass_fitted_columns_have_their_numbers_alone_gh29():
    """Each fitted column gets the numbers it gets without the skipped columns beside it,
    and alone."""
    glass = _glass()
    r = bcs.fit(glass, family="yeojohnson", method="rewml")
    rest = bcs.fit(glass.loc[:, "V14":], family="yeojohnson", method="rewml")
    # the same per-column arithmetic on the same values; 1e-12 allows for a vectorised
    # reduction's summation order, nothing more
    for name in ("_lmbda_used", "_objective_values", "_location_values", "_scale_values",
                 "_muhat_values", "_sigmahat_values", "_locx_values", "_scalex_values"):
        np.testing.assert_allclose(getattr(r, name), getattr(rest, name), rtol=1e-12,
                                   err_msg=name)
    pd.testing.assert_frame_equal(r.weights, rest.weights)
    for col in ("V14", "V26"):  # V26: 32 flagged rows
        alone = bcs.fit(glass[col], family="yeojohnson", method="rewml")
        assert r.lmbda[col] == pytest.approx(alone.lmbda, rel=1e-12)
        assert r.outliers[col] == alone.outliers
    pd.testing.assert_frame_equal(r.transform(glass), rest.transform(glass.loc[:, "V14":]))


def test_transform_refuses_arrays_with_the_skipped_columns_gh29():
    glass = _glass()
    r = bcs.fit(glass, family="yeojohnson", method="rewml")
    with pytest.raises(bcs.BoxCoxError, match=r"40 columns given, but the fit left out "
                                              r"\['V1', 'V2'.*pass those columns only"):
        r.transform(glass.to_numpy())
    out = r.transform(glass.loc[:, "V14":].to_numpy())  # the fitted columns: fine
    assert out.shape == (180, 27)


@pytest.mark.parametrize("method", ["rewml", "carroll", "mtl"])
@pytest.mark.parametrize("family", ["boxcox", "yeojohnson", "auto"])
def test_every_robust_method_skips_and_reports_gh29(method, family):
    x = np.exp(np.linspace(-2.0, 2.0, 60))
    frame = pd.DataFrame({"a": x, "flat": 2.5, "tied": np.r_[np.full(40, 3.0), x[:20]],
                          "b": x[::-1] ** 2})
    before = frame.copy()
    r = bcs.fit(frame, family=family, method=method)
    assert list(r.names) == ["a", "b"] and list(r.skipped) == ["flat", "tied"]
    pd.testing.assert_frame_equal(frame, before)  # the caller's data are untouched
    alone = bcs.fit(frame[["a", "b"]], family=family, method=method)
    np.testing.assert_allclose(r._lmbda_used, alone._lmbda_used, rtol=1e-12)  # as above


def test_nothing_left_to_fit_is_an_error_naming_the_columns_gh29():
    with pytest.raises(bcs.BoxCoxError, match=r"no column can be fitted: 'V1': constant.*"
                                              r"'V13': at least half"):
        bcs.fit(_glass("V13"), family="yeojohnson", method="rewml")
    # one column: the error it always gave
    with pytest.raises(bcs.BoxCoxError, match=r"column 'V1' is constant \(0.1\)"):
        bcs.fit(_glass()["V1"], family="yeojohnson", method="rewml")
    with pytest.raises(bcs.BoxCoxError, match=r"column 'V3': at least half.*MAD = 0"):
        bcs.fit(_glass()["V3"], family="yeojohnson", method="rewml")


@pytest.mark.slow
def test_full_glass_data_gh29():
    """All 750 wavelengths of cellWise's data_glass: 13 left out, 737 fitted."""
    glass = load("glass_spectra")
    r = bcs.fit(glass, family="yeojohnson", method="rewml")
    constant, mad0 = _no_robust_scale(glass)
    assert list(r.skipped) == constant + mad0 and len(r.skipped) == 13
    assert len(r.names) == 737 and np.all(np.isfinite(r._lmbda_used))
