"""Load the real datasets used by boxcoxstat's examples, vignettes and tests.

Imports only NumPy, pandas, the standard library and the gate (for the package's error). The
bundled CSV files live in the repository's ``data/`` folder, which the wheel installs as
``boxcoxstat/data``; ``data/README.md`` gives their sources and licences. A dataset whose
licence does not allow redistribution (Kaggle's House Prices ``train.csv``) is listed but not
bundled: :func:`load` reads the user's own copy from ``path=`` and checks that it is that file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from boxcoxstat._validation.columns import BoxCoxError

if TYPE_CHECKING:  # importlib.resources.abc is new in Python 3.11
    from importlib.resources.abc import Traversable

__all__ = ["list_datasets", "load"]


@dataclass(frozen=True)
class _Dataset:
    rows: int
    columns: int
    description: str
    # Not bundled: why not, how to get the file, its usual name and the header a genuine
    # copy has (checked when ``load`` reads it from ``path=``).
    reason: str = ""
    obtain: str = ""
    filename: str = ""
    header: tuple[str, ...] = ()

    @property
    def bundled(self) -> bool:
        return not self.obtain


# Kaggle's "House Prices - Advanced Regression Techniques" train.csv, in file order.
_HOUSE_HEADER = (
    "Id MSSubClass MSZoning LotFrontage LotArea Street Alley LotShape LandContour Utilities "
    "LotConfig LandSlope Neighborhood Condition1 Condition2 BldgType HouseStyle OverallQual "
    "OverallCond YearBuilt YearRemodAdd RoofStyle RoofMatl Exterior1st Exterior2nd MasVnrType "
    "MasVnrArea ExterQual ExterCond Foundation BsmtQual BsmtCond BsmtExposure BsmtFinType1 "
    "BsmtFinSF1 BsmtFinType2 BsmtFinSF2 BsmtUnfSF TotalBsmtSF Heating HeatingQC CentralAir "
    "Electrical 1stFlrSF 2ndFlrSF LowQualFinSF GrLivArea BsmtFullBath BsmtHalfBath FullBath "
    "HalfBath BedroomAbvGr KitchenAbvGr KitchenQual TotRmsAbvGrd Functional Fireplaces "
    "FireplaceQu GarageType GarageYrBlt GarageFinish GarageCars GarageArea GarageQual "
    "GarageCond PavedDrive WoodDeckSF OpenPorchSF EnclosedPorch 3SsnPorch ScreenPorch PoolArea "
    "PoolQC Fence MiscFeature MiscVal MoSold YrSold SaleType SaleCondition SalePrice"
).split()


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
        reason="Kaggle's competition rules do not allow redistributing it",
        obtain="download train.csv from the Kaggle competition "
        "'house-prices-advanced-regression-techniques' "
        "(https://www.kaggle.com/competitions/house-prices-advanced-regression-techniques/data; "
        "you need a Kaggle account that has accepted the competition rules)",
        filename="train.csv",
        header=tuple(_HOUSE_HEADER),
    ),
    "highway1": _Dataset(
        39, 12, "Highway accident rates and road features (carData::Highway1; Weisberg 2005)"
    ),
    "trees": _Dataset(
        31, 3, "Black cherry trees (R datasets::trees; Ryan, Joiner & Ryan 1976): Girth, "
        "Height, Volume"
    ),
    "mroz": _Dataset(
        753, 8, "U.S. women's labour-force participation, 1975 (carData::Mroz; Mroz 1987): "
        "lwg (log wage, 22 values <= 0) for bcnPower"
    ),
    "prestige": _Dataset(
        102, 7, "Prestige of Canadian occupations, 1971 (carData::Prestige): car's Box-Tidwell "
        "example"
    ),
    "airpassengers": _Dataset(
        144, 2, "Monthly airline passengers 1949-1960 (R datasets::AirPassengers; Box & "
        "Jenkins 1976): month, passengers"
    ),
    "glass_spectra": _Dataset(
        180, 750, "Spectra of 180 archeological glass samples, V1..V750 (cellWise data_glass)"
    ),
    "dposs_j": _Dataset(
        11478, 8, "DPOSS stars, colour band J, complete rows: id + 7 variables (cellWise)"
    ),
    "sonar": _Dataset(208, 61, "Sonar returns from rocks (R) and mines (M) (UCI), V1..V60, Class"),
    "pima": _Dataset(768, 9, "Pima Indians diabetes (mlbench); zeros stand for missing values"),
    "glass_identification": _Dataset(214, 10, "Glass identification (UCI #42): 9 oxides, Type"),
    "wine": _Dataset(178, 14, "Wine recognition (UCI): 13 chemical measurements, target 0/1/2"),
    "liver_bupa": _Dataset(345, 7, "BUPA liver disorders (UCI #60): 5 blood tests, drinks, "
                           "selector"),
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
        raise BoxCoxError(f"unknown dataset {name!r}; the datasets are: {valid}")
    return key


def _few(names: list[str], limit: int = 5) -> str:
    shown = ", ".join(names[:limit])
    return shown if len(names) <= limit else f"{shown} and {len(names) - limit} more"


def _read_local(key: str, spec: _Dataset, path: object) -> pd.DataFrame:
    """Read the user's copy of a dataset that is not bundled, and check it is that file."""
    how = f"load({key!r}, path=\"path/to/{spec.filename}\")"
    if path is None:
        raise BoxCoxError(
            f"dataset {key!r} is not bundled with boxcoxstat ({spec.reason}); to use it, "
            f"{spec.obtain}, then pass its location: {how}"
        )
    if not isinstance(path, (str, os.PathLike)):
        raise BoxCoxError(
            f"path must be the location of a CSV file (a str or pathlib.Path), not "
            f"{type(path).__name__}; e.g. {how}"
        )
    file = Path(path).expanduser()
    if not file.is_file():
        problem = "is a folder" if file.is_dir() else "does not exist"
        raise BoxCoxError(
            f"cannot load {key!r}: {str(file)!r} {problem}; pass the path of the CSV file "
            f"itself ({spec.filename}). To get it, {spec.obtain}"
        )
    try:
        frame = pd.read_csv(file)
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise BoxCoxError(
            f"cannot load {key!r}: {str(file)!r} is not a readable CSV file ({exc}); pass "
            f"{spec.filename} as downloaded. To get it, {spec.obtain}"
        ) from None
    columns = [str(c) for c in frame.columns]
    problems = []
    if frame.shape != (spec.rows, spec.columns):
        problems.append(
            f"it has {frame.shape[0]} rows x {frame.shape[1]} columns, not "
            f"{spec.rows} x {spec.columns}"
        )
    missing = [c for c in spec.header if c not in columns]
    if missing:
        problems.append(f"columns missing: {_few(missing)}")
    unknown = [c for c in columns if c not in spec.header]
    if unknown:
        problems.append(f"unexpected columns: {_few(unknown)}")
    if problems:
        raise BoxCoxError(
            f"{str(file)!r} is not the {key!r} data ({spec.description}): "
            f"{'; '.join(problems)}. Pass {spec.filename} unchanged; to get it, {spec.obtain}"
        )
    return frame


def list_datasets() -> pd.DataFrame:
    """List the datasets :func:`load` knows, bundled or not.

    Returns
    -------
    pandas.DataFrame
        One row per dataset with columns ``name``, ``rows``, ``columns`` (the shape
        :func:`load` returns, every column included), ``bundled`` (``False`` for data whose
        licence does not allow shipping them: :func:`load` then needs ``path=`` to your own
        copy) and ``description``.

    See Also
    --------
    load : read one of them.

    Examples
    --------
    >>> from boxcoxstat.datasets import list_datasets
    >>> table = list_datasets()
    >>> table.loc[table["name"] == "topgear", ["rows", "columns"]].to_numpy().tolist()
    [[297, 32]]
    >>> table.loc[~table["bundled"], "name"].tolist()
    ['house_prices_train']
    """
    records = [
        {"name": name, "rows": d.rows, "columns": d.columns, "bundled": d.bundled,
         "description": d.description}
        for name, d in _CATALOGUE.items()
    ]
    return pd.DataFrame.from_records(
        records, columns=["name", "rows", "columns", "bundled", "description"]
    )


def load(name: str, *, path: str | os.PathLike[str] | None = None) -> pd.DataFrame:
    """Read a dataset into a new DataFrame.

    Parameters
    ----------
    name : str
        One of the names in :func:`list_datasets`; a trailing ``".csv"`` is ignored.
    path : str or os.PathLike, default=None
        Only for a dataset that is not bundled (``bundled`` is ``False`` in
        :func:`list_datasets`): the location of your own copy of the file. For
        ``"house_prices_train"`` that is ``train.csv`` of the Kaggle competition
        "house-prices-advanced-regression-techniques" (download it from
        https://www.kaggle.com/competitions/house-prices-advanced-regression-techniques/data).
        The file is checked to have the dataset's rows and columns.

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
        If ``name`` is not a known dataset (the message lists the valid names); if a dataset
        that is not bundled is asked for without ``path`` (the message says where to get
        it), or ``path`` is not a readable CSV file with the dataset's rows and columns; if
        ``path`` is given for a bundled dataset.

    See Also
    --------
    list_datasets : the names, shapes, descriptions and which ones are bundled.

    Examples
    --------
    >>> from boxcoxstat.datasets import load
    >>> cars = load("topgear")
    >>> cars.shape
    (297, 32)
    >>> round(float(cars["MPG"].median()), 1)
    47.0

    The Kaggle house prices are not bundled; without ``path=`` the error says where to get
    them, and a file that is not Kaggle's ``train.csv`` is refused:

    >>> load("house_prices_train")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    boxcoxstat.exceptions.BoxCoxError: dataset 'house_prices_train' is not bundled ...
    >>> import pathlib, tempfile
    >>> import pandas as pd
    >>> wrong = pathlib.Path(tempfile.mkdtemp()) / "train.csv"
    >>> pd.DataFrame({"Id": [1], "SalePrice": [100000]}).to_csv(wrong, index=False)
    >>> load("house_prices_train", path=wrong)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    boxcoxstat.exceptions.BoxCoxError: ...: it has 1 rows x 2 columns, not 1460 x 81; ...
    """
    key = _check_name(name)
    spec = _CATALOGUE[key]
    if not spec.bundled:
        return _read_local(key, spec, path)
    if path is not None:
        raise BoxCoxError(
            f"dataset {key!r} is bundled: call load({key!r}) without path= "
            "(to read another CSV file, use pandas.read_csv)"
        )
    with (_data_dir() / f"{key}.csv").open("rb") as handle:
        return pd.read_csv(handle)
