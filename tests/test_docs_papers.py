"""The "Reproducing the papers" pages (docs/papers/) name figures, vignettes, environment
variables and tests; every one of them must exist, so that a rename cannot leave a page
telling readers to run something that is not there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
PAPERS = ROOT / "docs" / "papers"
PAGES = ["xu_cormode", "raymaekers_rousseeuw", "blum", "bicego_baldo"]


def _text(name):
    return (PAPERS / f"{name}.rst").read_text(encoding="utf-8")


def test_index_links_every_page_and_the_toctree_holds_them():
    index = _text("index")
    toctree = index.split(".. toctree::")[1]
    for name in PAGES:
        assert f":doc:`{name}`" in index
        assert re.search(rf"^\s+{name}$", toctree, flags=re.MULTILINE), name


@pytest.mark.parametrize("name", PAGES)
def test_images_exist(name):
    images = re.findall(r"^\.\. image:: (\S+)$", _text(name), flags=re.MULTILINE)
    assert images, f"{name} shows no figure"
    missing = [p for p in images if not (PAPERS / p).resolve().is_file()]
    assert not missing, f"docs/papers/{name}.rst shows missing images: {missing}"


@pytest.mark.parametrize("name", PAGES)
def test_named_files_exist(name):
    paths = set(re.findall(r"``((?:vignettes|tests|benchmarks)/[\w/.]+\.(?:py|R|csv))``",
                           _text(name)))
    assert paths
    missing = sorted(p for p in paths if not (ROOT / p).is_file())
    assert not missing, f"docs/papers/{name}.rst names missing files: {missing}"


@pytest.mark.parametrize("name", PAGES)
def test_named_tests_exist(name):
    text = _text(name)
    sources = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("*.py"))
    names = set(re.findall(r"\b(test_\w+)\b", text))
    assert names
    # a name is a test function or a test module (``test_columns.py``)
    missing = sorted(t for t in names if f"def {t}(" not in sources
                     and not list((ROOT / "tests").rglob(f"{t}.py")))
    assert not missing, f"docs/papers/{name}.rst names missing tests: {missing}"


@pytest.mark.parametrize("name", PAGES)
def test_environment_variables_are_read_by_the_vignettes(name):
    variables = set(re.findall(r"\b((?:BCS|BOXCOXSTAT)_[A-Z_]+)\b", _text(name)))
    assert variables
    readers = [*(ROOT / "vignettes").glob("*.py"), ROOT / "docs" / "conf.py"]
    sources = "\n".join(p.read_text(encoding="utf-8") for p in readers)
    missing = sorted(v for v in variables if v not in sources)
    assert not missing, f"docs/papers/{name}.rst names variables nothing reads: {missing}"
