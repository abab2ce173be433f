"""The documentation site loads nothing from another host (issue 29, item 5): the check that
``docs/conf.py`` runs on every build (``docs/_ext/offline.py``) finds scripts, style sheets,
fonts and images from elsewhere, and lets links and the site's own files pass."""

from __future__ import annotations

import importlib.util

from tests import mpref


def _offline():
    spec = importlib.util.spec_from_file_location("offline", mpref.REPO / "docs" / "_ext"
                                                  / "offline.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_external_scripts_styles_and_fonts_are_found_gh29(tmp_path):
    # what sphinx 9 and sphinx-gallery wrote before (MathJax, jQuery, DataTables from CDNs)
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "fit.html").write_text(
        '<script defer="defer" src="https://cdn.jsdelivr.net/npm/mathjax@4/tex-mml-chtml.js">'
        '</script>\n<link rel="stylesheet" href="//cdn.example.org/x.css">\n'
        '<a href="https://www.sphinx-doc.org">Sphinx</a>')
    (tmp_path / "times.html").write_text(
        "<SCRIPT src='https://code.jquery.com/jquery-3.7.0.js'></SCRIPT>"
        '<img alt="" src="http://example.org/logo.png"/>')
    (tmp_path / "_static").mkdir()
    (tmp_path / "_static" / "theme.css").write_text(
        "@font-face { src: url('https://fonts.example.com/a.woff2') }")
    found = _offline().external_resources(tmp_path)
    assert found == {
        "api/fit.html": ["//cdn.example.org/x.css",
                         "https://cdn.jsdelivr.net/npm/mathjax@4/tex-mml-chtml.js"],
        "times.html": ["http://example.org/logo.png", "https://code.jquery.com/jquery-3.7.0.js"],
        "_static/theme.css": ["https://fonts.example.com/a.woff2"],
    }
    assert _offline().main([str(tmp_path)]) == 1


def test_links_and_local_files_pass_gh29(tmp_path):
    (tmp_path / "index.html").write_text(
        '<script src="_static/mathjax/tex-chtml.js"></script>'
        '<link rel="stylesheet" href="_static/styles/theme.css?digest=1">'
        '<link rel="canonical" href="https://example.org/index.html">'
        '<a href="https://github.com/">repository</a><img src="img/profile.png">')
    assert _offline().external_resources(tmp_path) == {}
    assert _offline().main([str(tmp_path)]) == 0
