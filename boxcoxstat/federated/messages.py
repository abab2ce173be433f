"""The protocol's messages: small frozen records that serialise to JSON, with their checks.

Layer 6 (``federated``). Four kinds of message travel between the server and the clients:

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

A reply reveals what Xu & Cormode (2025, Algorithms 2-3) send -- ``(c, n, mean, s)`` of the
transformed data, counts per sign -- plus two derivative moments in score rounds and the
shifted sum ``c - n * shift`` (redundant given the frame). Box-Cox data have one side.

Every number is counted as 8 bytes (float64) for the communication tally; :meth:`to_json`
gives the wire form.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np

__all__ = [
    "SetupReport",
    "Frame",
    "Request",
    "SideStats",
    "MomentsReply",
    "BYTES_PER_NUMBER",
    "message_from_json",
]

BYTES_PER_NUMBER = 8


def _count_numbers(obj: Any) -> int:
    if obj is None:
        return 0
    if isinstance(obj, _Message):
        return sum(_count_numbers(getattr(obj, f.name)) for f in fields(obj)  # type: ignore
                   if f.name != "client")
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
        """Size on the wire, counting 8 bytes per number (flags and names are free)."""
        return BYTES_PER_NUMBER * _count_numbers(self)


@dataclass(frozen=True)
class SetupReport(_Message):
    """First message of a client: counts and ranges per side.

    ``n_pos``, ``n_neg`` count values with x >= 0 and x < 0 (Box-Cox: all in ``n_pos``);
    ``pos_range``/``neg_range`` are ``(min, max)`` of each side, ``None`` when it is empty.
    """

    client: str
    n_pos: int
    n_neg: int
    n_missing: int
    pos_range: tuple[float, float] | None
    neg_range: tuple[float, float] | None


@dataclass(frozen=True)
class Frame(_Message):
    """The common reference values (x scale) of each side, chosen by the server."""

    family: str
    ref_pos: float | None
    ref_neg: float | None


@dataclass(frozen=True)
class Request(_Message):
    """One round: the lambdas to evaluate and the shift of each side's frame per lambda."""

    lmbda: tuple[float, ...]
    shift_pos: tuple[float, ...]
    shift_neg: tuple[float, ...]
    score: bool


@dataclass(frozen=True)
class SideStats(_Message):
    """One side's moments at each requested lambda (tuples of equal length).

    ``n`` count, ``c`` sum of log-ratios ``v``, ``d_sum`` sum of ``v - shift``, ``mean`` and
    ``s`` the mean and sum of squared deviations of ``phi = expm1(k d)/k``, ``mean_chi`` and
    ``c2`` those of its derivative (NaN in NLL-only rounds).
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

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> MomentsReply:
        def side(d: dict[str, Any] | None) -> SideStats | None:
            if d is None:
                return None
            d = {k: v for k, v in d.items() if k != "type"}
            args: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v
                                    for k, v in d.items()}
            return SideStats(**args)

        return cls(doc["client"], side(doc.get("pos")), side(doc.get("neg")))


_TYPES = {c.__name__: c for c in (SetupReport, Frame, Request, MomentsReply)}


def message_from_json(text: str) -> Any:
    """Rebuild any protocol message from :meth:`to_json` output.

    Examples
    --------
    >>> from boxcoxstat.federated.messages import Request, message_from_json
    >>> r = Request((0.5,), (0.0,), (), True)
    >>> message_from_json(r.to_json()) == r, r.nbytes
    (True, 16)
    """
    doc = json.loads(text)
    kind = doc.pop("type", None)
    if kind not in _TYPES:
        raise ValueError(f"not a boxcoxstat federated message (type {kind!r})")
    if kind == "MomentsReply":
        return MomentsReply.from_dict(doc)
    cls = _TYPES[kind]
    names = {f.name for f in fields(cls)}
    args: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v
                            for k, v in doc.items() if k in names}
    return cls(**args)


def finite(*values: Any) -> bool:
    """True when every value is a finite real number or a flat sequence of them."""
    for v in values:
        if isinstance(v, (tuple, list)):
            if not all(isinstance(o, (int, float)) and not isinstance(o, bool) for o in v[:1]):
                return False
            try:
                arr = np.asarray(v, dtype=np.float64)
            except (TypeError, ValueError):
                return False
            if arr.ndim != 1 or not np.isfinite(arr).all():
                return False
        elif v is None or isinstance(v, bool) or not isinstance(v, (int, float)):
            return False
        elif not math.isfinite(v):
            return False
    return True
