"""The package's exceptions.

Layer 0: imports nothing from the package; ``_input`` and ``_validation`` raise these, and
``_validation`` (the gate every entry point passes through) re-exports them.
"""

from __future__ import annotations

__all__ = ["BoxCoxError", "TransformOverflowError"]


class BoxCoxError(ValueError):
    """The package's error: the input cannot be used as given; the message says what to do."""


class TransformOverflowError(BoxCoxError):
    """The transformed values at the requested lambda do not fit in float64."""
