"""A sphinx-gallery image scraper for the vignettes: they save their figures to a folder
(and close them) instead of leaving them open, so the figures each cell wrote are collected
from that folder and shown after the cell."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any


class VignetteFigures:
    """Show the PNG files written to ``folder`` since the previous cell."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.seen: dict[str, float] = {}

    def __repr__(self) -> str:  # sphinx-gallery hashes the configuration by repr
        return "VignetteFigures()"

    def __call__(self, block: Any, block_vars: dict[str, Any], gallery_conf: dict[str, Any]
                 ) -> str:
        from sphinx_gallery.scrapers import figure_rst

        new = []
        for png in sorted(self.folder.glob("*.png")):
            stamp = png.stat().st_mtime
            if self.seen.get(png.name) != stamp:
                self.seen[png.name] = stamp
                new.append(png)
        paths = []
        for png, target in zip(new, block_vars["image_path_iterator"], strict=False):
            shutil.copyfile(png, target)
            paths.append(target)
        return figure_rst(paths, gallery_conf["src_dir"])
