"""Without pyspark, a Spark DataFrame gets the package's error naming the extra (issue 31)."""

from __future__ import annotations

import sys

import pytest

import boxcoxstat as bcs
from boxcoxstat import BoxCoxError


class DataFrame:  # a stand-in: what is_spark recognises, from a module named like pyspark's
    pass


DataFrame.__module__ = "pyspark.sql.dataframe"


def test_spark_frame_without_pyspark_names_the_extra(monkeypatch):
    for mod in ("pyspark", "pyspark.sql", "pyspark.sql.functions"):
        monkeypatch.setitem(sys.modules, mod, None)  # import fails as if not installed
    with pytest.raises(BoxCoxError, match=r'pip install "boxcoxstat\[spark\]"'):
        bcs.fit(DataFrame())
    fitted = bcs.fit([1.0, 2.0, 4.0, 8.5])
    with pytest.raises(BoxCoxError, match=r"boxcoxstat\[spark\]"):
        fitted.transform(DataFrame())
