"""scikit-learn estimators on the package's core (needs the ``sklearn`` extra).

* :class:`~boxcoxstat.sklearn.transformer.PowerTransformer`: a drop-in for
  ``sklearn.preprocessing.PowerTransformer`` with exact lambdas, ``method="auto"``, a robust
  estimator, ``sample_weight``, the full result in ``result_`` and JSON save/load;
* :class:`~boxcoxstat.sklearn.regressor.BoxCoxRegressor`: a regressor fitted to the response
  transformed with the power chosen given the predictors (MASS's lambda), predictions
  back-transformed to the median or the smearing mean.

``import boxcoxstat`` does not import scikit-learn; ``boxcoxstat.PowerTransformer`` and
``boxcoxstat.BoxCoxRegressor`` import this subpackage on first use.
"""

from __future__ import annotations

from .._validation.columns import require

require("sklearn", "sklearn", "boxcoxstat.sklearn")

from .regressor import BoxCoxRegressor  # noqa: E402
from .transformer import PowerTransformer  # noqa: E402

__all__ = ["PowerTransformer", "BoxCoxRegressor"]
