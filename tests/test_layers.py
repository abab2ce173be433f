"""The package's layers, read from its source with ``ast`` (issue 28, scopes 2 and 5).

Every ``import`` and ``from ... import`` of every module of ``boxcoxstat/`` is an edge of the
module graph: top-level imports and those inside functions alike (a lazy import is still a
dependency: it runs the imported module, and its own imports, on first call). Imports in the
body of an ``if TYPE_CHECKING:`` block are left out: they never run. Importing
``boxcoxstat.a.b`` also runs the package ``boxcoxstat.a`` (its ``__init__``), so that is an
edge too; a module's own parent packages are not (Python has already entered them). A string
``"<module>:<name>"`` naming a module of the package (the estimator table's routes, which
``api.py`` imports by name when a row is used) is an edge as well.

The checks:

* no import cycle between modules (the failure prints each cycle with its import lines);
* the engine and everything under it -- ``core/``, ``base/`` and the foundation
  (``_validation/``, ``_special.py``, ``families.py``, ``exceptions.py``, ``datasets.py``) --
  import no model family;
* the README's rule, read from its architecture table: "a module imports from its own
  subpackage, core/, base/ and the foundation, or from a family above it in this table"
  (each row's subpackage is a layer, in the table's order; a top-level module is the layer of
  its own row; ``boxcoxstat/__init__.py``, which re-exports, is above every layer);
* tests mirror the tree: each module ``boxcoxstat/<dir>/<name>.py`` has
  ``tests/<dir>/test_<name>.py`` (a private module's leading underscore dropped) or a line
  ``<module>: tested in <test files>`` in ``tests/README.md`` whose test files exist.

The checkers are plain functions tested on small synthetic packages first, so a failure of
the package checks is the package's, not the checker's.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "boxcoxstat"

#: The model families (one subpackage each); what the engine must never import.
FAMILIES = ("univariate", "regression", "mixed", "joint", "robust", "pca", "linearity",
            "timeseries", "graphics", "federated", "classify", "sklearn")
#: The engine, the shared base and the foundation, as dotted prefixes under the package.
ENGINE = ("core", "base", "_validation", "_special", "families", "exceptions", "datasets")

#: A function named by text, ``"<module under the package>:<name>"``, imported when it is
#: called (the estimator table's routes in ``api.py``): an import too.
TEXT_IMPORT = re.compile(r"([A-Za-z_][\w.]*):([A-Za-z_]\w*)")
Graph = dict[str, dict[str, int]]  # module -> {imported module: line of the first import}


# ------------------------------------------------------------------------------ reading
def modules_of(package: Path) -> dict[str, Path]:
    """Dotted name -> file of every module under ``package`` (a package is its
    ``__init__.py``)."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """Ids of the nodes in the body of an ``if TYPE_CHECKING:`` (or
    ``if typing.TYPE_CHECKING:``) block."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for stmt in node.body:
                skip.update(id(n) for n in ast.walk(stmt))
    return skip


def import_graph(package: Path) -> Graph:
    """The module graph of ``package`` (see the module docstring for what is an edge)."""
    mods = modules_of(package)
    top = package.name

    def existing(name: str) -> str | None:  # the module itself, or the package holding it
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: Graph = {}
    for name, path in mods.items():
        here = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        skip = _type_checking_nodes(tree)
        edges: dict[str, int] = {}
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names if a.name.split(".")[0] == top]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here.split(".")
                    base = base[: len(base) - node.level + 1]
                    stem = ".".join(base + ([node.module] if node.module else []))
                elif node.module and node.module.split(".")[0] == top:
                    stem = node.module
                else:
                    continue
                targets = [f"{stem}.{a.name}" if f"{stem}.{a.name}" in mods else stem
                           for a in node.names]
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                named = TEXT_IMPORT.fullmatch(node.value)  # "univariate.model:fit_request"
                if named and f"{top}.{named.group(1)}" in mods:
                    targets = [f"{top}.{named.group(1)}"]
            for target in targets:
                found = existing(target)
                while found:  # the module and every package it runs on the way
                    if found != name and not name.startswith(found + "."):
                        edges.setdefault(found, node.lineno)
                    found = found.rpartition(".")[0]
        graph[name] = edges
    return graph


# ------------------------------------------------------------------------------ cycles
def import_cycles(graph: Mapping[str, Mapping[str, int]]) -> list[list[str]]:
    """One cycle (a list of modules, the first repeated at the end) per strongly connected
    component of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    comp.append(m)
                    if m == node:
                        break
                if len(comp) > 1:
                    components.append(comp)
    cycles = []
    for comp in components:  # the shortest way back to the component's first module
        members, start = set(comp), min(comp)
        paths = {start: [start]}
        frontier = [start]
        cycle = None
        while frontier and cycle is None:
            nxt = []
            for m in frontier:
                for t in sorted(graph[m]):
                    if t == start:
                        cycle = paths[m] + [start]
                        break
                    if t in members and t not in paths:
                        paths[t] = paths[m] + [t]
                        nxt.append(t)
                if cycle:
                    break
            frontier = nxt
        assert cycle is not None
        cycles.append(cycle)
    return sorted(cycles)


def describe_cycle(cycle: list[str], graph: Mapping[str, Mapping[str, int]]) -> str:
    steps = [f"{a} (line {graph[a][b]})" for a, b in zip(cycle, cycle[1:], strict=False)]
    return " -> ".join([*steps, cycle[-1]])


# ------------------------------------------------------------------------------ layers
def family_of(module: str) -> str | None:
    """The model family a dotted module name belongs to, if any."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in FAMILIES else None


def _named(edges: Mapping[str, int]) -> list[tuple[str, int]]:
    """The edges without a package entered only on the way to a module inside it."""
    return sorted((t, line) for t, line in edges.items()
                  if not any(u.startswith(t + ".") for u in edges))


def engine_imports_of_families(graph: Mapping[str, Mapping[str, int]]) -> list[str]:
    """``core/``, ``base/`` or the foundation importing a model family."""
    bad = []
    for module, edges in graph.items():
        parts = module.split(".")
        if len(parts) > 1 and parts[1] in ENGINE:
            bad += [f"{module} imports {t} (line {line})" for t, line in _named(edges)
                    if family_of(t)]
    return bad


def table_layers(readme: str) -> dict[str, int]:
    """The README architecture table as layers: ``"core"`` / ``"univariate"`` ... (a
    subpackage) or a top-level module's dotted name (``"api"``, ``"families"``) -> its
    layer, 0 for the first row group. Consecutive rows under one subpackage (the cell left
    blank) are one layer; the foundation rows are one layer; each "(top level)" row is its
    own layer."""
    layers: dict[str, int] = {}
    group = ""
    level = -1
    for line in readme.splitlines():
        if not (line.startswith("| ") and ".py`" in line):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        files = re.findall(r"`([\w/]+)\.py`", cells[1])
        if cells[0]:
            group = cells[0].strip("`").rstrip("/")
            if group != "(top level)":
                level += 1
        if group in ("foundation", "(top level)"):
            if group == "(top level)":
                level += 1
            for f in files:
                top = f.split("/")[0]  # _validation/columns -> the _validation package
                layers.setdefault(top, level)
        else:
            layers.setdefault(group, level)
    return layers


def layer_of(module: str, layers: Mapping[str, int]) -> tuple[str, int] | None:
    """(The unit of ``module`` -- its subpackage or top-level module --, that unit's layer);
    ``None`` for the package's ``__init__`` (the re-exports, above every layer) and for a
    unit the table does not name."""
    parts = module.split(".")
    if len(parts) == 1:
        return None
    unit = parts[1]
    return (unit, layers[unit]) if unit in layers else None


def table_violations(graph: Mapping[str, Mapping[str, int]],
                     layers: Mapping[str, int]) -> list[str]:
    """Imports that break the README's rule: into a unit below (a higher layer number than)
    the importer's. Units of one layer (the foundation's modules, the modules of one row)
    may import each other; their cycles are the cycle check's."""
    bad = []
    for module, edges in sorted(graph.items()):
        mine = layer_of(module, layers)
        if mine is None:
            continue
        for target, line in _named(edges):
            theirs = layer_of(target, layers)
            if theirs is None:
                if target.count("."):  # a module the table does not name: checked elsewhere
                    bad.append(f"{module} imports {target}, whose unit is not in the table")
                continue
            if theirs[1] > mine[1]:  # one layer: its subpackage, a row, the foundation
                bad.append(f"{module} (layer {mine[1]}, {mine[0]}) imports {target} (layer "
                           f"{theirs[1]}, {theirs[0]}) at line {line}")
    return bad


# ------------------------------------------------------------------------------ tests mirror
def mirrored_test(module: Path, package: Path, tests: Path) -> Path:
    """``boxcoxstat/<dir>/<name>.py`` -> ``tests/<dir>/test_<name>.py`` (leading underscores
    of the name dropped: ``robust/_rfmin.py`` -> ``tests/robust/test_rfmin.py``,
    ``__main__.py`` -> ``tests/test_main.py``)."""
    rel = module.relative_to(package)
    return tests.joinpath(*rel.parts[:-1], f"test_{rel.stem.strip('_')}.py")


def readme_lines(text: str) -> dict[str, list[str]]:
    """``<module>: tested in <test files>`` lines of tests/README.md (the module as
    ``boxcoxstat/...py``, the test files as ``tests/...py``, comma separated)."""
    out: dict[str, list[str]] = {}
    for m in re.finditer(r"^[-*]?\s*`?(boxcoxstat/[\w/]+\.py)`?: tested in (.+)$", text,
                         flags=re.M):
        out[m.group(1)] = re.findall(r"tests/[\w/]+\.py", m.group(2))
    return out


def untested_modules(package: Path, tests: Path, readme: str) -> list[str]:
    """Modules with neither a mirrored test module nor a tests/README.md line; README lines
    naming test files that do not exist, or modules that do not exist."""
    lines = readme_lines(readme)
    root = tests.parent
    bad = []
    modules = sorted(p for p in package.rglob("*.py") if p.name != "__init__.py")
    for path in modules:
        rel = path.relative_to(package.parent).as_posix()
        if mirrored_test(path, package, tests).exists():
            continue
        if rel not in lines:
            bad.append(f"{rel}: no {mirrored_test(path, package, tests).relative_to(root)} "
                       "and no line in tests/README.md")
        elif not lines[rel]:
            bad.append(f"{rel}: its tests/README.md line names no test file")
    named = {p.relative_to(package.parent).as_posix() for p in modules}
    for rel, files in lines.items():
        if rel not in named:
            bad.append(f"tests/README.md names {rel}, which does not exist")
        bad += [f"tests/README.md: {rel} is tested in {f}, which does not exist"
                for f in files if not (root / f).exists()]
    return bad


# ------------------------------------------------------------------------------ the checker
def _package(tmp_path: Path, files: Mapping[str, str]) -> Path:
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path / "boxcoxstat"


def test_checker_finds_a_cycle_through_a_lazy_import(tmp_path):
    """A cycle closed by an import inside a function is found and printed with its lines;
    an import under ``if TYPE_CHECKING:`` is not an edge; ``import boxcoxstat.x.y``,
    ``from .. import x`` and a route's text ``"x.y:f"`` resolve to the module."""
    pkg = _package(tmp_path, {
        "boxcoxstat/__init__.py": "from .fam import model\n",
        "boxcoxstat/fam/__init__.py": "",
        "boxcoxstat/fam/model.py": "from .results import R\n",
        "boxcoxstat/fam/results.py": "class R:\n    def f(self):\n"
                                     "        from .model import g\n",
        "boxcoxstat/fam/plotting.py": "from typing import TYPE_CHECKING\n"
                                      "if TYPE_CHECKING:\n    from .results import R\n",
        "boxcoxstat/other.py": "import boxcoxstat.fam.plotting\nfrom . import families\n"
                               "ROUTES = ('fam.results:R', 'a:b', 'x:y:z')\n",
        "boxcoxstat/families.py": "",
    })
    graph = import_graph(pkg)
    assert graph["boxcoxstat.fam.results"] == {"boxcoxstat.fam.model": 3}
    assert graph["boxcoxstat.fam.plotting"] == {}
    assert set(graph["boxcoxstat.other"]) == {"boxcoxstat.fam", "boxcoxstat.fam.plotting",
                                              "boxcoxstat.families", "boxcoxstat.fam.results"}
    cycles = import_cycles(graph)
    assert cycles == [["boxcoxstat.fam.model", "boxcoxstat.fam.results",
                       "boxcoxstat.fam.model"]]
    assert describe_cycle(cycles[0], graph) == (
        "boxcoxstat.fam.model (line 1) -> boxcoxstat.fam.results (line 3) -> "
        "boxcoxstat.fam.model")


def test_checker_finds_the_engine_importing_a_family_and_a_table_violation(tmp_path):
    """core importing a family, and a family importing one below it in the table (or a
    top-level module below it), are reported; importing one above it, or its own
    subpackage, is not (the top-level door imports families above it)."""
    pkg = _package(tmp_path, {
        "boxcoxstat/__init__.py": "",
        "boxcoxstat/families.py": "",
        "boxcoxstat/core/__init__.py": "",
        "boxcoxstat/core/solve.py": "def f():\n    from ..robust.model import fit\n",
        "boxcoxstat/univariate/__init__.py": "",
        "boxcoxstat/univariate/model.py": "from .. import families\nfrom ..core import solve\n",
        "boxcoxstat/robust/__init__.py": "",
        "boxcoxstat/robust/model.py": "from ..univariate.model import fit\n",
        "boxcoxstat/robust/results.py": "from .model import fit\n",
        "boxcoxstat/pca/__init__.py": "",
        "boxcoxstat/pca/model.py": "from ..robust.model import fit\n",
        "boxcoxstat/pca/results.py": "def plot():\n    from ..api import fit\n",
        "boxcoxstat/api.py": "from .robust.model import fit\nfrom .pca import model\n",
    })
    graph = import_graph(pkg)
    assert engine_imports_of_families(graph) == [
        "boxcoxstat.core.solve imports boxcoxstat.robust.model (line 2)"]
    readme = "\n".join([
        "| subpackage | module | responsibility |", "|---|---|---|",
        "| foundation | `families.py` | math |", "| `core/` | `solve.py` | solver |",
        "| `univariate/` | `model.py` | fits |", "| `pca/` | `model.py` | PCA |",
        "| `robust/` | `model.py`, `results.py` | robust |",
        "| (top level) | `api.py` | the door |"])
    layers = table_layers(readme)
    assert layers == {"families": 0, "core": 1, "univariate": 2, "pca": 3, "robust": 4,
                      "api": 5}
    bad = table_violations(graph, layers)
    assert bad == [
        "boxcoxstat.core.solve (layer 1, core) imports boxcoxstat.robust.model (layer 4, "
        "robust) at line 2",
        "boxcoxstat.pca.model (layer 3, pca) imports boxcoxstat.robust.model (layer 4, "
        "robust) at line 1",
        "boxcoxstat.pca.results (layer 3, pca) imports boxcoxstat.api (layer 5, api) at "
        "line 2"]


def test_checker_of_mirrored_tests(tmp_path):
    pkg = _package(tmp_path, {
        "boxcoxstat/__init__.py": "", "boxcoxstat/core/solve.py": "",
        "boxcoxstat/core/short.py": "", "boxcoxstat/robust/_rfmin.py": "",
        "boxcoxstat/cli.py": "", "boxcoxstat/api.py": "",
        "tests/core/test_solve.py": "", "tests/robust/test_rfmin.py": "",
        "tests/test_cli.py": "",
    })
    tests = tmp_path / "tests"
    assert untested_modules(pkg, tests, "") == [
        "boxcoxstat/api.py: no tests/test_api.py and no line in tests/README.md",
        "boxcoxstat/core/short.py: no tests/core/test_short.py and no line in "
        "tests/README.md"]
    readme = ("- `boxcoxstat/core/short.py`: tested in tests/core/test_solve.py\n"
              "- `boxcoxstat/api.py`: tested in tests/test_fit.py\n"
              "- `boxcoxstat/gone.py`: tested in tests/test_cli.py\n")
    assert untested_modules(pkg, tests, readme) == [
        "tests/README.md: boxcoxstat/api.py is tested in tests/test_fit.py, which does not "
        "exist",
        "tests/README.md names boxcoxstat/gone.py, which does not exist"]


# ------------------------------------------------------------------------------ the package
@pytest.fixture(scope="module")
def graph() -> Graph:
    return import_graph(PACKAGE)


def _fail(what: str, lines: Iterable[str]) -> str:
    return what + ":\n  " + "\n  ".join(lines)


def test_no_import_cycles(graph):
    cycles = import_cycles(graph)
    assert not cycles, _fail("import cycles (move the shared piece to the module that owns "
                             "it)", [describe_cycle(c, graph) for c in cycles])


def test_core_base_and_foundation_import_no_family(graph):
    bad = engine_imports_of_families(graph)
    assert not bad, _fail("the engine imports a model family", bad)


def test_imports_follow_the_readme_table(graph):
    """The README's rule: a module imports from its own subpackage, core/, base/ and the
    foundation, or from a family above it in the architecture table."""
    layers = table_layers((REPO / "README.md").read_text(encoding="utf-8"))
    assert layers["families"] == layers["_validation"] == 0
    assert layers["core"] < layers["base"] < min(layers[f] for f in FAMILIES)
    bad = table_violations(graph, layers)
    assert not bad, _fail("imports against the README's table (move the row, or the "
                          "piece imported, to where it belongs)", bad)


def test_every_module_has_a_mirrored_test_or_a_readme_line():
    bad = untested_modules(PACKAGE, REPO / "tests",
                           (REPO / "tests" / "README.md").read_text(encoding="utf-8"))
    assert not bad, _fail("modules without tests", bad)
