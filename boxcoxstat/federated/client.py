"""A site holding data that never leaves it: answers the server's messages with summaries.

Layer 6 (``federated``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import ColumnReport, check_column, normalize_family
from ..core.sample import Side
from .messages import Frame, MomentsReply, Request, SetupReport
from .protocol import GlobalFrame, local_moments, local_sides

__all__ = ["Client"]


class Client:
    """One site's data and its side of the protocol.

    Parameters
    ----------
    data : array_like, 1-D
        The site's values; NaN is missing (dropped and counted).
    family : {"boxcox", "yeojohnson"}, default="boxcox"
    name : str, optional
        How the server names this client in errors and reports.

    Notes
    -----
    The client answers three messages: :meth:`setup` (counts and min/max per side),
    :meth:`receive_frame` (the common reference) and :meth:`respond` (moments at the
    requested lambdas). It computes the logs of its values once, when the frame arrives.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.federated import Client
    >>> c = Client(np.array([1.0, 2.0, 4.0]), name="site A")
    >>> rep = c.setup()
    >>> rep.n_pos, rep.pos_range, rep.nbytes
    (3, (1.0, 4.0), 40)
    """

    def __init__(self, data: ArrayLike, *, family: str = "boxcox", name: str | None = None):
        self.family = normalize_family(family, allow_auto=False)
        self.name = "client" if name is None else str(name)
        x = np.array(data, dtype=np.float64, copy=True).reshape(-1)
        self._n_missing = int(np.isnan(x).sum())
        self._x: NDArray[np.float64] = x[~np.isnan(x)]
        self._sides: tuple[Side | None, Side | None] = (None, None)

    def setup(self) -> SetupReport:
        """Counts and ranges per side (the only values the server sees before lambdas)."""
        x = self._x
        # the package's gate on the local part (the server checks the pooled counts and range)
        check_column(ColumnReport.of(x), self.name, family=self.family, min_n=0, spread=False,
                     noun="client")
        pos = x[x >= 0]
        neg = x[x < 0]
        return SetupReport(
            client=self.name,
            n_pos=int(pos.size),
            n_neg=int(neg.size),
            n_missing=self._n_missing,
            pos_range=(float(pos.min()), float(pos.max())) if pos.size else None,
            neg_range=(float(neg.min()), float(neg.max())) if neg.size else None,
        )

    def receive_frame(self, frame: Frame) -> None:
        """Store the common reference and compute the log-ratios of the local values once."""
        self._sides = local_sides(self._x, GlobalFrame.from_message(frame))

    def respond(self, request: Request) -> MomentsReply:
        """Moments of each side at the requested lambdas."""
        pos, neg = local_moments(self._sides, request)
        return MomentsReply(self.name, pos, neg)
