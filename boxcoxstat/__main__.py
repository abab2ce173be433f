"""Run the command line with ``python -m boxcoxstat``."""

from __future__ import annotations

from boxcoxstat.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
