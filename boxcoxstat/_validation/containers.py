"""Read any container of data into a float matrix: pandas, NumPy (masked arrays too), nested
lists, and the DataFrames of other libraries (polars, pyarrow...) through narwhals.

Also recognises the partitioned collections that are fitted where they live (Dask arrays and
DataFrames, Spark DataFrames) without importing their library: by the module name of the
object's type (:func:`is_dask`, :func:`is_spark`).

Imports only ``exceptions``. Columns that are not real numbers are refused by name; no
statistical checks are made here (``_validation.columns.as_columns`` makes them).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, NoReturn

import numpy as np
from numpy.typing import NDArray

from ..exceptions import BoxCoxError

__all__ = ["POLARS_EXTRA", "native_frame", "like_native", "select_columns", "as_pandas_frame",
           "to_matrix", "is_dask", "is_spark", "container_of"]

_FRAME_LIBRARIES = ("polars", "pyarrow", "modin", "cudf", "pyspark", "duckdb", "ibis", "daft")
POLARS_EXTRA = "pip install 'boxcoxstat[polars]'"


def is_dask(data: Any) -> bool:
    """True for Dask collections (checked by module name; Dask need not be installed).

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat._validation.containers import is_dask
    >>> is_dask(np.ones(3))
    False
    """
    mod = type(data).__module__.split(".")[0]
    return mod in ("dask", "dask_expr") and hasattr(data, "__dask_graph__")


def is_spark(data: Any) -> bool:
    """True for a Spark DataFrame (checked by module name; pyspark need not be installed)."""
    cls = type(data)
    return cls.__module__.split(".")[0] == "pyspark" and cls.__name__ == "DataFrame"


def container_of(data: Any) -> str:
    """Where ``data`` is fitted: ``"dask"``, ``"spark"`` (partition by partition, never
    gathered) or ``"memory"`` (everything else, read by :func:`to_matrix`)."""
    return "dask" if is_dask(data) else "spark" if is_spark(data) else "memory"


def native_frame(data: Any) -> Any:
    """``data`` as a narwhals DataFrame or Series when it is an eager DataFrame or Series of a
    library other than pandas (polars, pyarrow, modin, cuDF...), else ``None``.

    Raises ``BoxCoxError`` naming the extra to install when such an object arrives and
    narwhals is missing.
    """
    library = type(data).__module__.split(".")[0]
    if library in ("numpy", "builtins", "pandas"):
        return None
    try:
        import narwhals.stable.v1 as nw
    except ImportError:
        if library in _FRAME_LIBRARIES:
            raise BoxCoxError(f"{library} input needs narwhals: {POLARS_EXTRA}") from None
        return None
    obj = nw.from_native(data, eager_only=True, pass_through=True, allow_series=True)
    return None if obj is data else obj


def like_native(out: NDArray[np.float64], names: list[str] | tuple[str, ...], like: Any) -> Any:
    """``out`` (n, p) as the same kind of object as ``like`` (a non-pandas DataFrame or Series,
    see :func:`native_frame`) with columns ``names``; ``None`` when ``like`` is not one."""
    frame = native_frame(like)
    if frame is None:
        return None
    import narwhals.stable.v1 as nw

    backend = nw.get_native_namespace(frame)
    if isinstance(frame, nw.Series):
        return nw.new_series(frame.name, out[:, 0], backend=backend).to_native()
    return nw.from_numpy(out, schema=list(names), backend=backend).to_native()


def _native_matrix(frame: Any, booleans: bool = True) -> tuple[NDArray, list[str], Any, str]:
    """The columns of a narwhals DataFrame or Series as floats (nulls become NaN)."""
    import narwhals.stable.v1 as nw

    if isinstance(frame, nw.Series):
        name = "x" if not frame.name else str(frame.name)
        return _native_column(frame, name, booleans)[:, None], [name], None, "series"
    names = [str(c) for c in frame.columns]
    if not names:
        raise BoxCoxError("the DataFrame has no columns")
    cols = [_native_column(frame.get_column(c), str(c), booleans) for c in frame.columns]
    return np.column_stack(cols), names, None, "frame"


def _native_column(s: Any, name: str, booleans: bool = True) -> NDArray[np.float64]:
    import narwhals.stable.v1 as nw

    if isinstance(s.dtype, (nw.Categorical, nw.Enum)):
        raise BoxCoxError(
            f"column {name!r} is categorical; encode it as numbers first or leave it out"
        )
    if s.dtype == nw.Boolean and not booleans:
        _refuse_kind("b", name)
    if s.dtype.is_numeric() or s.dtype == nw.Boolean:
        return np.array(s.cast(nw.Float64).to_numpy(), dtype=np.float64, copy=True)
    raise BoxCoxError(f"column {name!r} is not numeric (dtype {s.dtype}); encode it as numbers "
                      "first or leave it out")


def select_columns(data: Any, names: list[str] | tuple[str, ...]) -> Any:
    """Columns ``names`` of a pandas or other DataFrame (matched by name, in that order), or
    ``None`` when ``data`` is not a DataFrame. Raises ``BoxCoxError`` naming absent columns."""
    import pandas as pd

    frame = data if isinstance(data, pd.DataFrame) else native_frame(data)
    if frame is None or not hasattr(frame, "columns") or isinstance(data, pd.Series):
        return None
    have = {str(c): c for c in frame.columns}
    absent = [n for n in names if n not in have]
    if absent:
        raise BoxCoxError(f"the data lack column(s) {absent} that were fitted; they have "
                          f"{list(have)}")
    if isinstance(data, pd.DataFrame):
        return data[[have[n] for n in names]]
    return frame.select([have[n] for n in names])


def as_pandas_frame(data: Any) -> Any:
    """A DataFrame of another library (polars, pyarrow...) as a pandas DataFrame, column by
    column (strings stay strings, nulls become missing); anything else is returned as is.

    For the entry points that evaluate formulas on a DataFrame (``fit_joint``, ``lm``).
    """
    frame = native_frame(data)
    if frame is None or not hasattr(frame, "columns"):
        return data
    import pandas as pd

    return pd.DataFrame({str(c): frame.get_column(c).to_numpy() for c in frame.columns})


def to_matrix(data: Any, *, booleans: bool = True,
              copy: bool = True) -> tuple[NDArray, list[str], Any, str]:
    """Float matrix (private copy), column names, row index and input layout of ``data``.

    pandas and NumPy are read directly; a DataFrame or Series of another library (polars,
    pyarrow...) through narwhals (:func:`native_frame`), its column names kept. A NumPy masked
    array's masked entries become missing (NaN). Raises ``BoxCoxError`` for columns that are
    not real numbers (:func:`_numeric`: datetimes, durations, text, categories, booleans,
    complex numbers), ragged nested lists, integers beyond the float64 range, data without
    columns and bad shapes; does no statistical checks (see :func:`as_columns` for those).
    Booleans are read as 0/1 unless ``booleans=False`` (the fit's gate: an indicator has no
    power transform).

    ``copy=False`` (the gate of a fit, which only reads its data): a float64 NumPy array,
    1-D or C-ordered 2-D, without masked entries, that nobody can change later (neither it nor
    any array it views is writeable) is returned as a read-only view, not copied (a copy of
    1e7 values costs about one ``np.log`` pass). A result keeps its data, so anything the
    caller could change in place after the fit is copied: a writeable array, and pandas
    data (pandas' copy-on-write does not protect a NumPy view of a Series: a later write to
    the Series is seen through it). Everything else is converted into a new array as with
    ``copy=True``.
    """
    import pandas as pd

    if not isinstance(data, (pd.Series, pd.DataFrame, np.ndarray, list, tuple)):
        frame = native_frame(data)
        if frame is not None:
            return _native_matrix(frame, booleans)

    if isinstance(data, pd.Series):
        name = "x" if data.name is None else str(data.name)
        return _series_values(data, name, booleans)[:, None], [name], data.index, "series"
    if isinstance(data, pd.DataFrame):
        if data.shape[1] == 0:
            raise BoxCoxError("the DataFrame has no columns")
        names = [str(c) for c in data.columns.tolist()]  # (iterating an Index is 30x slower)
        counts = Counter(names)
        dup = sorted(n for n, k in counts.items() if k > 1)
        if dup:
            raise BoxCoxError(f"the DataFrame has duplicate column names {dup}; rename them")
        if all(isinstance(dt, np.dtype) and dt.kind in "iuf" for dt in data.dtypes):
            # plain NumPy integer and float columns: one conversion (no pd.NA can occur)
            values = np.array(data.to_numpy(dtype=np.float64), dtype=np.float64, order="C")
            return values, names, data.index, "frame"
        cols = [_series_values(data.iloc[:, j], names[j], booleans) for j in range(len(names))]
        return np.column_stack(cols), names, data.index, "frame"
    arr, mask = _as_array(data)
    if arr.ndim == 0:
        raise BoxCoxError("expected a sequence of numbers, got a scalar")
    if not copy and mask is None and arr.dtype == np.float64 and _unchangeable(arr) and (
            arr.ndim == 1 or arr.ndim == 2 and arr.shape[1] and arr.flags.c_contiguous):
        view = _read_only(arr)
        if arr.ndim == 1:
            return view[:, None], ["x"], None, "array1d"
        return view, [f"x{j}" for j in range(arr.shape[1])], None, "array2d"
    if arr.ndim == 1:
        return _masked(_numeric(arr, "x", booleans)[:, None], mask, 1), ["x"], None, "array1d"
    if arr.ndim == 2:
        if arr.shape[1] == 0:
            raise BoxCoxError(f"the data have no columns (shape {arr.shape}); pass at least "
                              "one column")
        names = [f"x{j}" for j in range(arr.shape[1])]
        cols = [_numeric(arr[:, j], names[j], booleans) for j in range(arr.shape[1])]
        return _masked(np.column_stack(cols), mask, 2), names, None, "array2d"
    raise BoxCoxError(f"expected 1-D or 2-D data, got an array with {arr.ndim} dimensions")


def _unchangeable(arr: NDArray) -> bool:
    """Nothing can write to ``arr``'s memory through NumPy: neither it nor any array it is a
    view of is writeable (and the chain ends in an array that owns its data or in bytes)."""
    a: Any = arr
    while isinstance(a, np.ndarray):
        if a.flags.writeable:
            return False
        a = a.base
    return a is None or isinstance(a, bytes)


def _read_only(values: NDArray[np.float64]) -> NDArray[np.float64]:
    """A read-only view of ``values`` (the caller's array keeps its own flags)."""
    view = values.view(np.ndarray)
    view.flags.writeable = False
    return view


def _as_array(data: Any) -> tuple[NDArray, NDArray[np.bool_] | None]:
    """``data`` as an array and, for a masked array, its mask (``None`` when nothing is
    masked); ragged nested sequences are refused by name (NumPy's own message is obscure)."""
    if isinstance(data, np.ma.MaskedArray):
        mask = np.ma.getmaskarray(data)
        return np.asarray(data.data), (mask if mask.any() else None)
    try:
        return np.asarray(data), None
    except (ValueError, TypeError):
        raise BoxCoxError("the rows of the data have different lengths (a ragged nested "
                          "list); give a rectangular table of numbers") from None


def _masked(values: NDArray[np.float64], mask: NDArray[np.bool_] | None,
            ndim: int) -> NDArray[np.float64]:
    """``values`` (n, p) with a masked array's masked entries set missing (NaN)."""
    if mask is not None:
        values[mask.reshape(values.shape) if ndim == 2 else mask[:, None]] = np.nan
    return values


def _series_values(s: Any, name: str, booleans: bool = True) -> NDArray[np.float64]:
    """A pandas column as floats: nullable numeric dtypes map pd.NA to NaN."""
    import pandas as pd

    if isinstance(s.dtype, pd.CategoricalDtype):
        raise BoxCoxError(
            f"column {name!r} is categorical; encode it as numbers first or leave it out"
        )
    if pd.api.types.is_bool_dtype(s.dtype) and not booleans:
        _refuse_kind("b", name)
    if pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_complex_dtype(s.dtype):
        return s.to_numpy(dtype=np.float64, na_value=np.nan, copy=True)
    if not pd.api.types.is_object_dtype(s.dtype) and not pd.api.types.is_complex_dtype(
            s.dtype):  # datetimes (with time zone), periods, intervals, strings...
        kind = getattr(s.dtype, "kind", "O")
        if kind in _KINDS:
            _refuse_kind(kind, name)
        raise BoxCoxError(f"column {name!r} is not numeric (dtype {s.dtype}); "
                          f"{_ENCODE}")
    return _numeric(s.to_numpy(), name, booleans)


_ENCODE = "encode it as numbers first or leave it out"
_KINDS = {  # dtype kind: (what the column holds, what to do)
    "b": ("booleans (an indicator has two values, so no power is determined)",
          "leave it out, or cast it with astype(float) if it really is a measurement"),
    "c": ("complex numbers", "power transforms need real numbers; pass the real part or "
          "the modulus"),
    "M": ("dates/times (datetime64)", "transform a duration such as the time since a start, "
          "converted to numbers in a unit you choose"),
    "m": ("durations (timedelta64)", "convert them to numbers in a unit you choose, e.g. "
          "x / np.timedelta64(1, 'D')"),
    "U": ("text", _ENCODE),
    "S": ("text (bytes)", _ENCODE),
    "V": ("structured records", "pass the numeric fields as columns"),
}


def _refuse_kind(kind: str, name: str) -> NoReturn:
    what, todo = _KINDS.get(kind, (f"values of dtype kind {kind!r}", _ENCODE))
    raise BoxCoxError(f"column {name!r} is not numeric: it holds {what}; {todo}")


def _numeric(col: NDArray, name: str, booleans: bool = True) -> NDArray[np.float64]:
    """A column of real numbers as float64 (a copy); everything else is refused by name.

    Integers and floats are read, booleans as 0/1 where ``booleans``; object columns may hold
    Python or NumPy numbers and ``None`` / NaN / ``pd.NA`` for missing values. Complex
    numbers, datetimes, durations, text and records are refused (no silent cast: a datetime
    read as nanoseconds would be fitted without a word).
    """
    if col.dtype.kind in "iuf" or (booleans and col.dtype.kind == "b"):
        return np.array(col, dtype=np.float64, copy=True)
    if col.dtype.kind != "O":
        _refuse_kind(col.dtype.kind, name)
    # object columns holding numbers (and None/NaN/pd.NA for missing)
    import pandas as pd

    out = np.empty(col.shape, dtype=np.float64)
    for i, v in enumerate(col):
        if v is None or v is pd.NA or (isinstance(v, float) and np.isnan(v)):
            out[i] = np.nan
        elif isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(
                v, (bool, np.bool_)):
            try:
                out[i] = float(v)
            except OverflowError:
                raise BoxCoxError(
                    f"column {name!r}: row {i} holds an integer beyond the float64 range "
                    f"({str(v)[:12]}... with {len(str(abs(v)))} digits); rescale the data"
                ) from None
        else:
            raise BoxCoxError(
                f"column {name!r} is not numeric (row {i} holds {v!r:.60}); {_ENCODE}"
            )
    return out
