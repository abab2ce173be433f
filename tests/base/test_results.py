"""Tests for boxcoxstat.base.results."""

from __future__ import annotations

import pytest

from boxcoxstat import BoxCoxError
from boxcoxstat.base.results import HypothesisTest


@pytest.mark.parametrize(("args", "says"), [
    ((("a", "b"), [1.0], 1, "h"), "1 statistic(s) for 2 row name(s)"),
    ((("a",), [1.0, 2.0], 1, "h"), "2 statistic(s) for 1 row name(s)"),
    ((("a",), [1.0], 0, "h"), "df must be an integer >= 1"),
    ((("a",), [1.0], 1.5, "h"), "df must be an integer >= 1"),
    ((("a",), [1.0], True, "h"), "df must be an integer >= 1"),
])
def test_inconsistent_tests_are_refused_gh11(args, says):
    """A statistic per name was not checked: one value was broadcast over every row."""
    with pytest.raises(BoxCoxError) as info:
        HypothesisTest(*args)
    assert says in str(info.value)


def test_scalar_needs_one_row_gh11():
    """scalar=True with two rows silently returned a Series."""
    with pytest.raises(BoxCoxError, match="scalar=True needs exactly one row"):
        HypothesisTest(("a", "b"), [1.0, 2.0], 1, "h", scalar=True)
