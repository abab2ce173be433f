"""The vignettes (jupytext percent scripts with Markdown cells) as sphinx-gallery examples.

sphinx-gallery reads reStructuredText from a module docstring and from ``# %%`` comment
blocks. :func:`convert` writes a copy of a vignette in that form: the jupytext header goes,
the first Markdown cell becomes the docstring (its ``#`` heading the title), later Markdown
cells become text blocks, and the Markdown the vignettes use (headings, inline code, bold,
lists, links, ``$math$``) is rewritten as reStructuredText. Code cells are copied unchanged.
"""

from __future__ import annotations

import re
from pathlib import Path

HEADER = """Vignettes
=========

Each vignette answers one question with the package, reproduces a paper's table or figure and
prints its comparison numbers (R, the papers). They are jupytext percent scripts in
``vignettes/``: open them as notebooks, run them with ``python vignettes/NAME.py``, or read
them here, executed, with the figures they write.
"""

_UNDERLINE = {1: "=", 2: "-", 3: "~", 4: "^"}


def _inline(text: str) -> str:
    # a bar outside code spans is literal text in Markdown (|z|) but a substitution in reST
    parts = re.split(r"(`[^`]*`|\$[^$]+\$)", text)  # code spans and math keep their bars
    text = "".join(p if p[:1] in "`$" and p else p.replace("|", "\\|") for p in parts)
    text = re.sub(r"(?<!`)`([^`]+)`(?!`)", r"``\1``", text)  # `code` -> ``code``
    text = re.sub(r"\[([^\]]+)\]\(([^)]+)\)", r"`\1 <\2>`__", text)  # links
    return re.sub(r"\$([^$]+)\$", r":math:`\1`", text)


def _markdown_to_rst(lines: list[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        m = re.match(r"^(#{1,4})\s+(.*)$", line)
        if m:
            title = _inline(m.group(2).strip())
            out += [title, _UNDERLINE[len(m.group(1))] * len(title), ""]
        else:
            out.append(_inline(line))
    while out and not out[-1].strip():
        out.pop()
    return out


def _cells(text: str) -> list[tuple[str, list[str]]]:
    """(kind, lines) per cell: kind is "markdown" or "code"; the jupytext header is dropped."""
    lines = text.splitlines()
    if lines and lines[0].strip() == "# ---":
        end = lines.index("# ---", 1)
        lines = lines[end + 1:]
    cells: list[tuple[str, list[str]]] = []
    for line in lines:
        if line.startswith("# %%"):
            cells.append(("markdown" if "[markdown]" in line else "code", []))
        elif cells:
            cells[-1][1].append(line)
        elif line.strip():
            cells.append(("code", [line]))
    return cells


def convert(src: Path, dst: Path) -> None:
    """Write vignette ``src`` as a sphinx-gallery example at ``dst``."""
    parts: list[str] = []
    for k, (kind, lines) in enumerate(_cells(src.read_text(encoding="utf-8"))):
        if kind == "markdown":
            body = [ln[2:] if ln.startswith("# ") else ln.lstrip("#") for ln in lines]
            rst = _markdown_to_rst(body)
            if k == 0:
                parts.append('"""\n' + "\n".join(rst).replace("\\", "\\\\") + '\n"""\n')
            else:
                parts.append("# %%\n" + "\n".join(f"# {ln}".rstrip() for ln in rst) + "\n")
        else:
            code = "\n".join(lines).strip("\n")
            if code:
                parts.append("# %%\n" + code + "\n")
    dst.write_text("\n".join(parts), encoding="utf-8")


def build_sources(vignettes: Path, target: Path) -> None:
    """Convert every ``vignettes/*.py`` into ``target`` (with the gallery's header)."""
    target.mkdir(parents=True, exist_ok=True)
    for old in target.glob("*.py"):
        old.unlink()
    (target / "GALLERY_HEADER.rst").write_text(HEADER, encoding="utf-8")
    for src in sorted(vignettes.glob("*.py")):
        convert(src, target / src.name)
