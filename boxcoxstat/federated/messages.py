"""The protocol's messages: small frozen records that serialise to JSON, with their checks.

Four kinds of message travel between the server and the clients:

========================  =========  ===================================================
message                   direction  what it reveals
========================  =========  ===================================================
:class:`SetupReport`      up, once   per side (x >= 0 / x < 0): count, min and max of
                                     the client's values; the number of missing values
:class:`Frame`            down, once the reference value of each side (the server's
                                     choice, a function of the global min and max)
:class:`Request`          down       lambda(s) and, per side, the shift of the frame
:class:`MomentsReply`     up         per side and lambda: count ``n``, sum of log-ratios
                                     ``c``, sum of shifted log-ratios, mean ``m`` and
                                     sum of squared deviations ``s`` of the scaled
                                     transform and (score rounds) the mean of its
                                     lambda-derivative and the co-moment ``c2``
========================  =========  ===================================================

Those four are the full protocol's (``protocol="full"``). The paper's protocol (the default,
``protocol="minimal"``, :mod:`~boxcoxstat.federated.paper`) has four of its own:
:class:`CountsRequest` (down, no numbers), :class:`CountsReport` (up, once per column: the
three counts, no minimum or maximum), :class:`LambdaRequest` (down: lambda alone) and
:class:`PaperReply` (up: Box-Cox ``(c, n, mean, s)``, Yeo-Johnson ``(c, n_pos, n_neg, mean,
s)``).

Under the full protocol a reply reveals what Xu & Cormode (2025, Algorithms 2-3) send --
``(c, n, mean, s)`` of the transformed data, counts per sign -- plus two derivative moments
in score rounds and the shifted sum ``c - n * shift`` (redundant given the frame). Box-Cox
data have one side.

Labels -- the client's name, the column index, the number and names of the columns and the
round number a reply must echo -- are not counted as numbers.

Every number is counted as 8 bytes (float64) for the communication tally; :meth:`to_json`
gives the wire form.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, fields
from typing import Any

from .._validation.columns import BoxCoxError

__all__ = [
    "SetupReport",
    "Frame",
    "Request",
    "SideStats",
    "MomentsReply",
    "CountsRequest",
    "CountsReport",
    "LambdaRequest",
    "PaperReply",
    "BYTES_PER_NUMBER",
    "MAX_DEPTH",
    "message_from_json",
]

BYTES_PER_NUMBER = 8
MAX_DEPTH = 4  # deepest nesting of a message: reply {} > side {} > list []
_LABELS = frozenset({"client", "column", "ncols", "columns", "round"})


def _count_numbers(obj: Any) -> int:
    if obj is None:
        return 0
    if isinstance(obj, _Message):
        return sum(_count_numbers(getattr(obj, f.name)) for f in fields(obj)  # type: ignore
                   if f.name not in _LABELS)
    if isinstance(obj, (list, tuple)):
        if obj and isinstance(obj[0], (int, float)):  # a flat sequence of numbers
            return len(obj)
        return sum(_count_numbers(o) for o in obj)
    if isinstance(obj, (bool, str)):
        return 0
    return 1


class _Message:
    """Mixin: JSON round trip and byte count."""

    def to_dict(self) -> dict[str, Any]:
        doc = asdict(self)  # type: ignore[call-overload]
        doc["type"] = type(self).__name__
        return doc

    def to_json(self) -> str:
        """The message as JSON (non-finite numbers are written as NaN/Infinity)."""
        return json.dumps(self.to_dict(), allow_nan=True)

    @property
    def nbytes(self) -> int:
        """Size on the wire, counting 8 bytes per number (flags and labels are free)."""
        return BYTES_PER_NUMBER * _count_numbers(self)


@dataclass(frozen=True)
class SetupReport(_Message):
    """First message of a client, per column: counts and ranges per side.

    ``n_pos``, ``n_neg`` count values with x >= 0 and x < 0 (Box-Cox: all in ``n_pos``);
    ``pos_range``/``neg_range`` are ``(min, max)`` of each side, ``None`` when it is empty.
    ``column`` is the column reported on, ``ncols`` how many the client holds and ``columns``
    their names (``None`` for unnamed data such as a NumPy array).
    """

    client: str
    n_pos: int
    n_neg: int
    n_missing: int
    pos_range: tuple[float, float] | None
    neg_range: tuple[float, float] | None
    column: int = 0
    ncols: int = 1
    columns: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Frame(_Message):
    """The common reference values (x scale) of each side, chosen by the server.

    ``pos_range``/``neg_range``: the global range of each side, sent only under
    ``protocol="minimal"`` (the client then derives each round's shift from the lambda).
    """

    family: str
    ref_pos: float | None
    ref_neg: float | None
    column: int = 0
    pos_range: tuple[float, float] | None = None
    neg_range: tuple[float, float] | None = None


@dataclass(frozen=True)
class Request(_Message):
    """One round: the lambdas to evaluate and the shift of each side's frame per lambda
    (empty under ``protocol="minimal"``); ``round`` numbers the request, the reply echoes it.

    Frozen, and its sequences are tuples (an array or list given is copied into one); the
    server hands every client its own copy."""

    lmbda: tuple[float, ...]
    shift_pos: tuple[float, ...]
    shift_neg: tuple[float, ...]
    score: bool
    column: int = 0
    round: int = 0

    def __post_init__(self) -> None:
        # immutable all the way down: sequences (a NumPy array, a list) are kept as tuples
        for name in ("lmbda", "shift_pos", "shift_neg"):
            v = getattr(self, name)
            if isinstance(v, (list, tuple)) or hasattr(v, "__array__"):
                object.__setattr__(self, name, tuple(v))


@dataclass(frozen=True)
class SideStats(_Message):
    """One side's moments at each requested lambda (tuples of equal length).

    ``n`` count, ``c`` sum of log-ratios ``v``, ``d_sum`` sum of ``v - shift``, ``mean`` and
    ``s`` the mean and sum of squared deviations of ``phi = expm1(k d)/k``, ``mean_chi`` and
    ``c2`` those of its derivative (NaN in NLL-only rounds; ``d_sum``, ``mean_chi`` and ``c2``
    are empty under ``protocol="minimal"``).
    """

    n: int
    c: float
    d_sum: tuple[float, ...]
    mean: tuple[float, ...]
    s: tuple[float, ...]
    mean_chi: tuple[float, ...]
    c2: tuple[float, ...]


@dataclass(frozen=True)
class MomentsReply(_Message):
    """A client's answer to a :class:`Request`: the stats of each side it holds."""

    client: str
    pos: SideStats | None
    neg: SideStats | None
    column: int = 0
    round: int = 0

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> MomentsReply:
        """Rebuild from :meth:`to_dict` output (checked as :func:`message_from_json` does)."""
        return _build("MomentsReply", dict(doc))


# ------------------------------------------------- the paper's protocol (protocol="minimal")
@dataclass(frozen=True)
class CountsRequest(_Message):
    """Set-up of a column under ``protocol="minimal"``: the family to check the values for,
    whether the client is asked for its range (``share_range=True``, an opt-in) and whether
    the fit is weighted (``weights=``: the client then reports its weight totals)."""

    family: str
    column: int = 0
    share_range: bool = False
    weighted: bool = False


@dataclass(frozen=True)
class CountsReport(_Message):
    """Set-up under ``protocol="minimal"``: counts only (no minimum, no maximum).

    ``n_pos``/``n_neg`` count the values with x >= 0 and x < 0 (Box-Cox: all in ``n_pos``),
    ``n_missing`` the missing ones. ``value_range`` is ``(min, max)`` of the client's column
    only when the server asked for it (``share_range=True``, an explicit opt-in that the
    summary reports).

    Under case weights (``CountsRequest.weighted``) also: ``weight_sum`` (the total of the
    client's weights; rows of weight 0 are left out and not counted), ``log_weight_sum``
    (the sum of their logs, for the log-likelihood only) and, for a client whose values are
    all on one side, ``ratio_sum_boxcox`` / ``ratio_sum_yeojohnson``: the sum of its
    log-ratios to their geometric mean (by construction the rounding residue of ``c``,
    about 1e-14; the weighted moments no longer carry it, see
    :meth:`~boxcoxstat.federated.paper.Frame.anchor`), for the families the set-up asks.
    """

    client: str
    n_pos: int
    n_neg: int
    n_missing: int
    column: int = 0
    ncols: int = 1
    columns: tuple[str, ...] | None = None
    value_range: tuple[float, float] | None = None
    n_zero: int | None = None  # values equal to 0 (sent under family="auto" only)
    weight_sum: float | None = None
    log_weight_sum: float | None = None
    ratio_sum_boxcox: float | None = None
    ratio_sum_yeojohnson: float | None = None


@dataclass(frozen=True)
class LambdaRequest(_Message):
    """One round of the paper's protocol: the lambda(s) alone (one per round while lambda
    is sought; the two ends of the profile interval in its rounds)."""

    family: str
    lmbda: tuple[float, ...]
    column: int = 0
    round: int = 0

    def __post_init__(self) -> None:
        v = self.lmbda
        if isinstance(v, list) or hasattr(v, "__array__"):
            object.__setattr__(self, "lmbda", tuple(v))


@dataclass(frozen=True)
class PaperReply(_Message):
    """A client's answer in the paper's protocol, per lambda of the request.

    Box-Cox (Xu & Cormode 2025, Algorithm 2): ``(c, n, mean, s)`` with ``c`` the sum of
    ``log x``, ``n`` the count (``n_pos``; ``n_neg`` is ``None``), ``mean`` and ``s`` the mean
    and sum of squared deviations of the client's transformed values. Yeo-Johnson (Algorithm
    3): ``(c, n_pos, n_neg, mean, s)`` with ``c`` the sum of ``sign(x) log(1 + |x|)``. A
    client whose values are all on one side sends the moments of ``expm1(k d)/k``, ``d`` the
    log-ratio of its bases to their geometric mean ``exp(c/n)`` (which the server derives
    from ``c`` and ``n``: nothing more is revealed); a mixed-sign client those of
    ``psi_YJ(lambda, x)`` itself, as Algorithm 3 does. ``NaN`` for both ``mean`` and ``s`` at
    a lambda where the client's transformed values overflow float64 (the server then treats
    the NLL there as infinite).
    """

    client: str
    c: float
    n_pos: int
    n_neg: int | None
    mean: tuple[float, ...]
    s: tuple[float, ...]
    column: int = 0
    round: int = 0


# ----------------------------------------------------------------------- parsing
# what each field of each message must hold on the wire
_SCHEMA: dict[str, dict[str, str]] = {
    "SetupReport": {"client": "str", "n_pos": "count", "n_neg": "count", "n_missing": "count",
                    "pos_range": "range?", "neg_range": "range?", "column": "count?",
                    "ncols": "count?", "columns": "names?"},
    "Frame": {"family": "str", "ref_pos": "number?", "ref_neg": "number?", "column": "count?",
              "pos_range": "range?", "neg_range": "range?"},
    "Request": {"lmbda": "numbers", "shift_pos": "numbers", "shift_neg": "numbers",
                "score": "bool", "column": "count?", "round": "count?"},
    "SideStats": {"n": "count", "c": "number", "d_sum": "numbers", "mean": "numbers",
                  "s": "numbers", "mean_chi": "numbers", "c2": "numbers"},
    "MomentsReply": {"client": "str", "pos": "side?", "neg": "side?", "column": "count?",
                     "round": "count?"},
    "CountsRequest": {"family": "str", "column": "count?", "share_range": "bool",
                      "weighted": "bool?"},
    "CountsReport": {"client": "str", "n_pos": "count", "n_neg": "count", "n_missing": "count",
                     "column": "count?", "ncols": "count?", "columns": "names?",
                     "value_range": "range?", "n_zero": "count?", "weight_sum": "number?",
                     "log_weight_sum": "number?", "ratio_sum_boxcox": "number?",
                     "ratio_sum_yeojohnson": "number?"},
    "LambdaRequest": {"family": "str", "lmbda": "numbers", "column": "count?",
                      "round": "count?"},
    "PaperReply": {"client": "str", "c": "number", "n_pos": "count", "n_neg": "count?",
                   "mean": "numbers", "s": "numbers", "column": "count?", "round": "count?"},
}
_CLASSES: dict[str, type] = {c.__name__: c for c in (SetupReport, Frame, Request, SideStats,
                                                     MomentsReply, CountsRequest, CountsReport,
                                                     LambdaRequest,
                                                     PaperReply)}


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _field(kind: str, where: str, v: Any) -> Any:
    """The value of one field, checked against its kind (``?``: may be null)."""
    if kind.endswith("?"):
        if v is None:
            return None
        kind = kind[:-1]

    def bad(what: str) -> BoxCoxError:
        return BoxCoxError(f"malformed message: field {where!r} must be {what}, got "
                           f"{type(v).__name__} {str(v)[:40]!r}")

    if kind == "str":
        if not isinstance(v, str):
            raise bad("a string")
        return v
    if kind == "bool":
        if not isinstance(v, bool):
            raise bad("true or false")
        return v
    if kind == "count":
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise bad("an integer >= 0")
        return v
    if kind == "number":
        if not _is_number(v):
            raise bad("a number")
        return float(v)
    if kind in ("numbers", "range"):
        if not isinstance(v, list) or not all(_is_number(o) for o in v):
            raise bad("a list of numbers")
        if kind == "range" and len(v) != 2:
            raise bad("a list of two numbers [min, max]")
        return tuple(float(o) for o in v)
    if kind == "names":
        if not isinstance(v, list) or not all(isinstance(o, str) for o in v):
            raise bad("a list of strings")
        return tuple(v)
    if kind == "side":
        if not isinstance(v, dict):
            raise bad("an object of side statistics")
        return _build("SideStats", dict(v), where + ".")
    raise AssertionError(kind)  # pragma: no cover


def _build(kind: str, doc: dict[str, Any], prefix: str = "") -> Any:
    schema = _SCHEMA[kind]
    doc.pop("type", None)
    extra = sorted(set(doc) - set(schema))
    if extra:
        raise BoxCoxError(f"malformed message: {kind} has unknown field(s) "
                          f"{[prefix + k for k in extra]}")
    args = {}
    for name, k in schema.items():
        if name not in doc:
            if k.endswith("?") and name in ("column", "ncols", "columns", "round", "pos_range",
                                            "neg_range", "value_range", "n_neg", "n_zero",
                                            "weighted", "weight_sum", "log_weight_sum",
                                            "ratio_sum_boxcox", "ratio_sum_yeojohnson"):
                continue  # optional on the wire (defaults of the record)
            raise BoxCoxError(f"malformed message: {kind} lacks the field {prefix + name!r}")
        args[name] = _field(k, prefix + name, doc[name])
    return _CLASSES[kind](**args)


def _depth(text: str) -> int:
    """Deepest nesting of brackets outside strings (checked before parsing)."""
    depth = deepest = 0
    in_str = escaped = False
    for ch in text:
        if in_str:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def message_from_json(text: str) -> Any:
    """Rebuild any protocol message from :meth:`to_json` output, checking every field.

    Raises
    ------
    BoxCoxError
        For anything that is not a well-formed message: not JSON, nested deeper than a
        message can be, not an object, an unknown ``type``, a missing or unknown field, a
        field of the wrong type (the message names the field).

    Examples
    --------
    >>> import boxcoxstat as bcs
    >>> from boxcoxstat.federated.messages import Request, message_from_json
    >>> r = Request((0.5,), (0.0,), (), True)
    >>> message_from_json(r.to_json()) == r, r.nbytes
    (True, 16)
    >>> try:
    ...     message_from_json('{"type": "Request", "lmbda": "0.5"}')
    ... except bcs.BoxCoxError as err:
    ...     print(err)
    malformed message: field 'lmbda' must be a list of numbers, got str '0.5'
    """
    if isinstance(text, (bytes, bytearray)):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise BoxCoxError("malformed message: not UTF-8 text") from None
    if not isinstance(text, str):
        raise BoxCoxError(f"malformed message: expected JSON text, got {type(text).__name__}")
    if _depth(text) > MAX_DEPTH:
        raise BoxCoxError(f"malformed message: nested deeper than {MAX_DEPTH} levels")
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError) as err:
        raise BoxCoxError(f"malformed message: not valid JSON ({err})") from None
    if not isinstance(doc, dict):
        raise BoxCoxError(f"malformed message: expected a JSON object, got "
                          f"{type(doc).__name__}")
    kind = doc.get("type")
    if kind not in _CLASSES or kind == "SideStats":
        raise BoxCoxError(f"malformed message: field 'type' is {kind!r}, not one of "
                          "'SetupReport', 'Frame', 'Request', 'MomentsReply', 'CountsRequest', "
                          "'CountsReport', 'LambdaRequest', 'PaperReply'")
    return _build(kind, doc)


def _all_numbers(v: tuple | list) -> bool:
    # fast path: plain floats and ints (bool is a type of its own, so it takes the slow one)
    return set(map(type, v)) <= {float, int} or all(_is_number(o) for o in v)


def finite(*values: Any) -> bool:
    """True when every value is a finite real number or a flat sequence of them."""
    for v in values:
        if isinstance(v, (tuple, list)):
            if not _all_numbers(v) or not all(map(math.isfinite, v)):
                return False
        elif not _is_number(v) or not math.isfinite(v):
            return False
    return True


def numbers(v: Any, length: int | None = None) -> bool:
    """True when ``v`` is a tuple or list of real numbers (of ``length``, where given)."""
    return (isinstance(v, (tuple, list)) and (length is None or len(v) == length)
            and _all_numbers(v))
