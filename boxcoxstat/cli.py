"""The ``boxcoxstat`` command line: a demo, fitting columns of a CSV file, listing datasets.

Layer 7: the only module that prints or exits. Every failure becomes one line on stderr,
``boxcoxstat: error: ...``, and exit code 2 (1 for an internal error); set the environment
variable ``BOXCOXSTAT_DEBUG=1`` to see the traceback instead.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd

from boxcoxstat._validation import BoxCoxError

__all__ = ["main"]

_PROG = "boxcoxstat"
_DEMO_COLUMNS = ["MPG", "Weight"]


class _UsageError(Exception):
    """A problem the user can fix: reported as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that reports bad arguments in one line instead of exiting."""

    def error(self, message: str) -> Any:  # type: ignore[override]
        raise _UsageError(f"{message} (see '{self.prog} --help')")


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _alpha(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must lie strictly between 0 and 1, got {text}")
    return value


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=_PROG,
        description="R-style statistics for Box-Cox and Yeo-Johnson power transforms.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = sub.add_parser(
        "demo",
        help="fit Box-Cox to TopGear MPG and Weight by ML and RewML; write plots and a report",
    )
    demo.add_argument(
        "--out",
        default="boxcoxstat-demo",
        metavar="DIR",
        help="folder for the PNG plots and summary.txt (default: ./boxcoxstat-demo)",
    )
    demo.set_defaults(handler=_cmd_demo)

    fit = sub.add_parser("fit", help="fit a power transform to columns of a CSV file")
    fit.add_argument("file", metavar="FILE.csv", help="comma-separated file with a header row")
    fit.add_argument(
        "--columns",
        nargs="+",
        metavar="COL",
        help="columns to transform (default: every numeric column)",
    )
    fit.add_argument(
        "--family",
        choices=["boxcox", "yeojohnson", "auto"],
        default="boxcox",
        help="transform family (default: boxcox)",
    )
    fit.add_argument(
        "--alpha",
        type=_alpha,
        default=0.05,
        help="significance level of intervals and tests (default: 0.05)",
    )
    fit.add_argument(
        "--plot", metavar="DIR", help="also write profile and QQ plots (PNG) into DIR"
    )
    fit.set_defaults(handler=_cmd_fit)

    listing = sub.add_parser("datasets", help="list the datasets (bundled or not)")
    listing.set_defaults(handler=_cmd_datasets)
    return parser


# --- commands -------------------------------------------------------------------------------


def _cmd_datasets(args: argparse.Namespace) -> int:
    from boxcoxstat.datasets import list_datasets

    table = list_datasets()
    width = int(table["name"].str.len().max())
    for row in table.itertuples(index=False):
        shape = f"{row.rows} x {row.columns}"
        note = "" if row.bundled else f" [not bundled: load({row.name!r}, path=...) reads a copy]"
        print(f"{row.name:<{width}}  {shape:>10}  {row.description}{note}")
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    import boxcoxstat as bcs
    from boxcoxstat.datasets import load

    cars = load("topgear")
    data = cars[_DEMO_COLUMNS].set_axis(cars["Maker"] + " " + cars["Model"], axis=0)
    result = _fit(data, family="boxcox")
    robust = bcs.fit(data, family="boxcox", method="rewml")
    text = "\n\n".join([str(result.summary()), str(robust.summary())])
    print(text)
    out = _prepare_dir(args.out)
    (out / "summary.txt").write_text(text + "\n", encoding="utf-8")
    written = ["summary.txt", *_write_plots(result, out)]
    written += _write_plots(robust, out, kinds=("qq",), prefix="rewml_")
    print(f"wrote {len(written)} files ({', '.join(written)}) to {out}")
    return 0


def _cmd_fit(args: argparse.Namespace) -> int:
    data = _read_csv(args.file)
    columns = list(dict.fromkeys(args.columns or _numeric_columns(data, args.file)))
    missing = [c for c in columns if c not in data.columns]
    if missing:
        raise _UsageError(
            f"column(s) {', '.join(repr(c) for c in missing)} not found in {args.file}; "
            f"its columns are: {_list_names(data.columns)}"
        )
    result = _fit(data[columns], family=args.family)
    print(str(result.summary(alpha=args.alpha)))
    if args.plot:
        out = _prepare_dir(args.plot)
        written = _write_plots(result, out, alpha=args.alpha)
        print(f"wrote {len(written)} plots to {out}")
    return 0


# --- helpers --------------------------------------------------------------------------------


def _fit(data: pd.DataFrame, *, family: str) -> Any:
    import boxcoxstat as bcs

    # argparse has already restricted family to the three literal choices
    return bcs.fit(data, family=cast(Any, family), missing="drop")


def _read_csv(path: str) -> pd.DataFrame:
    file = Path(path)
    if not file.exists():
        raise _UsageError(f"file not found: {path}")
    if file.is_dir():
        raise _UsageError(f"{path} is a folder, not a CSV file")
    try:
        return pd.read_csv(file)
    except pd.errors.EmptyDataError:
        raise _UsageError(f"{path} is empty") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise _UsageError(f"cannot read {path} as CSV: {_one_line(exc)}") from None


def _numeric_columns(data: pd.DataFrame, path: str) -> list[str]:
    numeric = [str(c) for c in data.select_dtypes(include="number").columns]
    if not numeric:
        raise _UsageError(
            f"{path} has no numeric column; its columns are: {_list_names(data.columns)}"
        )
    return numeric


def _list_names(names: Sequence[object], limit: int = 40) -> str:
    shown = ", ".join(str(n) for n in list(names)[:limit])
    return shown if len(names) <= limit else f"{shown}, ... ({len(names)} in all)"


def _prepare_dir(path: str) -> Path:
    out = Path(path).resolve()
    if out.exists() and not out.is_dir():
        raise _UsageError(f"{path} exists and is not a folder")
    out.mkdir(parents=True, exist_ok=True)
    return out


def _safe_filename(name: object) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", str(name)).strip("._") or "column"


def _write_plots(
    result: Any,
    out: Path,
    *,
    alpha: float = 0.05,
    kinds: tuple[str, ...] = ("profile", "qq"),
    prefix: str = "",
) -> list[str]:
    """Save the chosen plots (profile, QQ) of each column of ``result`` as PNG; return names."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    for name in result.names:
        stem = _safe_filename(name)
        drawings = (
            ("profile", lambda col: result.plot_profile(column=col, alpha=alpha)),
            ("qq", lambda col: result.qqplot(column=col)),
        )
        for kind, draw in drawings:
            if kind not in kinds:
                continue
            axes = np.asarray(draw(name), dtype=object).ravel()
            figure = axes[0].figure
            filename = f"{prefix}{kind}_{stem}.png"
            figure.savefig(out / filename, dpi=100)
            plt.close(figure)
            written.append(filename)
    return written


def _warn_one_line(message: Warning | str, category: type[Warning], *_: object, **__: Any) -> None:
    print(f"{_PROG}: warning: {_one_line(message)}", file=sys.stderr)


def _fail(message: str) -> None:
    print(f"{_PROG}: error: {_one_line(message)}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Run the ``boxcoxstat`` command line.

    Parameters
    ----------
    argv : list of str, default=None
        The arguments after the program name; ``None`` reads ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit code: 0 on success, 2 for a problem with the input or the arguments (one line
        on stderr starting ``boxcoxstat: error:``), 1 for an internal error.

    Examples
    --------
    >>> from boxcoxstat.cli import main
    >>> main(["datasets"])  # doctest: +ELLIPSIS
    topgear ... 297 x 32  Cars from the TopGear website...
    0
    """
    debug = os.environ.get("BOXCOXSTAT_DEBUG", "") not in ("", "0")
    try:
        args = _build_parser().parse_args(argv)
        with warnings.catch_warnings():
            warnings.showwarning = _warn_one_line  # restored when the block ends
            return int(args.handler(args))
    except SystemExit as exc:  # --help and --version
        return exc.code if isinstance(exc.code, int) else 0
    except (_UsageError, BoxCoxError) as exc:
        if debug:
            raise
        _fail(str(exc))
        return 2
    except OSError as exc:
        if debug:
            raise
        where = f": {exc.filename}" if exc.filename else ""
        _fail(f"{exc.strerror or exc}{where}")
        return 2
    except KeyboardInterrupt:
        _fail("interrupted")
        return 130
    except Exception as exc:
        if debug:
            raise
        _fail(
            f"internal error ({type(exc).__name__}: {exc}); "
            "set BOXCOXSTAT_DEBUG=1 to see the traceback"
        )
        return 1
