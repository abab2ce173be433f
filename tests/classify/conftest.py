"""Fixtures shared by the classification tests (test_results.py, test_plotting.py)."""

from __future__ import annotations

import pytest

from tests.classify.synth import italy_corsica


@pytest.fixture(scope="module")
def data():
    return italy_corsica(120)
