"""Check that a built HTML site loads nothing from another host.

A page may *link* anywhere (``<a href>``), but what the browser fetches by itself to show it
(scripts, style sheets, fonts, images, frames) must come with the site, so that it reads the
same offline. :func:`external_resources` lists every such reference to another host in the
HTML pages and CSS files under a folder; ``python docs/_ext/offline.py docs/_build/html``
prints them and exits with status 1 if there are any. The docs' ``conf.py`` runs the same check
when a build finishes.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

# attributes whose URL the browser loads by itself
_TAG = re.compile(r"<(script|link|img|iframe|source|embed|object|video|audio)\b[^>]*>",
                  re.IGNORECASE | re.DOTALL)
_ATTR = re.compile(r"\b(src|href|data|srcset)\s*=\s*([\"'])(.*?)\2", re.IGNORECASE | re.DOTALL)
_REL = re.compile(r"\brel\s*=\s*([\"'])(.*?)\1", re.IGNORECASE)
_CSS_URL = re.compile(r"(?:url\(\s*[\"']?|@import\s+[\"'])(?P<url>(?:https?:)?//[^\"')\s]+)",
                      re.IGNORECASE)
_EXTERNAL = re.compile(r"^(?:https?:)?//", re.IGNORECASE)
# <link rel=...> kinds that make the browser fetch the target
_FETCHED_LINKS = {"stylesheet", "icon", "shortcut", "preload", "modulepreload", "prefetch",
                  "manifest", "apple-touch-icon"}


def _page_resources(html: str) -> list[str]:
    found = []
    for tag in _TAG.finditer(html):
        text = tag.group(0)
        name = tag.group(1).lower()
        if name == "link":
            rel = _REL.search(text)
            kinds = set(rel.group(2).lower().split()) if rel else set()
            if not kinds & _FETCHED_LINKS:
                continue  # e.g. rel="canonical": a link, not a resource
        for attr in _ATTR.finditer(text):
            for url in attr.group(3).split(","):
                url = url.strip().split(" ")[0]
                if _EXTERNAL.match(url):
                    found.append(url)
    found += [m.group("url") for m in _CSS_URL.finditer(html)]  # inline styles
    return found


def external_resources(folder: str | Path) -> dict[str, list[str]]:
    """Every resource an HTML page or a style sheet under ``folder`` loads from another host,
    by file (relative to ``folder``); empty when the site is self-contained."""
    root = Path(folder)
    out: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*")):
        if path.suffix == ".html":
            urls = _page_resources(path.read_text(encoding="utf-8", errors="replace"))
        elif path.suffix == ".css":
            text = path.read_text(encoding="utf-8", errors="replace")
            urls = [m.group("url") for m in _CSS_URL.finditer(text)]
        else:
            continue
        if urls:
            out[str(path.relative_to(root))] = sorted(set(urls))
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python docs/_ext/offline.py BUILT_HTML_FOLDER", file=sys.stderr)
        return 2
    found = external_resources(argv[0])
    for page, urls in found.items():
        print(f"{page}: {', '.join(urls)}")
    if found:
        print(f"{len(found)} file(s) load resources from another host", file=sys.stderr)
        return 1
    print(f"{argv[0]}: nothing is loaded from another host")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
