"""The public namespace: __all__ is importable and documented in the README."""

from __future__ import annotations

from pathlib import Path

import boxcoxstat


def test_all_is_importable():
    for name in boxcoxstat.__all__:
        assert hasattr(boxcoxstat, name), name


def test_all_names_appear_in_readme():
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    missing = [n for n in boxcoxstat.__all__ if n not in readme]
    assert not missing, f"undocumented public names: {missing}"
