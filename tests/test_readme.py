"""The README is a map: at most 300 lines, every Python block runs as pasted, in order, in a
fresh interpreter, and its architecture table names every module of the package (issue 29,
item 2)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from tests import mpref

README = mpref.REPO / "README.md"


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.M | re.S)


def test_readme_is_a_map_of_at_most_300_lines_gh29():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 300


def test_readme_python_blocks_run_as_pasted_gh29(tmp_path):
    """All blocks, in order, in one new interpreter (as a reader pasting them one after the
    other), from an empty folder; each block's expected output (the ```text block after it)
    must appear in what the blocks print. Measured: about 4 s."""
    text = README.read_text(encoding="utf-8")
    blocks = _python_blocks(text)
    assert len(blocks) >= 2
    script = "\n".join(blocks)
    env = {**os.environ, "MPLBACKEND": "Agg",
           "PYTHONPATH": os.pathsep.join([str(mpref.REPO), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    printed = out.stdout
    shown = re.findall(r"^```python\n.*?^```\n\n```text\n(.*?)^```", text, flags=re.M | re.S)
    assert shown, "the README shows the output of its examples"
    for expected in shown:
        for line in expected.splitlines():
            assert line.rstrip() in printed, f"README shows {line!r}, the code printed:\n{printed}"


def test_readme_architecture_table_names_every_module_gh29():
    """One row per module (or a row naming several of one subpackage): a module added or
    removed without the table changing fails here."""
    rows = [ln for ln in README.read_text(encoding="utf-8").splitlines()
            if ln.startswith("| ") and ".py`" in ln]
    named: set[str] = set()
    sub = ""
    for row in rows:
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if cells[0]:
            sub = cells[0]
        folder = "" if sub in ("foundation", "(top level)") else sub.strip("`")
        named |= {folder + m for m in re.findall(r"`([\w/]+\.py)`", cells[1])}
    package = mpref.REPO / "boxcoxstat"
    modules = {p.relative_to(package).as_posix() for p in package.rglob("*.py")
               if p.name != "__init__.py"}
    assert modules - named == set(), "modules missing from the README's table"
    assert named - modules == set(), "the README's table names modules that do not exist"


def test_readme_links_point_to_files_in_the_repository_gh29():
    """The README pointed to DESIGN.md and STYLE.md, which are not in the repository."""
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#:]+)\)", text)
    assert targets
    missing = [t for t in targets if not (mpref.REPO / t).exists()]
    assert missing == []
    for name in ("DESIGN.md", "STYLE.md"):
        assert name not in text or (mpref.REPO / name).exists()
