"""The ``boxcoxstat`` command line: a demo, fitting columns of a CSV file, listing datasets.

The only module that prints or exits. Every failure becomes one line on stderr,
``boxcoxstat: error: ...``, and exit code 2 (1 for an internal error); set the environment
variable ``BOXCOXSTAT_DEBUG=1`` to see the traceback instead. A reader that closes standard
output early (``| head``) ends the command quietly with exit code 141.

Messages speak the command line's language: the package's advice ``family='yeojohnson'``
reads ``--family yeojohnson``, and rows are named by the line of the file they start on (the
header is line 1; a quoted field that spans lines belongs to the line where its row starts).
Only regular files are read (a named pipe, a device or a folder is refused at once rather
than waited on); ``-`` reads standard input.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import stat
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd

from boxcoxstat._validation import BoxCoxError, normalize_family
from boxcoxstat.api import FIT, _check

__all__ = ["main"]

_PROG = "boxcoxstat"
_DEMO_COLUMNS = ["MPG", "Weight"]
_METHODS = ("mle", "rewml", "carroll", "mtl")  # the estimators bcs.fit takes (method=)
_SEPARATORS = ",;\t|"


class _UsageError(Exception):
    """A problem the user can fix: reported as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that reports bad arguments in one line instead of exiting."""

    def error(self, message: str) -> Any:  # type: ignore[override]
        raise _UsageError(f"{message} (see '{self.prog} --help')")


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive finite number, got {text}")
    return value


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

    fdemo = sub.add_parser(
        "federated-demo",
        help="fit Box-Cox to TopGear MPG split across Flower SuperNodes on 127.0.0.1 and "
             "compare with the central fit (needs boxcoxstat[flower])",
    )
    fdemo.add_argument("--clients", type=int, default=3, metavar="K",
                       help="number of SuperNodes (sites), 2 to 20 (default: 3)")
    fdemo.add_argument("--timeout", type=float, default=180.0, metavar="S",
                       help="seconds a round may take (default: 180; Flower starts a process "
                            "per message)")
    fdemo.add_argument("--fault", choices=("crash", "silent"), default=None,
                       help="make the last site crash (from round 2) or fall silent, to show "
                            "it dropped and reported by node id while the others finish")
    fdemo.add_argument("--workdir", default=None, metavar="DIR",
                       help="folder for the app, keys and logs (default: a new temporary one)")
    fdemo.set_defaults(handler=_cmd_federated_demo)

    fit = sub.add_parser("fit", help="fit a power transform to columns of a CSV file")
    fit.add_argument("file", metavar="FILE.csv",
                     help="delimited text file with a header row ('-' reads standard input); "
                          "rows are named by their line in it (the header is line 1)")
    fit.add_argument("--sep", type=_separator, metavar="SEP",
                     help="field separator, e.g. ',' ';' '\\t' (default: detected from the file)")
    fit.add_argument("--decimal", choices=[".", ","],
                     help="decimal mark (default: '.', or ',' when the separator is not a "
                          "comma and numbers are written 0,5)")
    fit.add_argument(
        "--columns",
        nargs="+",
        metavar="COL",
        help="columns to transform (default: every numeric column)",
    )
    fit.add_argument(
        "--family",
        type=_family,
        default="boxcox",
        metavar="FAMILY",
        help="transform family: boxcox (bc), yeojohnson (yj), bcnpower (Box-Cox with an "
             "estimated shift, for data of any sign) or auto (default: boxcox)",
    )
    fit.add_argument(
        "--method",
        choices=list(_METHODS),
        default="mle",
        help="estimator: maximum likelihood or a robust one (default: mle)",
    )
    fit.add_argument(
        "--ymax", type=_positive, metavar="Y",
        help="bound the transformed values' magnitude by Y (lambda restricted accordingly; "
             "--method mle only), e.g. 1e300 when --output would overflow",
    )
    fit.add_argument(
        "--lmbda", type=_power, metavar="L",
        help="a fixed power instead of the estimate, or 'safe': the most likely power that "
             "keeps the data's resolution in float64 (--method mle only)",
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
    fit.add_argument(
        "--output", metavar="OUT.csv",
        help="also write the table with the fitted columns transformed (same separator)",
    )
    fit.add_argument("--json", action="store_true",
                     help="print the result as JSON (the result's to_json) instead of the report")
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


def _cmd_federated_demo(args: argparse.Namespace) -> int:
    import numpy as np
    import pandas as pd

    import boxcoxstat as bcs
    from boxcoxstat.datasets import load
    from boxcoxstat.federated.deploy import run_demo

    k = args.clients
    if not 2 <= k <= 20:
        raise _UsageError(f"--clients must be from 2 to 20, got {k}")
    mpg = load("topgear")["MPG"].dropna().to_numpy(dtype=float)
    parts = np.array_split(mpg, k)
    faults = {k - 1: args.fault} if args.fault else {}
    print(f"Flower deployment engine on 127.0.0.1: 1 SuperLink (TLS, node authentication) "
          f"and {k} SuperNodes; TopGear MPG ({mpg.size} values) split {[p.size for p in parts]}")
    doc = run_demo([pd.DataFrame({"MPG": p}) for p in parts], family="boxcox",
                   timeout=args.timeout, faults=faults, workdir=args.workdir,
                   log=lambda m: print("  " + m, flush=True))
    if not doc.get("ok"):
        raise BoxCoxError(f"the federated fit failed: {doc.get('error')}; dropped: "
                          f"{doc.get('dropped')}")
    fed = bcs.PowerTransformResult.from_json(json.dumps(doc["result"]))
    kept = [p for i, p in enumerate(parts) if i not in faults]
    central = bcs.fit(np.concatenate(kept), family="boxcox")
    rows = {"lambda": (float(fed.lmbda), float(central.lmbda)),
            "std err": (float(fed.bse.iloc[0]), float(central.bse.iloc[0])),
            "ci lower": tuple(float(r.conf_int().iloc[0, 0]) for r in (fed, central)),
            "ci upper": tuple(float(r.conf_int().iloc[0, 1]) for r in (fed, central)),
            "llf": (float(fed.llf), float(getattr(central, "llf", float("nan"))))}
    print(f"\n{'':10}{'federated (Flower)':>22}{'central':>22}{'difference':>14}")
    for name, (a, b) in rows.items():
        print(f"{name:10}{a:22.15g}{b:22.15g}{a - b:14.2e}")
    info = fed.federated or {}
    print(f"\nrounds: {info.get('rounds')}; dropped: {info.get('dropped') or 'none'}")
    print("messages (numbers per client): " + "; ".join(
        f"{r['kind']} x{r['rounds']}: {r['down']} down, {r['up_per_client']} up"
        for r in info.get("by_kind", [])))
    gap = abs(rows["lambda"][0] - rows["lambda"][1])
    agree = gap <= 1e-10 * max(1.0, abs(rows["lambda"][1]))
    print("agree to 1e-10: " + ("yes" if agree else f"NO (|difference| = {gap:.3g})"))
    return 0 if agree else 1


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
    where = "standard input" if args.file == "-" else args.file
    try:  # the estimator table's verdict on the options, before the file is read
        _check(FIT, family=args.family, estimator=args.method, ymax=args.ymax,
               lmbda=args.lmbda, spelling="cli")
    except BoxCoxError as exc:
        raise _UsageError(str(exc)) from None
    data, sep, decimal = _read_csv(args.file, args.sep, args.decimal)
    columns = list(dict.fromkeys(args.columns or _numeric_columns(data, where, decimal)))
    missing = [c for c in columns if c not in data.columns]
    if missing:
        raise _UsageError(
            f"column(s) {', '.join(repr(c) for c in missing)} not found in {where}; "
            f"its columns are: {_list_names(data.columns)}"
        )
    numbers = _numbers(data, columns, where, decimal)
    try:  # the data's row labels are the file's line numbers: say "line", not "row"
        result = _fit(numbers, family=args.family, method=args.method, ymax=args.ymax,
                      lmbda=args.lmbda)
        transformed = result.transform(numbers) if args.output else None
    except BoxCoxError as exc:
        raise BoxCoxError(_rows_as_lines(str(exc), data.index.name)) from None
    # with --json, stdout carries the JSON document only; notes go to stderr
    note = sys.stderr if args.json else sys.stdout
    if args.output:
        table = data.copy()
        table[columns] = transformed
        table.to_csv(args.output, index=False, sep=sep, decimal=decimal)
        print(f"wrote the transformed data to {Path(args.output).resolve()}", file=note)
    if args.plot:
        out = _prepare_dir(args.plot)
        kinds = ("profile", "qq") if args.method == "mle" else ("qq",)
        written = _write_plots(result, out, alpha=args.alpha, kinds=kinds)
        print(f"wrote {len(written)} plots to {out}", file=note)
    if args.json:
        print(result.to_json())
    else:
        print(str(result.summary(alpha=args.alpha)))
    return 0


# --- helpers --------------------------------------------------------------------------------


def _fit(data: pd.DataFrame, *, family: str, method: str = "mle",
         ymax: float | None = None, lmbda: float | str | None = None) -> Any:
    import boxcoxstat as bcs

    # argparse has already restricted family and method to their literal choices
    fixed: dict[str, Any] = {} if lmbda is None else {"lmbda": lmbda}
    return bcs.fit(data, family=cast(Any, family), method=cast(Any, method), missing="drop",
                   ymax=ymax, **fixed)


def _power(text: str) -> float | str:
    """``--lmbda``: a finite number, or ``safe``."""
    if text.strip().lower() == "safe":
        return "safe"
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'safe', got {text!r}") from None
    if not np.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def _read_text(path: str) -> str:
    """The whole text of ``path``, or of standard input for ``-`` (UTF-8, a BOM dropped)."""
    if path == "-":
        stdin = sys.stdin
        if stdin is None or stdin.isatty():
            raise _UsageError("'-' reads the data from standard input, but nothing is piped "
                              "in; use: cat data.csv | boxcoxstat fit -")
        raw = stdin.buffer.read() if hasattr(stdin, "buffer") else stdin.read().encode()
        where = "standard input"
    else:
        raw = _read_regular_file(path)
        where = path
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise _UsageError(f"{where} is not UTF-8 text; save it as UTF-8 CSV") from None


_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _read_regular_file(path: str) -> bytes:
    """The bytes of the regular file ``path``; a folder, a named pipe, a device or a socket
    is refused before it is read (reading a pipe without a writer would wait for ever). The
    file is opened without blocking and checked again on the open descriptor."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise _UsageError(f"file not found: {path}") from None
    _require_regular(path, mode)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with os.fdopen(fd, "rb") as file:
        _require_regular(path, os.fstat(file.fileno()).st_mode)  # replaced since os.stat?
        return file.read()


def _require_regular(path: str, mode: int) -> None:
    if stat.S_ISDIR(mode):
        raise _UsageError(f"{path} is a folder, not a CSV file")
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        raise _UsageError(f"{path} is {kind}, not a regular file; to read a stream, pipe it "
                          f"into standard input: cat {path} | {_PROG} fit -")


def _sniff(text: str, sep: str | None, decimal: str | None) -> tuple[str, str]:
    """The separator (given, or the one csv.Sniffer finds among , ; tab |, else a comma) and
    the decimal mark (given, or ',' when the separator is not a comma and numbers are
    written with decimal commas, else '.')."""
    if sep is None:
        try:
            sep = csv.Sniffer().sniff(text[:65536], delimiters=_SEPARATORS).delimiter
        except csv.Error:
            sep = ","
    if decimal is None:
        body = text.split("\n", 1)[1] if "\n" in text else ""
        comma = sep != "," and re.search(r"(?<![\d.,])-?\d+,\d+(?![\d,])", body[:65536])
        decimal = "," if comma and not re.search(r"\d\.\d", body[:65536]) else "."
    if sep == decimal:
        raise _UsageError(f"the separator and the decimal mark are both {sep!r}; "
                          "give --sep and --decimal")
    return sep, decimal


def _read_csv(path: str, sep: str | None = None, decimal: str | None = None
              ) -> tuple[pd.DataFrame, str, str]:
    """The table in ``path`` (``-``: standard input), with the separator and decimal mark
    used to read it."""
    where = "standard input" if path == "-" else path
    text = _read_text(path)
    if not text.strip():
        raise _UsageError(f"{where} is empty")
    sep, decimal = _sniff(text, sep, decimal)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            data = pd.read_csv(io.StringIO(text), sep=sep, decimal=decimal, index_col=False)
    except pd.errors.EmptyDataError:
        raise _UsageError(f"{where} is empty") from None
    except pd.errors.ParserWarning:
        raise _UsageError(f"rows of {where} have more fields than its header when split at "
                          f"{sep!r}; check --sep and --decimal") from None
    except (pd.errors.ParserError, ValueError) as exc:
        raise _UsageError(f"cannot read {where} as CSV with separator {sep!r}: "
                          f"{_one_line(exc)}; check --sep and --decimal") from None
    if data.shape[1] == 1:
        name = str(data.columns[0])
        found = [c for c in _SEPARATORS if c in name and c != sep]
        if found:
            raise _UsageError(
                f"{where} was read as one column named {name!r}, which contains "
                f"{found[0]!r}: if that separates the fields, pass --sep {found[0]!r}"
            )
    if data.shape[0] == 0:
        raise _UsageError(f"{where} has a header but no rows")
    lines = _record_lines(text, sep, data.shape[0])
    if lines is None:  # a layout whose records we cannot match to pandas' rows
        data.index = pd.RangeIndex(1, data.shape[0] + 1, name="data row")
    else:
        data.index = pd.Index(lines, name="line")
    return data, sep, decimal


def _record_lines(text: str, sep: str, n: int) -> list[int] | None:
    """The line on which each of the ``n`` data records of ``text`` starts (the header is
    line 1; a quoted field may span lines), or ``None`` when the records found here do not
    match pandas' ``n`` rows. Blank lines are skipped, as pandas skips them."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep, quotechar='"')
    starts, previous = [], 0
    try:
        for record in reader:
            # pandas skips empty lines and lines of spaces, not a quoted empty field ("")
            if record and not (len(record) == 1 and record[0] and not record[0].strip()):
                starts.append(previous + 1)
            previous = reader.line_num
    except csv.Error:
        return None
    return starts[1:] if len(starts) == n + 1 else None


def _rows_as_lines(message: str, label: str | None) -> str:
    """A message from the package with "row N" read as the CLI's row label (the line)."""
    return re.sub(r"\brow (\d+)\b", lambda m: f"{label or 'row'} {m.group(1)}", message)


def _family(text: str) -> str:
    try:
        return normalize_family(text, allow_shifted=True)
    except BoxCoxError:
        raise argparse.ArgumentTypeError(
            f"unknown family {text!r}; use boxcox (bc), yeojohnson (yj), bcnpower or auto"
        ) from None


def _separator(text: str) -> str:
    value = {"\\t": "\t", "tab": "\t", "TAB": "\t"}.get(text, text)
    if len(value) != 1 or value in ('"', "\n", "\r") or value.isalnum():
        raise argparse.ArgumentTypeError(f"a separator is one character such as , ; | or "
                                         f"'\\t', got {text!r}")
    return value


def _numeric_columns(data: pd.DataFrame, path: str, decimal: str = ".") -> list[str]:
    """Every numeric column, in order; a column of numbers with a few cells that are not
    numbers (a corrupt cell, a stray NUL byte) is taken too, so :func:`_numbers` names the
    cells rather than the column silently dropping out of the fit."""
    numeric = [str(c) for c in data.columns if _mostly_numbers(data[c], decimal)]
    if not numeric:
        text = data.select_dtypes(exclude="number").astype(str)
        commas = text.apply(lambda c: c.str.fullmatch(r"-?\d+,\d+").any()).any()
        hint = "; numbers such as '0,5' need --decimal ," if commas else ""
        raise _UsageError(
            f"{path} has no numeric column; its columns are: {_list_names(data.columns)}{hint}"
        )
    return numeric


def _as_numbers(column: pd.Series, decimal: str = ".") -> tuple[pd.Series, pd.Series]:
    """A column as floats and the mask of its cells that are not numbers (cells pandas
    read as missing, and blank ones, are missing, not bad)."""
    if pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
        values = column.astype(np.float64)
        return values, pd.Series(False, index=column.index)
    text = column.astype(object).where(column.notna(), None)
    blank = text.map(lambda v: isinstance(v, str) and not v.strip())
    text = text.where(~blank, None)
    if decimal != ".":
        text = text.map(lambda v: v.replace(decimal, ".") if isinstance(v, str) else v)
    values = pd.to_numeric(text, errors="coerce").astype(np.float64)
    return values, text.notna() & values.isna()


def _mostly_numbers(column: pd.Series, decimal: str = ".") -> bool:
    """True for a numeric column, or a text column most of whose cells are numbers."""
    if pd.api.types.is_bool_dtype(column):
        return False
    if pd.api.types.is_numeric_dtype(column):
        return True
    values, bad = _as_numbers(column, decimal)
    return int(values.notna().sum()) > int(bad.sum())


def _numbers(data: pd.DataFrame, columns: list[str], where: str, decimal: str
             ) -> pd.DataFrame:
    """The chosen columns as floats, labelled by line; a cell that is not a number is
    refused, named by column and line (and its count when there are more)."""
    out = {}
    for name in columns:
        if pd.api.types.is_bool_dtype(data[name]):  # the fit's gate says why it refuses
            out[name] = data[name]
            continue
        values, bad = _as_numbers(data[name], decimal)
        if bad.any():
            first = bad.idxmax()
            more = int(bad.sum()) - 1
            others = f" (and {more} more cell(s) that are not numbers)" if more else ""
            cell = data[name].loc[first]
            raise _UsageError(
                f"column {name!r} of {where} is not numeric: {data.index.name} {first} holds "
                f"{cell!r:.60}{others}; fix the cell (an empty cell is read as missing), or "
                "leave the column out with --columns"
            )
        out[name] = values
    return pd.DataFrame(out, index=data.index)


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


def _cli_terms(message: str) -> str:
    """The package's advice in command-line terms: ``family='yeojohnson'`` becomes
    ``--family yeojohnson`` (likewise ``method=``), ``ymax=1e300`` ``--ymax 1e300``."""
    message = re.sub(r"bcs\.fit\(\.\.\., lmbda=(['\"])safe\1\)", "--lmbda safe", message)
    message = re.sub(r"\blmbda=(['\"])safe\1", "--lmbda safe", message)
    message = re.sub(r"\b(family|method)=(['\"])([\w-]+)\2", r"--\1 \3", message)
    return re.sub(r"\bymax=(\d[\w.+-]*)?", lambda m: "--ymax" + (f" {m[1]}" if m[1] else ""),
                  message)


def _warn_one_line(message: Warning | str, category: type[Warning], *_: object, **__: Any) -> None:
    print(f"{_PROG}: warning: {_one_line(_cli_terms(str(message)))}", file=sys.stderr)


def _fail(message: str) -> None:
    print(f"{_PROG}: error: {_one_line(_cli_terms(message))}", file=sys.stderr)


def _silence_stdout() -> None:
    """Point standard output at the null device so the interpreter's final flush of a
    closed pipe does not print an error."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # stdout without a file descriptor
        pass


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
        on stderr starting ``boxcoxstat: error:``), 1 for an internal error, 141 (silently)
        when the reader of standard output has gone (``boxcoxstat fit f.csv | head``).

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
            code = int(args.handler(args))
            sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
            return code
    except SystemExit as exc:  # --help and --version
        return exc.code if isinstance(exc.code, int) else 0
    except BrokenPipeError:
        # the reader went away (| head): stop quietly, as Python's documentation recommends
        _silence_stdout()
        return 141
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
