"""The gate: every entry point reads its input here, once.

Reading any container (pandas, polars and other DataFrames, NumPy and masked arrays, lists:
:mod:`~boxcoxstat._validation.containers`, which also recognises Dask and Spark collections
without importing them), the columns and their checks (:mod:`~boxcoxstat._validation.columns`;
scikit-learn's rules for ``PowerTransformer``'s features in
:mod:`~boxcoxstat._validation.features`), option checks, and the estimator table's lookup and
its one refusal (:mod:`~boxcoxstat._validation.routes`; the table is ``boxcoxstat.api.TABLE``).
"""

from ..exceptions import BoxCoxError
from .columns import (
    ColumnReport,
    Columns,
    as_columns,
    case_weights,
    check_bounds,
    check_column,
    check_number,
    check_option,
    new_columns,
    normalize_family,
)
from .containers import container_of, is_dask, is_spark, to_matrix
from .routes import admit

__all__ = ["BoxCoxError", "ColumnReport", "Columns", "as_columns", "case_weights",
           "check_bounds", "check_column", "check_number", "check_option", "new_columns",
           "normalize_family", "container_of", "is_dask", "is_spark", "to_matrix", "admit"]
