"""A site holding data that never leaves it: answers the server's messages with summaries."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation.columns import BoxCoxError, ColumnReport, check_column, normalize_family
from .._validation.containers import to_matrix
from ..core.sample import Side
from .messages import (
    CountsReport,
    CountsRequest,
    Frame,
    LambdaRequest,
    MomentsReply,
    PaperReply,
    Request,
    SetupReport,
)
from .paper import log_ratio_sum, site_stats
from .protocol import GlobalFrame, local_moments, local_sides

__all__ = ["Client"]


class Client:
    """One site's data and its side of the protocol.

    Parameters
    ----------
    data : array_like, 1-D or 2-D, or a pandas DataFrame / Series
        The site's values, one column per variable; NaN is missing (dropped and counted).
        Clients holding several columns get one lambda per column; all clients must hold the
        same number of columns (and the same names, where they have names).
    family : {"boxcox", "yeojohnson", "auto"}, default="boxcox"
        The family the site's values are checked for at set-up (``"auto"``: any finite
        values; the server then picks the family per column).
    name : str, optional
        The client's name, shown after the server's id in errors and reports (``"#2 site
        C"``; an unnamed client is ``"#2"``).
    weights : array_like or str, optional
        Case weights, one per row (finite, >= 0), or the name of a column of ``data`` (a
        DataFrame) that holds them; that column is then not a variable. Under the paper's
        protocol only (``bcs.federated.fit(..., weights=True)``): the moments are weighted
        as ``lm(x ~ 1, weights=w)``'s likelihood weights them, rows of weight 0 are left
        out, and the set-up also reports the weight totals. A client with weights refuses
        an unweighted fit (so its weights are never silently ignored).

    Notes
    -----
    Under the default ``protocol="minimal"`` (Xu & Cormode 2025, Algorithms 2-3) it answers
    two messages: :meth:`counts` (its counts, the only thing sent at set-up) and
    :meth:`answer` (``(c, n, mean, s)``, Yeo-Johnson ``(c, n_pos, n_neg, mean, s)``, at the
    lambda asked). Under ``protocol="full"`` it answers three: :meth:`setup` (counts and
    min/max per side of one
    column), :meth:`receive_frame` (the common reference of a column) and :meth:`respond`
    (moments at the requested lambdas). It computes the logs of a column's values once, when
    its frame arrives. The caller's data are copied.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.federated import Client
    >>> c = Client(np.array([1.0, 2.0, 4.0]), name="site A")
    >>> rep = c.setup()
    >>> rep.n_pos, rep.pos_range, rep.nbytes
    (3, (1.0, 4.0), 40)
    """

    def __init__(self, data: ArrayLike, *, family: str = "boxcox", name: str | None = None,
                 weights: Any = None):
        self.family = normalize_family(family)
        self.name: str | None = None if name is None else str(name)
        x, names, _, layout = to_matrix(data)
        if isinstance(weights, str):
            names = list(names)
            if layout != "frame" or weights not in names:
                raise BoxCoxError(f"{self._what}: weights={weights!r} names a column, but the "
                                  "data are not a DataFrame with that column; pass the "
                                  "weights as an array")
            if len(names) == 1:
                raise BoxCoxError(f"{self._what}: the weights column {weights!r} is the data's "
                                  "only column; nothing is left to fit")
            j = names.index(weights)
            weights, x = x[:, j], np.delete(x, j, axis=1)
            names.pop(j)
        self._w = None if weights is None else self._check_weights(weights, x.shape[0])
        self._names: tuple[str, ...] | None = (tuple(names) if layout in ("frame", "series")
                                               else None)
        if x.shape[1] == 0:
            raise BoxCoxError(f"{self._what} holds no columns")
        self._cols: list[NDArray[np.float64]] = [np.array(x[:, j], dtype=np.float64)
                                                 for j in range(x.shape[1])]
        self._sides: dict[int, tuple[Side | None, Side | None]] = {}
        self._frames: dict[int, GlobalFrame] = {}

    def _check_weights(self, weights: Any, n: int) -> NDArray[np.float64]:
        try:
            w = np.array(weights, dtype=np.float64).reshape(-1)
        except (TypeError, ValueError):
            raise BoxCoxError(f"{self._what}: weights must be numbers, one per row") from None
        if w.shape[0] != n:
            raise BoxCoxError(f"{self._what}: weights has length {w.shape[0]}, but the data "
                              f"have {n} rows; give one weight per row")
        bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
        if bad.size:
            raise BoxCoxError(f"{self._what}: weights must be finite and >= 0: row "
                              f"{int(bad[0])} has {float(w[bad[0]])!r}")
        return w

    @property
    def weighted(self) -> bool:
        """Whether the client holds case weights."""
        return self._w is not None

    @property
    def _what(self) -> str:
        return "the client" if self.name is None else f"client {self.name!r}"

    @property
    def ncols(self) -> int:
        """Number of columns the client holds."""
        return len(self._cols)

    def _column(self, column: Any) -> NDArray[np.float64]:
        if (isinstance(column, bool) or not isinstance(column, (int, np.integer))
                or not 0 <= column < self.ncols):
            raise BoxCoxError(f"{self._what} holds {self.ncols} column(s); column "
                              f"{column!r} does not exist")
        return self._cols[int(column)]

    def setup(self, column: int = 0) -> SetupReport:
        """Counts and ranges per side of ``column`` (the only values the server sees before
        lambdas)."""
        if self._w is not None:
            raise BoxCoxError(f"{self._what} holds case weights, which the full protocol does "
                              "not take; use the paper's protocol (protocol='minimal', the "
                              "default) with weights=True")
        col = self._column(column)
        n_missing = int(np.isnan(col).sum())
        x = col[~np.isnan(col)]
        # the package's gate on the local part (the server checks the pooled counts and range)
        if self.name is None:
            noun, label = "the client's column", str(column)
        else:
            noun = "client"
            label = self.name if self.ncols == 1 else f"{self.name}, column {column}"
        check_column(ColumnReport.of(x), label, family=self.family, min_n=0, spread=False,
                     noun=noun)
        pos = x[x >= 0]
        neg = x[x < 0]
        return SetupReport(
            client="" if self.name is None else self.name,
            n_pos=int(pos.size),
            n_neg=int(neg.size),
            n_missing=n_missing,
            pos_range=(float(pos.min()), float(pos.max())) if pos.size else None,
            neg_range=(float(neg.min()), float(neg.max())) if neg.size else None,
            column=int(column),
            ncols=self.ncols,
            columns=self._names,
        )

    def receive_frame(self, frame: Frame) -> None:
        """Store the common reference of a column and compute the log-ratios of its values
        once."""
        col = self._column(frame.column)
        gf = GlobalFrame.from_message(frame)
        self._frames[frame.column] = gf
        self._sides[frame.column] = local_sides(col[~np.isnan(col)], gf)

    def respond(self, request: Request) -> MomentsReply:
        """Moments of each side at the requested lambdas."""
        if request.column not in self._sides:
            raise BoxCoxError(f"{self._what} has no frame for column {request.column}")
        pos, neg = local_moments(self._sides[request.column], request,
                                 self._frames[request.column])
        return MomentsReply("" if self.name is None else self.name, pos, neg, request.column,
                            request.round)

    # ------------------------------------------------------------ the paper's protocol
    def _finite(self, column: int, weighted: bool = False
                ) -> tuple[NDArray[np.float64], int, NDArray[np.float64] | None]:
        """The column's present values (of positive weight, under weights), the count of
        missing ones, and the weights of the values kept."""
        col = self._column(column)
        miss = np.isnan(col)
        if self._w is not None and not weighted:
            raise BoxCoxError(f"{self._what} holds case weights but the fit is unweighted; "
                              "pass weights=True to bcs.federated.fit (or leave the weights "
                              "out of the client)")
        if not weighted:
            return col[~miss], int(miss.sum()), None
        w = np.ones(col.size) if self._w is None else self._w
        keep = ~miss & (w > 0)
        return col[keep], int(miss.sum()), w[keep]

    def counts(self, request: CountsRequest) -> CountsReport:
        """Set-up of a column under ``protocol="minimal"``: counts only (and the range where
        the request asks for it, ``share_range=True``).

        Examples
        --------
        >>> import numpy as np
        >>> from boxcoxstat.federated import Client
        >>> from boxcoxstat.federated.messages import CountsRequest
        >>> rep = Client(np.array([1.0, 2.0, np.nan])).counts(CountsRequest("boxcox"))
        >>> rep.n_pos, rep.n_missing, rep.value_range, rep.nbytes
        (2, 1, None, 24)
        """
        column = request.column
        weighted = bool(getattr(request, "weighted", False))
        x, n_missing, w = self._finite(column, weighted)
        fam = normalize_family(request.family)
        if self.name is None:
            noun, label = "the client's column", str(column)
        else:
            noun = "client"
            label = self.name if self.ncols == 1 else f"{self.name}, column {column}"
        check_column(ColumnReport.of(x), label, family=fam if fam != "auto" else self.family,
                     min_n=0, spread=False, noun=noun)
        pos = x >= 0
        extra: dict[str, Any] = {}
        if w is not None and x.size:
            extra = {"weight_sum": float(math.fsum(w)),
                     "log_weight_sum": float(math.fsum(np.log(w)))}
            if fam in ("boxcox", "auto") and (x > 0).all():
                extra["ratio_sum_boxcox"] = log_ratio_sum(x, "boxcox")
            if fam in ("yeojohnson", "auto"):
                extra["ratio_sum_yeojohnson"] = log_ratio_sum(x, "yeojohnson")
        return CountsReport(
            client="" if self.name is None else self.name,
            n_pos=int(pos.sum()), n_neg=int((~pos).sum()), n_missing=n_missing,
            column=int(column), ncols=self.ncols, columns=self._names,
            value_range=(float(x.min()), float(x.max())) if request.share_range and x.size
            else None,
            n_zero=int((x == 0).sum()) if fam == "auto" else None, **extra,
        )

    def answer(self, request: LambdaRequest) -> PaperReply:
        """The paper's message at the lambda(s) of ``request`` (see
        :class:`~boxcoxstat.federated.messages.PaperReply`).

        Examples
        --------
        >>> import numpy as np
        >>> from boxcoxstat.federated import Client
        >>> from boxcoxstat.federated.messages import LambdaRequest
        >>> rep = Client(np.array([1.0, 2.0, 4.0])).answer(LambdaRequest("boxcox", (0.5,)))
        >>> rep.n_pos, rep.n_neg, rep.nbytes  # c, n, mean, s: 4 numbers
        (3, None, 32)
        """
        x, _, w = self._finite(request.column, self._w is not None)
        fam = normalize_family(request.family, allow_auto=False)
        c, n_pos, n_neg, mean, s = site_stats(x, fam, request.lmbda, w)
        return PaperReply("" if self.name is None else self.name, c, n_pos,
                          None if fam == "boxcox" else n_neg, tuple(mean.tolist()),
                          tuple(s.tolist()), request.column, request.round)
