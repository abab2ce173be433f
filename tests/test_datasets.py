"""Tests for boxcoxstat.datasets: the bundled CSV files, their loaders, and the data that may
not be bundled (Kaggle's House Prices train.csv, read from ../shared/data by path=)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from boxcoxstat import BoxCoxError, datasets
from tests import mpref

# Shapes as the shared data README states them (checked there against the papers).
EXPECTED_SHAPES = {
    "mroz": (753, 8),
    "prestige": (102, 7),
    "airpassengers": (144, 2),
    "topgear": (297, 32),
    "blood_transfusion": (748, 5),
    "wdbc": (569, 32),
    "ecoli": (336, 9),
    "house_prices_train": (1460, 81),
    "highway1": (39, 12),  # carData::Highway1 (exported by R, see data/README.md)
    "trees": (31, 3),
    "glass_spectra": (180, 750),
    "dposs_j": (11478, 8),
    "sonar": (208, 61),
    "pima": (768, 9),
    "glass_identification": (214, 10),
    "wine": (178, 14),
    "liver_bupa": (345, 7),
}
NOT_BUNDLED = {"house_prices_train"}  # Kaggle's competition rules forbid redistributing it
BUNDLED = sorted(set(EXPECTED_SHAPES) - NOT_BUNDLED)


def _load(name):
    """Load any dataset: the ones that are not bundled from the shared data folder."""
    if name in NOT_BUNDLED:
        return datasets.load(name, path=mpref.data_file(name))
    return datasets.load(name)


@pytest.mark.parametrize(("name", "shape"), sorted(EXPECTED_SHAPES.items()))
def test_load_shape(name, shape):
    frame = _load(name)
    assert isinstance(frame, pd.DataFrame)
    assert frame.shape == shape


def test_list_datasets_matches_files():
    table = datasets.list_datasets()
    assert list(table.columns) == ["name", "rows", "columns", "bundled", "description"]
    assert sorted(table["name"]) == sorted(EXPECTED_SHAPES)
    assert table["bundled"].dtype == bool
    assert set(table.loc[~table["bundled"], "name"]) == NOT_BUNDLED
    for row in table.itertuples(index=False):
        assert (row.rows, row.columns) == EXPECTED_SHAPES[row.name]
        assert _load(row.name).shape == (row.rows, row.columns)
        assert len(row.description) > 10


def test_data_folder_holds_exactly_the_bundled_csv_files():
    """A CSV added to data/ without a catalogue entry would be unreachable, and one that is
    not bundled (Kaggle's train.csv) must never ship in the wheel again."""
    folder = Path(datasets.__file__).resolve().parent.parent / "data"
    if not folder.is_dir():  # installed wheel: the files sit inside the package
        folder = Path(datasets.__file__).resolve().parent / "data"
    on_disk = {p.stem for p in folder.glob("*.csv")}
    assert on_disk == set(BUNDLED)


def test_topgear_columns_and_missing_values():
    cars = datasets.load("topgear")
    assert {"Maker", "Model", "MPG", "Weight", "Price"} <= set(cars.columns)
    assert cars["MPG"].dtype == np.float64
    assert int(cars["MPG"].isna().sum()) == 12
    assert int(cars["Weight"].isna().sum()) == 33
    assert (cars["MPG"].dropna() > 0).all()


def test_house_prices_na_is_missing():
    house = _load("house_prices_train")
    assert int(house["Alley"].isna().sum()) == 1369
    assert int(house["LotFrontage"].isna().sum()) == 259
    assert house["LotFrontage"].dtype == np.float64
    assert house["Street"].value_counts().to_dict() == {"Pave": 1454, "Grvl": 6}


def test_paper_columns_present():
    assert list(datasets.load("blood_transfusion").columns) == [
        "Recency", "Frequency", "Monetary", "Time", "Donated_Blood",
    ]  # fmt: skip
    assert {"ID", "Diagnosis", "area1", "area3"} <= set(datasets.load("wdbc").columns)
    assert {"sequence", "lip", "chg", "class"} <= set(datasets.load("ecoli").columns)


def test_csv_suffix_is_accepted():
    pd.testing.assert_frame_equal(datasets.load("ecoli.csv"), datasets.load("ecoli"))


def test_not_bundled_without_path_says_where_to_get_it():
    with pytest.raises(BoxCoxError, match="'house_prices_train' is not bundled") as info:
        datasets.load("house_prices_train")
    message = str(info.value)
    assert "Kaggle competition 'house-prices-advanced-regression-techniques'" in message
    assert "train.csv" in message and "path=" in message


def test_not_bundled_accepts_str_and_path(tmp_path):
    source = mpref.house_prices_path()
    frame = datasets.load("house_prices_train", path=str(source))
    assert frame.shape == (1460, 81)
    assert frame.columns[0] == "Id" and frame.columns[-1] == "SalePrice"
    copy = tmp_path / "train.csv"  # the name Kaggle gives it
    copy.write_bytes(source.read_bytes())
    pd.testing.assert_frame_equal(datasets.load("house_prices_train.csv", path=copy), frame)


def test_not_bundled_refuses_a_missing_file_or_a_folder(tmp_path):
    with pytest.raises(BoxCoxError, match="does not exist; pass the path of the CSV file"):
        datasets.load("house_prices_train", path=tmp_path / "train.csv")
    with pytest.raises(BoxCoxError, match="is a folder; pass the path of the CSV file"):
        datasets.load("house_prices_train", path=tmp_path)
    with pytest.raises(BoxCoxError, match="path must be the location of a CSV file"):
        datasets.load("house_prices_train", path=3)


def test_not_bundled_refuses_a_file_that_is_not_the_data(tmp_path):
    house = _load("house_prices_train")
    kaggle_test_like = tmp_path / "test.csv"  # Kaggle's test.csv: 1459 rows, no SalePrice
    house.drop(columns="SalePrice").iloc[:1459].to_csv(kaggle_test_like, index=False)
    with pytest.raises(BoxCoxError, match="1459 rows x 80 columns, not 1460 x 81") as info:
        datasets.load("house_prices_train", path=kaggle_test_like)
    assert "columns missing: SalePrice" in str(info.value)
    assert "house-prices-advanced-regression-techniques" in str(info.value)
    renamed = tmp_path / "renamed.csv"
    house.rename(columns={"Street": "street"}).to_csv(renamed, index=False)
    with pytest.raises(BoxCoxError, match="columns missing: Street; unexpected columns: street"):
        datasets.load("house_prices_train", path=renamed)
    other = mpref.data_file("wdbc")
    with pytest.raises(BoxCoxError, match="569 rows x 32 columns"):
        datasets.load("house_prices_train", path=other)
    binary = tmp_path / "train.csv"
    binary.write_bytes(b"\xff\xfe\x00\x81" * 100)
    with pytest.raises(BoxCoxError, match="is not a readable CSV file"):
        datasets.load("house_prices_train", path=binary)
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(BoxCoxError, match="is not a readable CSV file"):
        datasets.load("house_prices_train", path=empty)


def test_bundled_dataset_refuses_path(tmp_path):
    with pytest.raises(BoxCoxError, match=r"'ecoli' is bundled: call load\('ecoli'\) without"):
        datasets.load("ecoli", path=tmp_path / "ecoli.csv")


def test_unknown_name_lists_valid_names():
    with pytest.raises(BoxCoxError, match="unknown dataset 'mtcars'") as info:
        datasets.load("mtcars")
    for name in EXPECTED_SHAPES:
        assert name in str(info.value)


def test_loads_are_independent():
    first = datasets.load("topgear")
    second = datasets.load("topgear")
    assert first is not second
    original = second.loc[0, "MPG"]
    first.loc[0, "MPG"] = -1.0
    del first["Weight"]
    assert second.loc[0, "MPG"] == original
    assert "Weight" in second.columns
    third = datasets.load("topgear")
    assert third.loc[0, "MPG"] == original
    assert third.shape == (297, 32)


def test_installed_layout_is_preferred(tmp_path, monkeypatch):
    """In a wheel the files sit in boxcoxstat/data; that folder wins when it exists."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "ecoli.csv").write_text("a,b\n1,2\n")
    monkeypatch.setattr(datasets.resources, "files", lambda package: tmp_path)
    frame = datasets.load("ecoli")
    assert frame.shape == (1, 2)
    assert list(frame.columns) == ["a", "b"]


def test_repository_layout_is_the_fallback(tmp_path, monkeypatch):
    """An editable install has no boxcoxstat/data; the repository's data/ is used."""
    monkeypatch.setattr(datasets.resources, "files", lambda package: tmp_path)
    assert datasets.load("ecoli").shape == (336, 9)
