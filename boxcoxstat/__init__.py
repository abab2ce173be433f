"""boxcoxstat: exact, overflow-proof Box-Cox and Yeo-Johnson power transformations.

Estimation, profile-likelihood inference, reports and plots; see ``boxcoxstat.fit``.
"""

from __future__ import annotations

from . import datasets, families, federated, likelihood
from ._validation import BoxCoxError, TransformOverflowError
from .api import fit
from .results import LambdaTest, PowerTransformResult
from .summary import Summary

__all__ = [
    "fit",
    "PowerTransformResult",
    "LambdaTest",
    "Summary",
    "BoxCoxError",
    "TransformOverflowError",
    "datasets",
    "families",
    "likelihood",
    "federated",
]

__version__ = "0.1.0"
