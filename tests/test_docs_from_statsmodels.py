"""docs/from_statsmodels.rst: the worked example runs and prints what the page shows (the
statsmodels and boxcoxstat numbers side by side are real output)."""

from __future__ import annotations

import doctest
from pathlib import Path

PAGE = Path(__file__).resolve().parent.parent / "docs" / "from_statsmodels.rst"


def test_the_worked_example_prints_what_the_page_shows():
    """Every ``>>>`` line of the page is run by doctest and its output compared."""
    result = doctest.testfile(str(PAGE), module_relative=False, report=True,
                              optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 10
    assert result.failed == 0, f"{result.failed} example(s) of {PAGE.name} print otherwise"
