"""The gate's rules for ``PowerTransformer``'s features: scikit-learn's behaviour on constant
and empty features, the package's checks (and messages) for the rest.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ..exceptions import BoxCoxError
from .columns import DEGENERATE_SPREAD, ColumnReport, Columns, check_column

__all__ = ["as_features", "check_feature", "FEATURE_REMEDY"]


FEATURE_REMEDY = "use method='yeo-johnson' or shift the data"  # scikit-learn's family names


def as_features(values: NDArray[np.float64], names: list[str], *, family: str,
                weights: NDArray[np.float64] | None = None, layout: str = "array2d"
                ) -> tuple[Columns, NDArray[np.intp]]:
    """Validate a float matrix for ``PowerTransformer`` (scikit-learn's rules): the features
    that are fitted, as :class:`Columns`, and their positions.

    ``values`` is the matrix scikit-learn's ``validate_data`` returned (a private copy), with
    ``weights`` its frequency weights (rows of weight 0 do not count). As scikit-learn's
    transformer does, a constant feature is not fitted (it keeps lambda 1 under
    Yeo-Johnson; its position is missing from the positions returned) and is refused under
    Box-Cox; a feature without values is refused ("Column must not be all nan"), and so is a
    Box-Cox feature with values < 0 ("Negative values in data", what scikit-learn's
    positive-only estimators raise). Every other rule is the gate's (:func:`check_column`,
    ``tiny_scale``), with its messages naming the feature.
    """
    present = ~np.isnan(values) if weights is None else ~np.isnan(values) & (
        weights[:, None] > 0)
    count = present.sum(axis=0)
    lo = np.where(present, values, np.inf).min(axis=0)
    hi = np.where(present, values, -np.inf).max(axis=0)
    constant = (count > 0) & (lo == hi)
    # the gate's rules, evaluated for all features at once; a feature that may fail one
    # goes through check_column itself (its messages). The spread is relative to the values
    # for both families: a sample's profile reaches the inverse of a Yeo-Johnson range.
    top = np.maximum(np.abs(lo), np.abs(hi))
    with np.errstate(invalid="ignore"):  # inf - inf for a feature with no values
        spread = np.divide(hi - lo, top, out=np.zeros_like(hi), where=top > 0)
    suspect = (count == 0) | (spread < 10 * DEGENERATE_SPREAD) | (hi - lo < 1e-290)
    if family == "boxcox":
        suspect |= constant | (lo <= 0)
    for j in np.flatnonzero(suspect):
        _check_feature(values[:, j], present[:, j], names[j], family, bool(constant[j]),
                       int(count[j]))
    fitted = np.flatnonzero(~constant)
    cols = Columns(values[:, fitted], [names[j] for j in fitted], None, layout,
                   np.isnan(values[:, fitted]).sum(axis=0).astype(np.int64))
    return cols, fitted


def _check_feature(col: NDArray[np.float64], present: NDArray[np.bool_], name: str,
                   family: str, constant: bool, count: int) -> None:
    """The package's error for a feature that cannot be fitted (none if it can)."""
    if count == 0:
        raise BoxCoxError(f"Column must not be all nan: feature {name!r} has no "
                          "values (all missing, or all with weight 0)")
    report = ColumnReport.of(np.where(present, col, np.nan))
    fam_j = "boxcox" if family == "boxcox" else "yeojohnson"
    if family == "boxcox" and constant:
        check_feature(report, name, fam_j, spread=False)
        what = "one sample" if count == 1 else f"{count} equal values"
        raise BoxCoxError(f"feature {name!r} has {what} ({report.lo!r}); Box-Cox needs at "
                          "least 2 distinct values (method='yeo-johnson' leaves a "
                          "constant feature unchanged)")
    if family == "auto" and not constant and report.lo > 0:
        fam_j = "boxcox"
    check_feature(report, name, fam_j, spread=not constant)


def check_feature(report: ColumnReport, name: str, family: str, *, spread: bool,
                  min_n: int = 1) -> None:
    """:func:`check_column` for a feature, its error for a Box-Cox feature with values < 0
    led by scikit-learn's words for it ("Negative values in data", what its positive-only
    estimators raise and its ``check_positive_only_tag_during_fit`` looks for)."""
    try:
        check_column(report, name, family=family, min_n=min_n, remedy=FEATURE_REMEDY,
                     spread=spread, tiny_scale=True)
    except BoxCoxError as err:
        if family == "boxcox" and report.n_nonpositive and report.lo < 0:
            raise BoxCoxError(f"Negative values in data: {err}") from None
        raise
