"""boxcoxstat: exact, overflow-proof Box-Cox and Yeo-Johnson power transformations.

Estimation, profile-likelihood inference, reports and plots; see ``boxcoxstat.fit``.
"""

from __future__ import annotations

from . import datasets, families, federated
from .api import fit
from .base.results import HypothesisTest
from .base.summary import Summary
from .core import likelihood
from .exceptions import BoxCoxError, ResolutionWarning, TransformOverflowError
from .joint.model import fit_joint
from .joint.results import JointTransformResult
from .pca.model import robust_pca
from .pca.results import RobustPCAResult
from .robust.results import RobustTransformResult
from .robust.sensitivity import SensitivityCurve, sensitivity_curve
from .robust.simulation import SimulationResult, simulate
from .univariate.results import PowerTransformResult

_NEEDS_SKLEARN = {"PowerTransformer": ".sklearn", "BoxCoxRegressor": ".sklearn"}


def __getattr__(name: str):
    """Import what needs the optional scikit-learn on first use: ``boxcoxstat.classify``
    (the ``classify`` extra), ``PowerTransformer`` and ``BoxCoxRegressor`` (the ``sklearn``
    extra). Without it the error names the extra to install."""
    import importlib

    from ._validation.columns import require

    if name == "classify":
        require("sklearn", "classify", "boxcoxstat.classify")
        return importlib.import_module(".classify", __name__)
    if name in _NEEDS_SKLEARN:
        require("sklearn", "sklearn", f"boxcoxstat.{name}")
        return getattr(importlib.import_module(_NEEDS_SKLEARN[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "fit",
    "PowerTransformResult",
    "HypothesisTest",
    "Summary",
    "BoxCoxError",
    "TransformOverflowError",
    "ResolutionWarning",
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
    "PowerTransformer",
    "BoxCoxRegressor",
]

__version__ = "0.1.0"

# Regression with a transformed response and formula transforms (issue 3).
from .regression.formula import bc, yj  # noqa: E402
from .regression.model import lm  # noqa: E402
from .regression.results import LmResult  # noqa: E402

__all__ += ["lm", "LmResult", "bc", "yj"]

# Linear mixed models with an estimated response power, car's definition (issue 30).
from .mixed.model import lmer  # noqa: E402
from .mixed.results import LmerResult  # noqa: E402

__all__ += ["lmer", "LmerResult"]

# R's power-transformation toolbox: bcnPower lives in fit/lm/fit_joint; Box-Tidwell, the
# inverse response plot, Guerrero's lambda and car's diagnostic plots (issue 13).
from .timeseries.model import guerrero, inv_boxcox  # noqa: E402
from .timeseries.results import GuerreroFrameResult, GuerreroResult  # noqa: E402

__all__ += ["guerrero", "inv_boxcox", "GuerreroResult", "GuerreroFrameResult"]
from .linearity.model import box_tidwell, inverse_response  # noqa: E402
from .linearity.results import BoxTidwellResult, InverseResponseResult  # noqa: E402

__all__ += ["box_tidwell", "inverse_response", "BoxTidwellResult", "InverseResponseResult"]
from .graphics.plotting import qqplot, symbox  # noqa: E402
from .graphics.results import SpreadLevelResult  # noqa: E402
from .graphics.spread_level import spread_level  # noqa: E402

__all__ += ["spread_level", "SpreadLevelResult", "symbox", "qqplot"]

# Models of one response side by side on the untransformed likelihood (issue 30).
from .base.compare import compare  # noqa: E402

__all__ += ["compare"]
