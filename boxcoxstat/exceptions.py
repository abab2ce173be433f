"""The package's exceptions and warnings.

Imports nothing from the package; the gate (``_validation``, which every entry point passes
through) raises these and re-exports them.
"""

from __future__ import annotations

__all__ = ["BoxCoxError", "TransformOverflowError", "ResolutionWarning", "user_stacklevel"]


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


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes a ``warnings.warn`` in the function calling this point
    at the first frame outside the package (the user's line), however deep the call."""
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame = sys._getframe(1)
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(here):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level
