"""The package's exceptions and warnings.

Layer 0: imports nothing from the package; ``_input`` and ``_validation`` raise these, and
``_validation`` (the gate every entry point passes through) re-exports them.
"""

from __future__ import annotations

__all__ = ["BoxCoxError", "TransformOverflowError", "ResolutionWarning"]


class BoxCoxError(ValueError):
    """The package's error: the input cannot be used as given; the message says what to do."""


class TransformOverflowError(BoxCoxError):
    """The transformed values at the requested lambda do not fit in float64."""


class ResolutionWarning(UserWarning):
    """A power maps distinct values to one float64, or cannot give them back.

    Raised as a warning (the numbers are still returned) when the transformed values keep
    fewer than about 8 significant digits of the data: a round trip
    ``inverse_transform(transform(x))`` may be off by more than 1e-8 relative, or the values
    overflow float64 (see :mod:`boxcoxstat.core.resolution`). The message names the column
    and what to do: the safe power (``lmbda="safe"``), a rounded power, or an offset.
    """
