"""Tests for boxcoxstat.datasets: the bundled CSV files and their loaders."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from boxcoxstat import BoxCoxError, datasets

# Shapes as the shared data README states them (checked there against the papers).
EXPECTED_SHAPES = {
    "topgear": (297, 32),
    "blood_transfusion": (748, 5),
    "wdbc": (569, 32),
    "ecoli": (336, 9),
    "house_prices_train": (1460, 81),
    "highway1": (39, 12),  # carData::Highway1 (exported by R, see data/README.md)
    "trees": (31, 3),
    "glass_spectra": (180, 750),
    "dposs_j": (11478, 8),
}


@pytest.mark.parametrize(("name", "shape"), sorted(EXPECTED_SHAPES.items()))
def test_load_shape(name, shape):
    frame = datasets.load(name)
    assert isinstance(frame, pd.DataFrame)
    assert frame.shape == shape


def test_list_datasets_matches_files():
    table = datasets.list_datasets()
    assert list(table.columns) == ["name", "rows", "columns", "description"]
    assert sorted(table["name"]) == sorted(EXPECTED_SHAPES)
    for row in table.itertuples(index=False):
        assert (row.rows, row.columns) == EXPECTED_SHAPES[row.name]
        assert datasets.load(row.name).shape == (row.rows, row.columns)
        assert len(row.description) > 10


def test_every_csv_in_data_folder_is_listed():
    """A CSV added to data/ without a catalogue entry would be unreachable."""
    folder = Path(datasets.__file__).resolve().parent.parent / "data"
    if not folder.is_dir():  # installed wheel: the files sit inside the package
        folder = Path(datasets.__file__).resolve().parent / "data"
    on_disk = {p.stem for p in folder.glob("*.csv")}
    assert on_disk == set(EXPECTED_SHAPES)


def test_topgear_columns_and_missing_values():
    cars = datasets.load("topgear")
    assert {"Maker", "Model", "MPG", "Weight", "Price"} <= set(cars.columns)
    assert cars["MPG"].dtype == np.float64
    assert int(cars["MPG"].isna().sum()) == 12
    assert int(cars["Weight"].isna().sum()) == 33
    assert (cars["MPG"].dropna() > 0).all()


def test_house_prices_na_is_missing():
    house = datasets.load("house_prices_train")
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
