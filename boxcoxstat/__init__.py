"""boxcoxstat: exact, overflow-proof Box-Cox and Yeo-Johnson power transformations.

Estimation, profile-likelihood inference, reports and plots; see ``boxcoxstat.fit``.
"""

from __future__ import annotations

from . import datasets, families, federated
from ._validation import BoxCoxError, TransformOverflowError
from .api import fit
from .base.results import HypothesisTest
from .base.summary import Summary
from .core import likelihood
from .joint.model import fit_joint
from .joint.results import JointTransformResult
from .robust.pca_results import RobustPCAResult, robust_pca
from .robust.results import RobustTransformResult
from .robust.sensitivity import SensitivityCurve, sensitivity_curve
from .robust.simulation import SimulationResult, simulate
from .univariate.results import PowerTransformResult


def __getattr__(name: str):
    """Import ``boxcoxstat.classify`` on first use (it needs the optional scikit-learn)."""
    if name == "classify":
        import importlib

        return importlib.import_module(".classify", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "fit",
    "PowerTransformResult",
    "HypothesisTest",
    "Summary",
    "BoxCoxError",
    "TransformOverflowError",
    "datasets",
    "families",
    "likelihood",
    "fit_joint",
    "JointTransformResult",
    "RobustTransformResult",
    "robust_pca",
    "RobustPCAResult",
    "sensitivity_curve",
    "SensitivityCurve",
    "simulate",
    "SimulationResult",
    "federated",
    "classify",
]

__version__ = "0.1.0"

# Regression with a transformed response and formula transforms (issue 3).
from .regression.formula import bc, yj  # noqa: E402
from .regression.model import lm  # noqa: E402
from .regression.results import LmResult  # noqa: E402

__all__ += ["lm", "LmResult", "bc", "yj"]
