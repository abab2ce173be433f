"""Fixtures shared by the robust tests (test_results.py, test_plotting.py)."""

from __future__ import annotations

import pytest

import boxcoxstat as bcs
from boxcoxstat.datasets import load


@pytest.fixture(scope="module")
def mpg():
    cars = load("topgear")
    cars.index = cars["Maker"] + " " + cars["Model"]
    return bcs.fit(cars["MPG"], family="boxcox", method="rewml"), cars
