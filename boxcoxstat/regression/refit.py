"""statsmodels refits that know their formula: ``m.ols`` and ``m.at(...).ols``.

:func:`formula_ols` fits statsmodels' OLS (WLS with weights) of the transformed
response on the model's design and attaches the formula's design, as ``smf.ols`` does, so
``predict(new_df)`` and ``get_prediction(new_df)`` build the new design from the formula:
columns are found by name, the learned powers of ``bc()`` / ``yj()`` terms, levels and centring
are reused, and a row with a missing value gives NaN in place. The design is the full formula
design (an aliased column included, as ``smf.ols`` keeps it; statsmodels' pseudo-inverse then
splits its coefficient, while :class:`~boxcoxstat.LmResult` drops it as R's ``lm`` does).

The refit pickles with its design (``formula_io``), so a saved ``m.ols`` loads in a process
that never imported ``bc``: statsmodels would rebuild the design by evaluating the formula
again, where ``bc`` must be in scope.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from statsmodels.base.data import PandasData

from .formula_io import design_document, design_from_document

__all__ = ["formula_ols", "FormulaPandasData"]


class FormulaPandasData(PandasData):
    """statsmodels' data of a formula refit: pickles the formula's design as JSON
    (``formula_io``) instead of evaluating the formula again when loaded."""

    def __getstate__(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        spec = d.pop("model_spec", None)
        d["boxcoxstat_design"] = None if spec is None else design_document(spec)
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        d = dict(d)
        doc = d.pop("boxcoxstat_design", None)
        self.__dict__.update(d)
        if doc is not None:
            self.model_spec = design_from_document(doc)


def formula_ols(z: NDArray[np.float64], x: NDArray[np.float64], *, index: pd.Index,
                response: str, column_names: tuple[str, ...], design_info: Any,
                formula: str, weights: NDArray[np.float64] | None) -> Any:
    """statsmodels' OLS (or WLS) of ``z`` on the full design ``x``, formula-aware."""
    import statsmodels.api as sm

    endog = pd.Series(z, index=index, name=response)
    exog = pd.DataFrame(x, index=index, columns=list(column_names))
    model = sm.OLS(endog, exog) if weights is None else sm.WLS(endog, exog, weights=weights)
    model.formula = formula
    model.data.formula = formula
    model.data.model_spec = design_info
    assert type(model.data) is PandasData
    model.data.__class__ = FormulaPandasData  # the same data, pickled with its design
    return model.fit()
