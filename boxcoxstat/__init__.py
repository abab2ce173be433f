"""boxcoxstat: exact, overflow-proof Box-Cox and Yeo-Johnson power transformations.

Estimation, profile-likelihood inference, reports and plots; see ``boxcoxstat.fit``.
"""

from __future__ import annotations

from . import datasets, families, likelihood
from ._validation import BoxCoxError, TransformOverflowError
from .api import fit
from .results import LambdaTest, PowerTransformResult
from .summary import Summary


def __getattr__(name: str):
    """Import ``boxcoxstat.classify`` on first use (it needs the optional scikit-learn)."""
    if name == "classify":
        import importlib

        return importlib.import_module(".classify", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    "classify",
]

__version__ = "0.1.0"
