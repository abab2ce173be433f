"""Fitting lambda on data that is never pooled: federated sites and Dask partitions.

The server evaluates the global profile NLL and its score from mergeable per-site summaries
(Xu & Cormode 2025, section 5 and Appendix D); see :func:`fit`, :class:`Client` and the
message list in :mod:`boxcoxstat.federated.messages`. Naive baselines for comparison live in
:mod:`boxcoxstat.federated.baselines`.
"""

from __future__ import annotations

from . import baselines
from .client import Client
from .messages import Frame, MomentsReply, Request, SetupReport, SideStats, message_from_json
from .model import fit, nll_curve
from .server import Server

__all__ = [
    "fit",
    "nll_curve",
    "baselines",
    "Client",
    "Server",
    "SetupReport",
    "Frame",
    "Request",
    "SideStats",
    "MomentsReply",
    "message_from_json",
]
