"""Every page of the user guide (``docs/guide/*.py``) runs as a script, on bundled data only,
in a few seconds (issue 29, item 3). The docs' gallery executes the same scripts."""

from __future__ import annotations

import runpy
import warnings

import matplotlib
import pytest

from tests import mpref

GUIDE = mpref.REPO / "docs" / "guide"
PAGES = sorted(GUIDE.glob("[0-9][0-9]_*.py"))


def test_guide_pages_are_numbered_in_the_users_order_gh29():
    names = [p.stem for p in PAGES]
    assert names[0] == "01_first_transformation"
    # 05, R's toolbox, is vignettes/toolbox.py, shown in the guide by docs/conf.py
    assert [n[:2] for n in names] == [f"{k:02d}" for k in range(1, 11) if k != 5]


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_guide_page_runs_gh29(page, tmp_path, monkeypatch, capsys):
    """In this process (the package's imports are shared), from an empty folder; measured
    0.3-2 s each once the imports are loaded."""
    import matplotlib.pyplot as plt

    monkeypatch.chdir(tmp_path)
    backend = matplotlib.get_backend()
    plt.switch_backend("Agg")
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*non-interactive.*cannot be shown")
            runpy.run_path(str(page), run_name="__main__")
    finally:
        plt.close("all")
        plt.switch_backend(backend)
    assert capsys.readouterr().out.strip(), "the page prints what it shows"
