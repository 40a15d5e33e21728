"""No circle of imports anywhere in the kit's code (docs/architecture.md#rooms): each module's
dependencies run one way, in Python and in JavaScript.

A circle is a set of modules that import each other, directly or through others (a strongly
connected component of the import graph with more than one module, or a module importing
itself). Every import counts: at the top of a module, inside a function (a late import that
hides a circle at run time is the circle) and under ``if TYPE_CHECKING:`` (a reader still cannot
tell which module is the ground). Python: every module of spec/, reference/, conformance/ and
fuzz/, imports resolved to the kit's module names (relative ones too); importing a package's
``__init__`` by importing one of its modules is not an edge. JavaScript: every ``.mjs``/``.js``
file of implementations/ and adapters/ outside node_modules, its static ``import``/``export
... from`` and dynamic ``import()`` of relative specifiers.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).parents[1]
PYTHON_PARTS = ("spec", "reference", "conformance", "fuzz")
JS_ROOTS = ("implementations", "adapters")
PACKAGE = "subagent_tck"

Graph = Mapping[str, frozenset[str]]


# --- the import graphs ---------------------------------------------------------------------


def python_modules(root: Path, parts: Iterable[str], package: str = PACKAGE) -> dict[str, Path]:
    """Module name -> file, for every ``.py`` under ``root/part`` (the part installs as
    ``package.part``)."""
    found: dict[str, Path] = {}
    for part in parts:
        for path in sorted((root / part).rglob("*.py")):
            names = list(path.relative_to(root).with_suffix("").parts)
            if names[-1] == "__init__":
                names.pop()
            found[".".join([package, *names])] = path
    return found


def _imported(module: str, path: Path, node: ast.ImportFrom, modules: Mapping[str, Path]
              ) -> set[str]:
    if node.level:
        package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        base = ".".join(package[: len(package) - node.level + 1] + (
            [node.module] if node.module else []))
    else:
        base = node.module or ""
    out = set()
    for alias in node.names:
        submodule = f"{base}.{alias.name}"
        if submodule in modules:
            out.add(submodule)  # from package import module
        elif base in modules:
            out.add(base)  # from module import name
    return out


def python_graph(root: Path = ROOT, parts: Iterable[str] = PYTHON_PARTS,
                 package: str = PACKAGE) -> Graph:
    modules = python_modules(root, parts, package)
    graph: dict[str, frozenset[str]] = {}
    for module, path in modules.items():
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.ImportFrom):
                edges |= _imported(module, path, node, modules)
            elif isinstance(node, ast.Import):
                edges |= {alias.name for alias in node.names if alias.name in modules}
        graph[module] = frozenset(edges)
    return graph


#: Static imports and re-exports with a quoted specifier, and dynamic ``import('...')``.
_JS_IMPORT = re.compile(
    r"""(?:^|[;\n}])\s*(?:import\s+(?:[\w$*{}\s,]+?\s+from\s+)?|export\s+(?:\*(?:\s+as\s+[\w$]+)?|"""
    r"""\{[^}]*\})\s+from\s+)['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)""",
    re.M,
)


def js_files(root: Path, roots: Iterable[str] = JS_ROOTS) -> list[Path]:
    return sorted(
        path for top in roots for suffix in ("*.mjs", "*.js")
        for path in (root / top).rglob(suffix) if "node_modules" not in path.parts
    )


def js_graph(root: Path = ROOT, roots: Iterable[str] = JS_ROOTS) -> Graph:
    files = js_files(root, roots)
    known = {os.path.normpath(p) for p in files}
    graph: dict[str, frozenset[str]] = {}
    for path in files:
        edges = set()
        for match in _JS_IMPORT.finditer(path.read_text(encoding="utf-8")):
            spec = match.group(1) or match.group(2)
            if spec.startswith("."):
                target = os.path.normpath(path.parent / spec)
                if target in known:
                    edges.add(os.path.relpath(target, root))
        graph[os.path.relpath(path, root)] = frozenset(edges)
    return graph


def circles(graph: Graph) -> list[list[str]]:
    """Every circle of ``graph``: its strongly connected components of more than one module,
    and each module that imports itself (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            step = next((w for w in edges if w in graph), None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph[node]:
                    found.append(sorted(component))
    return found


def _explain(graph: Graph, found: list[list[str]]) -> str:
    lines = []
    for component in found:
        members = set(component)
        edges = [f"    {a} -> {b}" for a in component for b in sorted(graph[a]) if b in members]
        lines += [f"  a circle of {len(component)}:", *edges]
    return "\n".join(lines)


# --- the kit has none ----------------------------------------------------------------------


def test_no_python_module_of_the_kit_imports_itself_through_others() -> None:
    graph = python_graph()
    assert len(graph) > 100, f"found only {len(graph)} modules: is the layout the kit's?"
    found = circles(graph)
    assert not found, "import circles (docs/architecture.md#rooms):\n" + _explain(graph, found)


def test_no_javascript_module_imports_itself_through_others() -> None:
    graph = js_graph()
    assert any(name.startswith("adapters/dsh/src/") for name in graph), sorted(graph)[:5]
    assert any(graph.values()), "no relative import was read: is the pattern still right?"
    found = circles(graph)
    assert not found, "import circles in JavaScript:\n" + _explain(graph, found)


# --- the detector finds what it must -------------------------------------------------------


def test_a_python_circle_is_found_through_a_late_import_and_a_type_checking_one(
        tmp_path: Path) -> None:
    part = tmp_path / "part"
    (part / "inner").mkdir(parents=True)
    (part / "__init__.py").write_text("")
    (part / "inner" / "__init__.py").write_text("")
    (part / "a.py").write_text("from .inner import b\n")
    (part / "inner" / "b.py").write_text("def late():\n    from ..c import x\n")
    (part / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.part import a\n")
    (part / "d.py").write_text("from . import a\n")  # depends on the circle, not in it
    graph = python_graph(tmp_path, ("part",), "pkg")
    assert circles(graph) == [["pkg.part.a", "pkg.part.c", "pkg.part.inner.b"]]
    (part / "c.py").write_text("x = 1\n")
    assert circles(python_graph(tmp_path, ("part",), "pkg")) == []


def test_a_javascript_circle_is_found_through_reexports_and_dynamic_imports(
        tmp_path: Path) -> None:
    src = tmp_path / "adapters" / "x" / "src"
    (src / "deep").mkdir(parents=True)
    (src / "a.mjs").write_text("import { b } from './deep/b.mjs';\nexport const a = 1;\n")
    (src / "deep" / "b.mjs").write_text("export { c } from '../c.mjs';\n")
    (src / "c.mjs").write_text("export async function c() { return import('./a.mjs'); }\n")
    (src / "d.mjs").write_text("import * as a from './a.mjs';\nimport 'node:fs';\n")
    nm = tmp_path / "adapters" / "x" / "node_modules" / "p"
    nm.mkdir(parents=True)
    (nm / "i.js").write_text("import './i.js';\n")  # node_modules is not the kit's
    graph = js_graph(tmp_path, ("adapters",))
    assert circles(graph) == [["adapters/x/src/a.mjs", "adapters/x/src/c.mjs",
                               "adapters/x/src/deep/b.mjs"]]
    (src / "c.mjs").write_text("export const c = 3;\n")
    assert circles(js_graph(tmp_path, ("adapters",))) == []


def test_a_module_importing_itself_is_a_circle() -> None:
    assert circles({"m": frozenset({"m"}), "n": frozenset({"m"})}) == [["m"]]
