"""The vignettes (jupytext percent scripts with Markdown cells) as sphinx-gallery examples.

sphinx-gallery reads reStructuredText from a module docstring and from ``# %%`` comment
blocks. :func:`convert` writes a copy of a vignette in that form: the jupytext header goes,
the first Markdown cell becomes the docstring (its ``#`` heading the title), later Markdown
cells become text blocks, and the Markdown the vignettes use (headings, inline code, bold,
lists, links, ``$math$``) is rewritten as reStructuredText. Code cells are copied unchanged.

A vignette that reads data boxcoxstat may not bundle declares the files in its jupytext
header (``data_not_bundled: [house_prices_train.csv]``); its page says so in a note, and
:func:`build_sources` reports the ones whose files are absent, which the gallery shows
without running them.
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
_NOT_BUNDLED = re.compile(r"^#\s+data_not_bundled:\s*\[([^\]]*)\]\s*$", re.M)


def data_not_bundled(src: Path) -> list[str]:
    """The files a vignette reads from the shared data folder (its header's
    ``data_not_bundled`` list; empty when it reads bundled data only)."""
    m = _NOT_BUNDLED.search(src.read_text(encoding="utf-8"))
    return [] if m is None else [f.strip() for f in m.group(1).split(",") if f.strip()]


def _data_note(files: list[str], missing: list[str]) -> list[str]:
    """A reST note saying which shared files the vignette reads and, if some are absent,
    that the page shows it without running it."""
    names = ", ".join(f"``{f}``" for f in files)
    it, verb = ("it", "was") if len(missing) < 2 else ("them", "were")
    text = (f"This vignette reads {names}, which boxcoxstat does not bundle (see "
            f"``data/README.md`` for where to get {'it' if len(files) < 2 else 'them'}). It "
            "looks in ``../shared/data`` next to the repository, or in the folder named by the "
            "environment variable ``BOXCOXSTAT_SHARED_DATA``.")
    if missing:
        absent = ", ".join(f"``{f}``" for f in missing)
        text += (f" {absent} {verb} not there when these pages were built, so the vignette "
                 f"is shown without being run (no output or figures); put {it} there and "
                 "rebuild to run it.")
    return [".. note::", "", "   " + text, ""]


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


def convert(src: Path, dst: Path, missing: list[str] | None = None) -> None:
    """Write vignette ``src`` as a sphinx-gallery example at ``dst``; ``missing`` are its
    shared data files that are absent (its page then says it was not run)."""
    needs = data_not_bundled(src)
    parts: list[str] = []
    for k, (kind, lines) in enumerate(_cells(src.read_text(encoding="utf-8"))):
        if kind == "markdown":
            body = [ln[2:] if ln.startswith("# ") else ln.lstrip("#") for ln in lines]
            rst = _markdown_to_rst(body)
            if k == 0:
                if needs:  # after the title (its line, underline and a blank line)
                    rst[3:3] = _data_note(needs, missing or [])
                parts.append('"""\n' + "\n".join(rst).replace("\\", "\\\\") + '\n"""\n')
            else:
                parts.append("# %%\n" + "\n".join(f"# {ln}".rstrip() for ln in rst) + "\n")
        else:
            code = "\n".join(lines).strip("\n")
            if code:
                parts.append("# %%\n" + code + "\n")
    dst.write_text("\n".join(parts), encoding="utf-8")


def build_sources(vignettes: Path, target: Path, shared: Path) -> dict[str, list[str]]:
    """Convert every ``vignettes/*.py`` into ``target`` (with the gallery's header).

    Returns the vignettes (file names) whose shared data files are not in ``shared``, with
    those files: the gallery must not run them.
    """
    target.mkdir(parents=True, exist_ok=True)
    for old in target.glob("*.py"):
        old.unlink()
    (target / "GALLERY_HEADER.rst").write_text(HEADER, encoding="utf-8")
    absent: dict[str, list[str]] = {}
    for src in sorted(vignettes.glob("*.py")):
        missing = [f for f in data_not_bundled(src) if not (shared / f).is_file()]
        if missing:
            absent[src.name] = missing
        convert(src, target / src.name, missing)
    return absent
