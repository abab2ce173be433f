"""boxcoxstat: exact, overflow-proof Box-Cox and Yeo-Johnson power transformations.

Estimation, profile-likelihood inference, reports and plots; see ``boxcoxstat.fit``.
"""

from __future__ import annotations

from . import datasets, families, federated, likelihood
from ._validation import BoxCoxError, TransformOverflowError
from .api import fit
from .api_joint import fit_joint
from .joint_results import JointLambdaTest, JointTransformResult
from .results import LambdaTest, PowerTransformResult
from .robust_results import RobustTransformResult
from .sensitivity import SensitivityCurve, sensitivity_curve
from .simulation import SimulationResult, simulate
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
    "fit_joint",
    "JointTransformResult",
    "JointLambdaTest",
    "RobustTransformResult",
    "sensitivity_curve",
    "SensitivityCurve",
    "simulate",
    "SimulationResult",
    "federated",
    "classify",
]

__version__ = "0.1.0"

# Regression with a transformed response and formula transforms (issue 3).
from .formula import bc, yj  # noqa: E402
from .lm import lm  # noqa: E402
from .lm_results import LmResult  # noqa: E402

__all__ += ["lm", "LmResult", "bc", "yj"]
