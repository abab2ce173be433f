"""Tune Box-Cox lambdas for a classifier (Bicego & Baldo 2016; Blum, Menon & Elgendi).

Needs the ``classify`` extra (scikit-learn, tqdm) for the classifier-based criteria and the
estimator; ``import boxcoxstat`` does not import this subpackage until it is used.
"""

from __future__ import annotations

from typing import Any

from .criteria import CRITERIA, get_criterion, ml_lambdas
from .model import criterion_curves, linf_distance, tune
from .results import TuningResult
from .search import coordinate_search, grid_search, scalar_search

__all__ = [
    "tune",
    "BoxCoxTunedClassifier",
    "BoxCoxTunedTransformer",
    "TuningResult",
    "CRITERIA",
    "get_criterion",
    "ml_lambdas",
    "criterion_curves",
    "linf_distance",
    "grid_search",
    "coordinate_search",
    "scalar_search",
]


def __getattr__(name: str) -> Any:
    if name in ("BoxCoxTunedClassifier", "BoxCoxTunedTransformer"):  # imports scikit-learn
        from . import estimator

        return getattr(estimator, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
