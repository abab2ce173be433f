"""Load the real datasets bundled with boxcoxstat.

Layer 0: imports only NumPy, pandas, the standard library and the package's error class. The
CSV files live in the repository's ``data/`` folder, which the wheel installs as
``boxcoxstat/data``; ``data/README.md`` gives their sources and licences.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from boxcoxstat._validation import BoxCoxError

if TYPE_CHECKING:  # importlib.resources.abc is new in Python 3.11
    from importlib.resources.abc import Traversable

__all__ = ["list_datasets", "load"]


@dataclass(frozen=True)
class _Dataset:
    rows: int
    columns: int
    description: str


# Shapes are part of the catalogue (and checked by the tests), so listing reads no file.
_CATALOGUE: dict[str, _Dataset] = {
    "topgear": _Dataset(
        297,
        32,
        "Cars from the TopGear website (robustHD); Box-Cox of MPG and Weight in "
        "Raymaekers & Rousseeuw (2021)",
    ),
    "blood_transfusion": _Dataset(
        748, 5, "Blood donors (UCI #176): Recency, Frequency, Monetary, Time, Donated_Blood"
    ),
    "wdbc": _Dataset(
        569, 32, "Wisconsin Diagnostic Breast Cancer (UCI #17): ID, Diagnosis, 30 features"
    ),
    "ecoli": _Dataset(336, 9, "Protein localisation sites in E. coli (UCI #39)"),
    "house_prices_train": _Dataset(
        1460,
        81,
        "Ames house sales (Kaggle House Prices train.csv; De Cock 2011); 'NA' is missing",
    ),
    "highway1": _Dataset(
        39, 12, "Highway accident rates and road features (carData::Highway1; Weisberg 2005)"
    ),
    "trees": _Dataset(
        31, 3, "Black cherry trees (R datasets::trees; Ryan, Joiner & Ryan 1976): Girth, "
        "Height, Volume"
    ),
    "glass_spectra": _Dataset(
        180, 750, "Spectra of 180 archeological glass samples, V1..V750 (cellWise data_glass)"
    ),
    "dposs_j": _Dataset(
        11478, 8, "DPOSS stars, colour band J, complete rows: id + 7 variables (cellWise)"
    ),
}


def _data_dir() -> Traversable:
    """Return the folder holding the CSV files.

    An installed wheel has ``boxcoxstat/data``; an editable install or a source checkout has
    the repository's ``data/`` folder next to the package.
    """
    try:
        bundled = resources.files("boxcoxstat") / "data"
        if bundled.is_dir():
            return bundled
    except (ModuleNotFoundError, OSError):  # pragma: no cover - only without a package
        pass
    return Path(__file__).resolve().parent.parent / "data"


def _check_name(name: str) -> str:
    key = str(name).strip()
    if key.lower().endswith(".csv"):
        key = key[:-4]
    if key not in _CATALOGUE:
        valid = ", ".join(sorted(_CATALOGUE))
        raise BoxCoxError(f"unknown dataset {name!r}; the bundled datasets are: {valid}")
    return key


def list_datasets() -> pd.DataFrame:
    """List the bundled datasets.

    Returns
    -------
    pandas.DataFrame
        One row per dataset with columns ``name``, ``rows``, ``columns`` (the shape
        :func:`load` returns, every column included) and ``description``.

    See Also
    --------
    load : read one of them.

    Examples
    --------
    >>> from boxcoxstat.datasets import list_datasets
    >>> table = list_datasets()
    >>> table.loc[table["name"] == "topgear", ["rows", "columns"]].to_numpy().tolist()
    [[297, 32]]
    """
    records = [
        {"name": name, "rows": d.rows, "columns": d.columns, "description": d.description}
        for name, d in _CATALOGUE.items()
    ]
    return pd.DataFrame.from_records(records, columns=["name", "rows", "columns", "description"])


def load(name: str) -> pd.DataFrame:
    """Read a bundled dataset into a new DataFrame.

    Parameters
    ----------
    name : str
        One of the names in :func:`list_datasets` (``"topgear"``, ``"blood_transfusion"``,
        ``"wdbc"``, ``"ecoli"``, ``"house_prices_train"``, ``"highway1"``); a trailing
        ``".csv"`` is ignored.

    Returns
    -------
    pandas.DataFrame
        The whole file as :func:`pandas.read_csv` reads it with its defaults: empty fields,
        and in ``house_prices_train`` the text ``"NA"``, become missing (NaN). Note that
        pandas' defaults also treat the category ``"None"`` (``MasVnrType``) as missing,
        as the reference code of Xu & Cormode (2025) does. Every call returns a fresh
        object, so changing it never affects the next load.

    Raises
    ------
    BoxCoxError
        If ``name`` is not a bundled dataset; the message lists the valid names.

    See Also
    --------
    list_datasets : the names, shapes and descriptions.

    Examples
    --------
    >>> from boxcoxstat.datasets import load
    >>> cars = load("topgear")
    >>> cars.shape
    (297, 32)
    >>> round(float(cars["MPG"].median()), 1)
    47.0
    """
    key = _check_name(name)
    with (_data_dir() / f"{key}.csv").open("rb") as handle:
        return pd.read_csv(handle)
