"""Sphinx configuration of the boxcoxstat documentation.

Build (from the repository root; warnings are errors)::

    pip install -e ".[docs]"
    sphinx-build -W --keep-going -b html docs docs/_build/html              # with the gallery
    sphinx-build -W --keep-going -b html -D plot_gallery=0 docs docs/_build/html   # reference

The gallery executes ``vignettes/*.py`` (jupytext percent scripts, converted for
sphinx-gallery by ``_ext/vignettes.py``) and shows the figures each vignette writes (see
``_ext/figures.py``). The classifier vignettes (``classify``, ``classify_blum``,
``classify_bicego``) run in their quick settings unless ``BOXCOXSTAT_DOCS_FULL=1``.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE / "_ext"))

import boxcoxstat  # noqa: E402, I001 - the local extensions below are found through sys.path
from figures import VignetteFigures  # noqa: E402, I001
from sphinx.errors import ConfigError  # noqa: E402, I001
from vignettes import build_sources  # noqa: E402, I001

project = "boxcoxstat"
author = "The boxcoxstat developers"
copyright = "2025-2026, the boxcoxstat developers"  # noqa: A001 - Sphinx's name
release = boxcoxstat.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

exclude_patterns = ["_build", "_vignettes", "auto_vignettes/*.ipynb", "auto_vignettes/*.py",
                    "auto_vignettes/*.zip", "auto_vignettes/*.md5", "**.codeobj.json"]
templates_path = ["_templates"]
autosummary_generate = True
autodoc_typehints = "none"  # the numpydoc Parameters sections say the types
autodoc_default_options = {"inherited-members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
default_role = "obj"
suppress_warnings = ["autosummary.import_cycle"]

html_theme = "pydata_sphinx_theme"
html_title = f"boxcoxstat {release}"
html_static_path: list[str] = []
html_theme_options = {"navigation_with_keys": False, "show_toc_level": 2,
                      "secondary_sidebar_items": ["page-toc"]}

# --------------------------------------------------------------------------- the gallery
# vignettes write their figures to these folders; the scraper shows each after its cell
FIGURE_DIR = Path(tempfile.mkdtemp(prefix="boxcoxstat-docs-figures-"))
os.environ["BOXCOXSTAT_FIGDIR"] = str(FIGURE_DIR)
os.environ["BCS_FIGURE_DIR"] = str(FIGURE_DIR)
os.environ.setdefault("MPLBACKEND", "Agg")
# some vignettes read data boxcoxstat may not bundle (Kaggle's House Prices file, UCI's adult,
# bank and credit files) from ../shared/data or BOXCOXSTAT_SHARED_DATA; each declares them in
# its header. Without them the gallery shows those vignettes unrun, each page saying so;
# BOXCOXSTAT_REQUIRE_DATA=1 (CI) makes a missing file an error when the gallery runs.
os.environ.setdefault("BOXCOXSTAT_SHARED_DATA", str(ROOT.parent / "shared" / "data"))
GALLERY_SOURCES = HERE / "_vignettes"  # the vignettes with their Markdown as reST
NOT_RUN = build_sources(ROOT / "vignettes", GALLERY_SOURCES,
                        Path(os.environ["BOXCOXSTAT_SHARED_DATA"]))
if os.environ.get("BOXCOXSTAT_DOCS_FULL") != "1":
    os.environ.setdefault("BCS_VIGNETTE_QUICK", "1")

sphinx_gallery_conf = {
    "examples_dirs": [str(GALLERY_SOURCES)],
    "gallery_dirs": ["auto_vignettes"],
    # execute every vignette whose data are there
    "filename_pattern": (r".*\.py$" if not NOT_RUN else r"^(?!.*[\\/](?:"
                         + "|".join(re.escape(name) for name in NOT_RUN) + r")$).*\.py$"),
    "image_scrapers": ("matplotlib", VignetteFigures(FIGURE_DIR)),
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "abort_on_example_error": True,
    "show_memory": False,
}


def _skip_metadata_requests(app, what, name, obj, skip, options):
    """scikit-learn generates ``set_fit_request`` and friends on every estimator class;
    their docstrings point into scikit-learn's own documentation, so they are left out."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def _require_data(app, config):
    """With ``BOXCOXSTAT_REQUIRE_DATA`` set (CI), a gallery that would leave vignettes unrun
    for want of their data stops the build, naming the files."""
    required = os.environ.get("BOXCOXSTAT_REQUIRE_DATA", "").strip() not in ("", "0")
    runs = str(config.plot_gallery).lower() not in ("0", "false", "")
    if required and runs and NOT_RUN:
        files = sorted({f for fs in NOT_RUN.values() for f in fs})
        raise ConfigError(
            f"vignettes {sorted(NOT_RUN)} need {files}, which are not in "
            f"{os.environ['BOXCOXSTAT_SHARED_DATA']} (BOXCOXSTAT_SHARED_DATA); put them there "
            "(see data/README.md) or unset BOXCOXSTAT_REQUIRE_DATA to show those vignettes "
            "unrun")


def setup(app):
    app.connect("autodoc-skip-member", _skip_metadata_requests)
    app.connect("config-inited", _require_data)
