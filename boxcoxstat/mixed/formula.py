"""Reading lme4's random-effect syntax: ``y ~ x + (1 | g) + (1 + x | h) + (x || k)``.

The random-effect terms are cut out of the formula's right-hand side; what remains
is an ordinary (fixed-effects) formula that :func:`~boxcoxstat.regression.formula.model_frame`
reads as ``bcs.lm`` does. Each random term becomes one or more :class:`RandomTerm` (an
expression whose model matrix multiplies the effects, and a grouping factor), with lme4's
expansions (Bates et al. 2015, section 2.1):

* ``(e | a/b)`` is ``(e | a) + (e | a:b)`` (nested factors);
* ``(e | a:b)`` groups by the interaction of ``a`` and ``b``;
* ``(1 + x || g)`` is ``(1 | g) + (0 + x | g)`` (uncorrelated effects), one term per term of
  ``e``.

Anything else between the parentheses' bar and closing parenthesis (an expression, a
function call) is refused: the grouping factor must be data columns.

References
----------
Bates, D., Maechler, M., Bolker, B. and Walker, S. (2015). Fitting linear mixed-effects
models using lme4. Journal of Statistical Software 67(1), 1-48.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .._validation.columns import BoxCoxError

__all__ = ["RandomTerm", "split_random"]

_NAME = re.compile(r"^[A-Za-z_.][A-Za-z0-9_.]*$")


@dataclass(frozen=True)
class RandomTerm:
    """One random-effect term: ``expr`` (a patsy formula's right-hand side, e.g. ``"1"``,
    ``"1 + Days"``, ``"0 + Days"``) varying by the levels of ``group`` (column names joined
    by ``":"``)."""

    expr: str
    group: str

    @property
    def columns(self) -> tuple[str, ...]:
        """The data columns whose combinations are the grouping factor's levels."""
        return tuple(self.group.split(":"))

    @property
    def label(self) -> str:
        """lme4's way to write the term, ``(expr | group)``."""
        return f"({self.expr} | {self.group})"


def _closing(text: str, start: int) -> int:
    """Index of the parenthesis closing the one opened at ``start``."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    raise BoxCoxError(f"unbalanced parentheses in the formula's right-hand side {text!r}")


def _top_level_bar(inner: str) -> int:
    """Position of the first ``|`` outside any nested parentheses, or -1."""
    depth = 0
    for i, ch in enumerate(inner):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            return i
    return -1


def _split_plus(expr: str) -> list[str]:
    """The top-level ``+``-separated parts of ``expr`` (parentheses respected)."""
    parts, depth, cur = [], 0, ""
    for ch in expr:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "+" and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return [p for p in parts if p]


def _groups(group: str, label: str) -> list[str]:
    """The grouping factors of ``a``, ``a:b`` or ``a/b`` (nested: ``a`` and ``a:b``)."""
    pieces = [g.strip() for g in group.split("/")]
    for piece in pieces:
        for name in piece.split(":"):
            if not _NAME.match(name.strip()):
                raise BoxCoxError(
                    f"the random-effect term {label} groups by {group!r}: a grouping factor "
                    "must be data columns (g, a:b for their interaction, a/b for b nested in "
                    "a); make a column of the grouping you need first")
    out, prefix = [], ""
    for piece in pieces:
        name = ":".join(n.strip() for n in piece.split(":"))
        prefix = name if not prefix else f"{prefix}:{name}"
        out.append(prefix)
    return out


def _expand(expr: str, double: bool, label: str) -> list[str]:
    """The effect expressions of one term: itself, or (``||``) one per term of ``expr``."""
    if not expr:
        raise BoxCoxError(f"the random-effect term {label} has nothing left of its bar")
    if not double:
        return [expr]
    parts = _split_plus(expr)
    no_intercept = any(p in ("0", "-1") for p in parts) or "- 1" in expr or "-1" in expr
    rest = [p for p in parts if p not in ("0", "1", "-1")]
    if any("-" in p for p in rest):
        raise BoxCoxError(f"the random-effect term {label}: write '0 +' to drop the "
                          "intercept of uncorrelated effects (no other '-' is read)")
    out = [] if no_intercept else ["1"]
    return out + [f"0 + {p}" for p in rest]


def split_random(formula: str) -> tuple[str, list[RandomTerm]]:
    """The fixed-effects formula and the random-effect terms of an lme4 formula.

    Examples
    --------
    >>> from boxcoxstat.mixed.formula import split_random
    >>> fixed, terms = split_random("y ~ x + (1 + x | g) + (1 | a/b) + (x || h)")
    >>> fixed
    'y ~ x'
    >>> [t.label for t in terms]
    ['(1 + x | g)', '(1 | a)', '(1 | a:b)', '(1 | h)', '(0 + x | h)']
    """
    if not isinstance(formula, str) or formula.count("~") != 1:
        raise BoxCoxError("formula must be a string with one '~', such as "
                          "'y ~ x + (1 | g)'")
    lhs, rhs = formula.split("~")
    keep, i = "", 0
    terms: list[RandomTerm] = []
    while i < len(rhs):
        if rhs[i] == "(":
            j = _closing(rhs, i)
            inner = rhs[i + 1 : j]
            bar = _top_level_bar(inner)
            if bar >= 0:
                double = inner[bar + 1 : bar + 2] == "|"
                expr = inner[:bar].strip()
                group = inner[bar + (2 if double else 1):].strip()
                label = f"({inner.strip()})"
                if "|" in group:
                    raise BoxCoxError(f"cannot read the random-effect term {label}")
                for g in _groups(group, label):
                    terms.extend(RandomTerm(e, g) for e in _expand(expr, double, label))
                i = j + 1
                continue
            keep += rhs[i : j + 1]
            i = j + 1
            continue
        keep += rhs[i]
        i += 1
    if not terms:
        raise BoxCoxError(f"the formula {formula!r} has no random-effect term such as "
                          "(1 | g); for a model without random effects use bcs.lm")
    parts = _split_plus(keep)
    fixed_rhs = " + ".join(parts) if parts else "1"
    if fixed_rhs.strip() in ("0", "-1"):
        fixed_rhs = "1"
    return f"{lhs.strip()} ~ {fixed_rhs}", terms
