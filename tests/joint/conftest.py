"""Fixtures of the joint tests: one fit per car reference case, shared by the modules."""

from __future__ import annotations

import pytest

import boxcoxstat as bcs

from .carref import REF, highway


@pytest.fixture(scope="session")
def fits():
    hw = highway()
    return {
        c["name"]: bcs.fit_joint(hw, c["columns"], family=c["family"], design=c["design"])
        for c in REF["cases"]
    }
