"""The grammar of a saved formula: what a model loaded from JSON may compute, checked first.

A saved :class:`~boxcoxstat.LmResult` (``to_json``, pickle) holds its formula and the terms of
its design as text. Loading such a document must be as safe as ``json.loads``, so the text is
never given to ``eval`` and no object is ever imported by a name found in it. Instead:

- :func:`check_formula` reads a whole formula (``y ~ a + b:c + (d + e) ** 2 - 1``) with a
  parser of this module's own: terms joined by ``~ + - * : / **``, parentheses, numbers and
  factors;
- :func:`check_term` reads one factor (``np.log(x)``, ``I(x ** 2)``, ``bc(z, lmbda=0.5)``) and
  accepts only column names, numbers, arithmetic ``+ - * / **``, comparisons, and calls of a
  closed list of functions: ``log``, ``exp``, ``sqrt``, ``log10``, ``log2``, ``log1p``, ``abs``
  (bare or as ``np.``), ``I()``, ``C()`` (with patsy's contrasts), ``Q()``, and the stateful
  ``bc()``, ``yj()``, ``poly()``, ``center()``, ``standardize()``, ``scale()``, ``bs()``,
  ``cr()``, ``cc()``, whose options must be plain numbers, strings or lists of them;
- :class:`SavedFactor` evaluates a checked factor on new data with this module's own
  interpreter, looking functions up in the closed table below (never by a name from the
  document) and the stateful transforms' learned states restored field by field from
  numbers (:func:`restore_transform`).

Python's own parser (``ast.parse``, which reads text and runs nothing) splits a factor into
nodes; every node type that is not listed here is refused with the package's error naming
the field and the construct.
"""

from __future__ import annotations

import ast
import io
import math
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import patsy

from .._validation.columns import BoxCoxError
from .formula import _BoxCoxTerm, _PolyTerm, _YeoJohnsonTerm

__all__ = ["check_formula", "check_term", "Term", "SavedFactor", "restore_transform",
           "transform_state", "number_table", "STATEFUL", "ELEMENTWISE"]

MAX_TEXT = 10_000  # characters of a formula; a longer one is not a formula anybody wrote
MAX_DEPTH = 40  # nesting of a term's expression
MAX_STATE = 1_000_000  # numbers in one transform's learned state

ELEMENTWISE = {"log": np.log, "exp": np.exp, "sqrt": np.sqrt, "log10": np.log10,
               "log2": np.log2, "log1p": np.log1p, "abs": np.abs}
NUMPY_NAMES = ("np", "numpy")
CONTRASTS = {"Treatment", "Sum", "Diff", "Helmert", "Poly"}


@dataclass(frozen=True)
class _Stateful:
    """One stateful function of the closed list: the class whose state it restores, the
    keyword options it takes (all plain values), how many positional options after the
    variable, and its learned state's fields with their kinds."""

    cls: Any
    keywords: frozenset[str]
    positional: int
    state: dict[str, str]


_POWER_STATE = {"lmbda": "float", "fixed": "bool", "inference": "floatdict?"}
STATEFUL: dict[str, _Stateful] = {
    "bc": _Stateful(_BoxCoxTerm, frozenset({"lmbda"}), 0, _POWER_STATE),
    "yj": _Stateful(_YeoJohnsonTerm, frozenset({"lmbda"}), 0, _POWER_STATE),
    "poly": _Stateful(_PolyTerm, frozenset({"degree"}), 1,
                      {"degree": "int", "alpha": "array", "norm2": "array"}),
    "center": _Stateful(patsy.state.Center, frozenset(), 0, {"_sum": "wide", "_count": "int"}),
    "standardize": _Stateful(patsy.state.Standardize, frozenset({"center", "rescale", "ddof"}),
                             0, {"current_n": "int", "current_mean": "wide",
                                 "current_M2": "wide"}),
    "bs": _Stateful(patsy.splines.BS, frozenset({"df", "knots", "degree", "include_intercept",
                                                 "lower_bound", "upper_bound"}), 0,
                    {"_degree": "int", "_all_knots": "array"}),
    "cr": _Stateful(patsy.mgcv_cubic_splines.CR, frozenset({"df", "knots", "lower_bound",
                                                            "upper_bound", "constraints"}), 0,
                    {"_name": "str", "_cyclic": "bool", "_all_knots": "array",
                     "_constraints": "array?"}),
}
STATEFUL["scale"] = STATEFUL["standardize"]
STATEFUL["cc"] = _Stateful(patsy.mgcv_cubic_splines.CC, STATEFUL["cr"].keywords, 0,
                           STATEFUL["cr"].state)


class _Refused(Exception):
    """Internal: the text is outside the grammar (the message says where)."""


def _fail(field: str, what: str) -> BoxCoxError:
    """``field`` is a document's field (``'formula'``) or, quoted already, the term being
    saved."""
    saving = field.startswith("the ")
    subject = field if saving else f"field {field!r}"
    hint = ("; a function or object from the Python session cannot be saved: add its values "
            "to the data as a column and use that instead" if saving else "")
    return BoxCoxError(f"{subject} {what}; a saved model holds only formulas made of "
                       "column names, numbers, + - * / ** and the functions log, exp, sqrt, "
                       f"I, C, Q, bc, yj, poly, center, standardize, bs, cr, cc{hint}")


# ---------------------------------------------------------------- one factor (a term's part)
@dataclass(frozen=True)
class Term:
    """A checked factor: its text, its parsed expression, the names it reads as columns or
    values, and its stateful calls in the order patsy numbers them (left to right)."""

    code: str
    tree: ast.expr
    names: tuple[str, ...]
    stateful: tuple[str, ...]


def check_term(code: Any, field: str = "formula") -> Term:
    """``code`` (one factor of a formula) checked against the grammar, or the package's
    error naming ``field``.

    Examples
    --------
    >>> from boxcoxstat.regression.formula_grammar import check_term
    >>> check_term("np.log(Height) / 2").names
    ('Height',)
    >>> check_term("__import__('os')")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    boxcoxstat.exceptions.BoxCoxError: field 'formula' calls '__import__', which is not ...
    """
    if not isinstance(code, str):
        raise BoxCoxError(f"field {field!r} must be a string, got {type(code).__name__}")
    if len(code) > MAX_TEXT or "\x00" in code:
        raise _fail(field, f"is not a formula term (over {MAX_TEXT} characters or a NUL byte)")
    try:
        tree = ast.parse(code.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise _fail(field, f"holds {code[:60]!r}, which is not an expression") from None
    names: list[str] = []
    stateful: list[str] = []
    try:
        _expr(tree, names, stateful, 0)
    except _Refused as why:
        raise _fail(field, str(why)) from None
    return Term(code, tree, tuple(dict.fromkeys(names)), tuple(stateful))


def _name(node: ast.Name) -> str:
    if node.id.startswith("_"):
        raise _Refused(f"uses the name {node.id!r} (names starting with '_' are not columns "
                       "a saved model may read)")
    return node.id


def _number(node: ast.expr) -> float:
    """A plain (possibly signed) number, finite and of sensible size."""
    sign = 1.0
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign = -1.0 if isinstance(node.op, ast.USub) else 1.0
        node = node.operand
    if not isinstance(node, ast.Constant) or isinstance(node.value, bool) or \
            not isinstance(node.value, (int, float)):
        raise _Refused("has an option that is not a plain number")
    if isinstance(node.value, int) and abs(node.value) > 2**53:
        raise _Refused(f"has the number {str(node.value)[:20]}..., beyond float64's exact "
                       "integers")
    value = sign * float(node.value)
    if not math.isfinite(value):
        raise _Refused("has a number that is not finite")
    return value


def _literal(node: ast.expr, depth: int = 0) -> None:
    """An option's value: a number, a string, True / False / None, or a list of them."""
    if depth > 2:
        raise _Refused("has an option nested too deeply")
    if isinstance(node, (ast.List, ast.Tuple)):
        if len(node.elts) > 10_000:
            raise _Refused("has an option list of over 10000 values")
        for e in node.elts:
            _literal(e, depth + 1)
        return
    if isinstance(node, ast.Constant) and (isinstance(node.value, (str, bool))
                                           or node.value is None):
        if isinstance(node.value, str) and len(node.value) > 1000:
            raise _Refused("has a string option of over 1000 characters")
        return
    _number(node)


def _function(node: ast.expr) -> str:
    """The closed-list name of a call's function: ``log`` for ``log`` and ``np.log``."""
    if isinstance(node, ast.Name):
        if node.id in ELEMENTWISE or node.id in STATEFUL or node.id in ("I", "C", "Q"):
            return node.id
        raise _Refused(f"calls {node.id!r}, which is not one of the functions a saved model "
                       "may use")
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
            node.value.id in NUMPY_NAMES and node.attr in ELEMENTWISE:
        return node.attr
    raise _Refused(f"calls {ast.unparse(node)[:60]!r}, which is not one of the functions a "
                   "saved model may use")


def _expr(node: ast.expr, names: list[str], stateful: list[str], depth: int) -> None:
    if depth > MAX_DEPTH:
        raise _Refused(f"nests more than {MAX_DEPTH} levels")
    d = depth + 1
    if isinstance(node, ast.Constant):
        _number(node)
    elif isinstance(node, ast.Name):
        names.append(_name(node))
    elif isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.BitOr):
            raise _Refused("uses '|', which in R's formulas marks random effects (a mixed "
                           "model); lm fits fixed effects only: use bcs.lmer")
        if not isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)):
            raise _Refused(f"uses the operator {type(node.op).__name__}")
        _expr(node.left, names, stateful, d)
        _expr(node.right, names, stateful, d)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        _expr(node.operand, names, stateful, d)
    elif isinstance(node, ast.Compare) and all(
            isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq))
            for op in node.ops):
        for e in (node.left, *node.comparators):
            _expr(e, names, stateful, d)
    elif isinstance(node, ast.Call):
        _call(node, names, stateful, d)
    else:
        raise _Refused(f"holds {ast.unparse(node)[:60]!r} ({type(node).__name__}), which is "
                       "not part of a formula term")


def _call(node: ast.Call, names: list[str], stateful: list[str], depth: int) -> None:
    fn = _function(node.func)
    if any(isinstance(a, ast.Starred) for a in node.args) or \
            any(k.arg is None for k in node.keywords):
        raise _Refused(f"passes * or ** arguments to {fn}()")
    args, keywords = node.args, {k.arg: k.value for k in node.keywords}
    if fn == "Q":
        if len(args) != 1 or keywords or not (isinstance(args[0], ast.Constant)
                                               and isinstance(args[0].value, str)):
            raise _Refused("uses Q() with something other than one column name in quotes")
        if len(args[0].value) > 1000:
            raise _Refused("uses Q() with a name of over 1000 characters")
        names.append(args[0].value)
        return
    if not args:
        raise _Refused(f"calls {fn}() without a variable")
    if fn in ELEMENTWISE or fn == "I":
        if len(args) != 1 or keywords:
            raise _Refused(f"calls {fn}() with more than the one variable it takes")
    elif fn == "C":
        if len(args) > 2 or set(keywords) - {"levels"}:
            raise _Refused("calls C() with options other than a contrast and levels=")
        if len(args) == 2:
            _contrast(args[1])
        for v in keywords.values():
            _literal(v)
    else:
        spec = STATEFUL[fn]
        if len(args) > 1 + spec.positional or set(keywords) - spec.keywords:
            raise _Refused(f"calls {fn}() with options it does not take (it takes "
                           f"{sorted(spec.keywords) or 'none'})")
        stateful.append(fn)
        for v in [*args[1:], *keywords.values()]:
            _literal(v)
    _expr(args[0], names, stateful, depth)


def _contrast(node: ast.expr) -> None:
    if isinstance(node, ast.Name) and node.id in CONTRASTS:
        return
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id in CONTRASTS and all(k.arg is not None for k in node.keywords):
        for v in [*node.args, *(k.value for k in node.keywords)]:
            _literal(v)
        return
    raise _Refused(f"uses the contrast {ast.unparse(node)[:60]!r}, which is not one of "
                   f"{sorted(CONTRASTS)}")


# ---------------------------------------------------------------- a whole formula
def check_formula(text: Any, field: str = "formula") -> tuple[Term, ...]:
    """Every factor of the formula ``text`` checked (see the module docs), or the package's
    error naming ``field``. Only reads the text: the formula's structure is parsed by this
    module's own recursive descent over Python's tokens.

    Examples
    --------
    >>> from boxcoxstat.regression.formula_grammar import check_formula
    >>> [t.code for t in check_formula("log(Volume) ~ bc(Girth) * C(g) - 1")]
    ['log(Volume)', 'bc(Girth)', 'C(g)']
    """
    if not isinstance(text, str):
        raise BoxCoxError(f"field {field!r} must be a string, got {type(text).__name__}")
    if len(text) > MAX_TEXT or "\x00" in text:
        raise _fail(field, f"is not a formula (over {MAX_TEXT} characters or a NUL byte)")
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
                  if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER,
                                    tokenize.INDENT, tokenize.DEDENT)]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        raise _fail(field, f"holds {text[:60]!r}, which is not a formula") from None
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    parser = _FormulaParser(tokens, text, starts, field)
    try:
        parser.formula()
    except _Refused as why:
        raise _fail(field, str(why)) from None
    return tuple(parser.terms)


class _FormulaParser:
    """Recursive descent over the formula's tokens: ``[sum] ~ sum``, where a sum is products
    joined by ``+ -``, a product interactions joined by ``* /``, an interaction powers joined
    by ``:``, a power an atom with ``** number``, and an atom a parenthesised sum, a number or
    a factor (a name, possibly dotted, possibly called); each factor's text goes to
    :func:`check_term`."""

    def __init__(self, tokens: list[Any], text: str, starts: list[int], field: str):
        self.tokens, self.text, self.starts, self.field = tokens, text, starts, field
        self.k, self.depth = 0, 0
        self.terms: list[Term] = []

    def _peek(self) -> str | None:
        return self.tokens[self.k].string if self.k < len(self.tokens) else None

    def _offset(self, pos: tuple[int, int]) -> int:
        return self.starts[pos[0] - 1] + pos[1]

    def formula(self) -> None:
        if self._peek() != "~":
            self.sum()
        if self._peek() == "~":
            self.k += 1
            self.sum()
        if self.k != len(self.tokens):
            raise _Refused(f"has {self.tokens[self.k].string!r} where the formula should end")

    def sum(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _Refused(f"nests more than {MAX_DEPTH} parentheses")
        if self._peek() in ("+", "-"):
            self.k += 1
        self.product()
        while self._peek() in ("+", "-"):
            self.k += 1
            self.product()
        self.depth -= 1

    def product(self) -> None:
        self.interaction()
        while self._peek() in ("*", "/"):
            self.k += 1
            self.interaction()

    def interaction(self) -> None:
        self.power()
        while self._peek() == ":":
            self.k += 1
            self.power()

    def power(self) -> None:
        self.atom()
        if self._peek() == "**":
            self.k += 1
            tok = self.tokens[self.k] if self.k < len(self.tokens) else None
            if tok is None or tok.type != tokenize.NUMBER:
                raise _Refused("raises a term to something other than a number")
            self.k += 1

    def atom(self) -> None:
        if self.k >= len(self.tokens):
            raise _Refused("ends where a term should be")
        tok = self.tokens[self.k]
        if tok.string == "(":
            self.k += 1
            self.sum()
            if self._peek() != ")":
                raise _Refused("has an unclosed parenthesis")
            self.k += 1
        elif tok.type == tokenize.NUMBER:
            self.k += 1
        elif tok.type == tokenize.NAME:
            self.factor()
        else:
            raise _Refused(f"has {tok.string!r} where a term should be")

    def factor(self) -> None:
        first = self.k
        self.k += 1
        while self._peek() == "." and self.k + 1 < len(self.tokens) and \
                self.tokens[self.k + 1].type == tokenize.NAME:
            self.k += 2
        if self._peek() == "(":
            level = 0
            while self.k < len(self.tokens):
                s = self.tokens[self.k].string
                level += (s == "(") - (s == ")")
                self.k += 1
                if level == 0:
                    break
            if level:
                raise _Refused("has an unclosed parenthesis")
        code = self.text[self._offset(self.tokens[first].start):
                         self._offset(self.tokens[self.k - 1].end)]
        self.terms.append(check_term(code, self.field))


# ---------------------------------------------------------------- learned states
def transform_state(function: str, obj: Any) -> dict[str, Any]:
    """The learned state of a fitted stateful transform, field by field (numbers, arrays
    as lists), as :func:`restore_transform` reads it back."""
    spec = STATEFUL[function]
    if type(obj) is not spec.cls:
        raise BoxCoxError(f"the term {function}() holds a {type(obj).__name__}, not the "
                          f"{spec.cls.__name__} it should")
    out: dict[str, Any] = {}
    for key, kind in spec.state.items():
        v = getattr(obj, key)
        if kind == "wide":  # patsy keeps sums in long double: saved as two doubles each
            wide = np.asarray(v, dtype=np.longdouble).reshape(-1)
            hi = wide.astype(np.float64)
            out[key] = {"hi": hi.tolist(), "lo": (wide - hi).astype(np.float64).tolist()}
        elif kind.startswith("array"):
            out[key] = None if v is None else np.asarray(v, dtype=np.float64).tolist()
        elif kind.startswith("floatdict"):
            out[key] = None if v is None else {k: float(x) for k, x in v.items()}
        else:
            out[key] = v.item() if isinstance(v, np.generic) else v
    return out


def _finite(x: int | float) -> bool:
    """A JSON number that float64 holds finitely (an integer literal may be any length)."""
    try:
        return math.isfinite(x)
    except OverflowError:
        return False


def _state_value(kind: str, value: Any, where: str) -> Any:
    if kind.endswith("?") and value is None:
        return None
    kind = kind.rstrip("?")
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                not _finite(value):
            raise BoxCoxError(f"{where} must be a finite number")
        return float(value)
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 2**53:
            raise BoxCoxError(f"{where} must be a non-negative whole number")
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise BoxCoxError(f"{where} must be true or false")
        return value
    if kind == "str":
        if value not in ("cr", "cc"):
            raise BoxCoxError(f"{where} must be 'cr' or 'cc'")
        return value
    if kind == "wide":
        if not isinstance(value, dict) or set(value) != {"hi", "lo"}:
            raise BoxCoxError(f"{where} must be {{'hi': [...], 'lo': [...]}}")
        hi = _state_value("array", value["hi"], where)
        lo = _state_value("array", value["lo"], where)
        if hi.shape != lo.shape or hi.ndim != 1:
            raise BoxCoxError(f"{where} must hold two lists of the same length")
        return hi.astype(np.longdouble) + lo.astype(np.longdouble)
    if kind == "floatdict":
        if not isinstance(value, dict) or len(value) > 20 or not all(
                isinstance(k, str) and _state_value("float", x, where) is not None
                for k, x in value.items()):
            raise BoxCoxError(f"{where} must map at most 20 names to finite numbers")
        return {k: float(x) for k, x in value.items()}
    # an array: a list (or a list of lists) of finite numbers
    if not isinstance(value, list) or len(value) > MAX_STATE:
        raise BoxCoxError(f"{where} must be a list of at most {MAX_STATE} numbers")
    rows = value if value and isinstance(value[0], list) else [value]
    if sum(len(r) if isinstance(r, list) else 1 for r in rows) > MAX_STATE or not all(
            isinstance(r, list) and len(r) == len(rows[0]) and all(
                not isinstance(x, bool) and isinstance(x, (int, float)) and _finite(x)
                for x in r) for r in rows):
        raise BoxCoxError(f"{where} must be a list (or a table) of finite numbers")
    return np.array(value, dtype=np.float64)


def number_table(value: Any, where: str) -> Any:
    """A list (or a list of equal-length lists) of finite numbers as a float array, or the
    package's error naming ``where``."""
    return _state_value("array", value, where)


def restore_transform(function: str, state: Any, where: str) -> Any:
    """A stateful transform of the closed list with its learned ``state`` set field by field
    (every field checked; nothing is imported or called but the class's constructor)."""
    spec = STATEFUL[function]
    if not isinstance(state, dict) or set(state) != set(spec.state):
        raise BoxCoxError(f"{where} must have exactly the fields {sorted(spec.state)}")
    obj = spec.cls.__new__(spec.cls)
    for key, kind in spec.state.items():
        setattr(obj, key, _state_value(kind, state[key], f"{where} field {key!r}"))
    if isinstance(obj, (_BoxCoxTerm, _YeoJohnsonTerm)):
        obj._chunks = []
    return obj


# ---------------------------------------------------------------- evaluation on new data
def _plain(node: ast.expr) -> Any:
    """The value of an option that :func:`_literal` admitted: a number, a string, True /
    False / None, or a list of them (read from the nodes, never evaluated)."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_plain(e) for e in node.elts]
    if isinstance(node, ast.UnaryOp):
        v = _plain(node.operand)
        return -v if isinstance(node.op, ast.USub) else v
    assert isinstance(node, ast.Constant)
    return node.value


class SavedFactor:
    """A factor of a loaded design: evaluates its checked expression with this module's
    interpreter on the new data (patsy's factor protocol: ``name``, ``eval`` and the
    memorisation hooks, which have nothing left to learn)."""

    def __init__(self, term: Term, values: dict[str, Any]):
        self.term = term
        self.code = term.code
        self.values = values  # names saved as plain values (numbers from the caller's scope)
        self.origin = None

    def name(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"SavedFactor({self.code!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SavedFactor) and other.code == self.code

    def __hash__(self) -> int:
        return hash((SavedFactor, self.code))

    def memorize_passes_needed(self, state: Any, eval_env: Any) -> int:
        return 0

    def memorize_chunk(self, state: Any, which_pass: int, data: Any) -> None:
        return None

    def memorize_finish(self, state: Any, which_pass: int) -> None:
        return None

    def eval(self, state: dict[str, Any], data: Any) -> Any:
        objs = iter(state["transforms"].values())
        with np.errstate(all="ignore"):  # NaN / inf rows are the caller's to report
            return _Evaluator(data, self.values, objs).run(self.term.tree)


class _Evaluator:
    def __init__(self, data: Any, values: dict[str, Any], objs: Iterator[Any]):
        self.data, self.values, self.objs = data, values, objs

    def column(self, name: str) -> Any:
        if name in self.values:
            return self.values[name]
        try:
            return self.data[name]
        except (KeyError, IndexError, TypeError):
            cols = list(map(str, getattr(self.data, "columns", getattr(self.data, "keys",
                                                                        list)())))
            raise BoxCoxError(f"the new data lack the column {name!r} that the model uses; "
                              f"they have {cols[:20]}") from None

    def run(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.column(node.id)
        if isinstance(node, ast.BinOp):
            a, b = self.run(node.left), self.run(node.right)
            op = node.op
            return (a + b if isinstance(op, ast.Add) else a - b if isinstance(op, ast.Sub)
                    else a * b if isinstance(op, ast.Mult) else a / b
                    if isinstance(op, ast.Div) else a ** b)
        if isinstance(node, ast.UnaryOp):
            v = self.run(node.operand)
            return -v if isinstance(node.op, ast.USub) else +v
        if isinstance(node, ast.Compare):
            return self.compare(node)
        assert isinstance(node, ast.Call)  # check_term admitted nothing else
        return self.call(node)

    def compare(self, node: ast.Compare) -> Any:
        left = self.run(node.left)
        out = None
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = self.run(right_node)
            part = (left < right if isinstance(op, ast.Lt) else left <= right
                    if isinstance(op, ast.LtE) else left > right if isinstance(op, ast.Gt)
                    else left >= right if isinstance(op, ast.GtE) else left == right
                    if isinstance(op, ast.Eq) else left != right)
            out = part if out is None else out & part
            left = right
        return out

    def call(self, node: ast.Call) -> Any:
        fn = node.func.id if isinstance(node.func, ast.Name) else node.func.attr  # type: ignore
        if fn == "Q":
            return self.column(node.args[0].value)  # type: ignore[attr-defined]
        x = self.run(node.args[0])
        if fn in ("I", "C"):
            return x  # C's levels and contrasts are in the saved design
        if fn in ELEMENTWISE:
            return ELEMENTWISE[fn](x)
        obj = next(self.objs)
        kwargs = {str(k.arg): _plain(k.value) for k in node.keywords}
        return obj.transform(x, *[_plain(a) for a in node.args[1:]], **kwargs)

