"""The import directions of DESIGN.md ("The four parts"), read from the source with ``ast``.

- spec imports nothing of the kit outside spec;
- reference imports only spec (and itself);
- conformance imports spec and itself, reference only from ``conformance/transports/builtin.py`` (which
  offers the built-in target), and fuzz only lazily (inside a function) from
  ``conformance/cli.py``;
- fuzz imports spec, itself and conformance; nothing else imports fuzz.

Relative imports are resolved to the part they reach. Importing a part by its bare folder name
(``import spec``) is always wrong: the kit installs under ``subagent_tck``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
PARTS = ("spec", "reference", "conformance", "fuzz")
ALLOWED = {
    "spec": {"spec"},
    "reference": {"spec", "reference"},
    "conformance": {"spec", "conformance"},
    "fuzz": {"spec", "fuzz", "conformance"},
}
BUILTIN_TARGET = "conformance/transports/builtin.py"
CLI = "conformance/cli.py"


@dataclass(frozen=True)
class Import:
    line: int
    part: str  # the part of the kit the import reaches, or "" for outside the kit
    text: str  # how the import names it, for the message
    lazy: bool  # inside a function body
    bare: bool = False  # a part imported by its folder name instead of through subagent_tck


def _part_of(dotted: str) -> str:
    head, _, rest = dotted.partition(".")
    if head != "subagent_tck":
        return ""
    return rest.split(".")[0] if rest.split(".")[0] in PARTS else ""


def imports_of(source: str, relpath: str) -> Iterator[Import]:
    """Every import of the kit in ``source``, the module at ``relpath`` (like spec/judge.py)."""
    tree = ast.parse(source, filename=relpath)
    package = Path(relpath).with_suffix("").parts[:-1]
    if Path(relpath).name == "__init__.py":
        package = Path(relpath).parts[:-1]
    lazy_lines = {
        inner.lineno
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for inner in ast.walk(node)
        if isinstance(inner, (ast.Import, ast.ImportFrom))
    }
    for node in ast.walk(tree):
        lazy = getattr(node, "lineno", 0) in lazy_lines
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PARTS:
                    yield Import(node.lineno, alias.name.split(".")[0], alias.name, lazy, True)
                elif _part_of(alias.name):
                    yield Import(node.lineno, _part_of(alias.name), alias.name, lazy)
        elif isinstance(node, ast.ImportFrom):
            yield from _from_import(node, package, lazy)


def _from_import(node: ast.ImportFrom, package: tuple[str, ...], lazy: bool) -> Iterator[Import]:
    module = node.module or ""
    shown = "." * node.level + module
    if node.level == 0:
        if module.split(".")[0] in PARTS:
            yield Import(node.lineno, module.split(".")[0], module, lazy, True)
        elif module == "subagent_tck":
            for alias in node.names:
                if alias.name in PARTS:
                    yield Import(node.lineno, alias.name, f"subagent_tck.{alias.name}", lazy)
        elif _part_of(module):
            yield Import(node.lineno, _part_of(module), module, lazy)
        return
    up = node.level - 1
    if up > len(package):
        raise AssertionError(f"line {node.lineno}: {shown} climbs above subagent_tck")
    base = package[: len(package) - up]
    if base:
        yield Import(node.lineno, base[0], shown, lazy)
        return
    # Relative to subagent_tck itself: the module (or each imported name) picks the part.
    heads = [module.split(".")[0]] if module else [alias.name for alias in node.names]
    for head in heads:
        yield Import(node.lineno, head if head in PARTS else "", shown, lazy)


def _allowed(imp: Import, part: str, relpath: str) -> bool:
    if not imp.part or imp.part in ALLOWED[part]:
        return True
    if imp.part == "reference":
        return relpath == BUILTIN_TARGET  # the built-in target
    return imp.part == "fuzz" and relpath == CLI and imp.lazy  # `subagent-tck fuzz`


def violations(source: str, relpath: str) -> list[str]:
    """Each import of ``source`` (at ``relpath``) that breaks a direction, as a message."""
    part = Path(relpath).parts[0]
    found = []
    for imp in imports_of(source, relpath):
        where = f"{relpath}:{imp.line}: import of {imp.text}"
        if imp.bare:
            found.append(f"{where}: import the kit as subagent_tck.{imp.part}, never bare")
        elif _allowed(imp, part, relpath):
            continue
        elif imp.part == "fuzz":
            found.append(
                f"{where}: nothing imports fuzz (only {CLI} may, lazily inside a function)"
            )
        elif imp.part == "reference" and part == "conformance":
            found.append(f"{where}: conformance reaches reference only through {BUILTIN_TARGET}")
        else:
            allowed = ", ".join(sorted(ALLOWED[part]))
            found.append(f"{where}: {part} may import only {allowed}")
    return found


def kit_files() -> list[Path]:
    return sorted(p for part in PARTS for p in (ROOT / part).rglob("*.py"))


def test_every_part_of_the_kit_imports_only_in_its_direction() -> None:
    files = kit_files()
    assert any(p.parent.name == "spec" for p in files), "found no source under spec/"
    problems = [
        message
        for path in files
        for message in violations(
            path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix()
        )
    ]
    assert not problems, "import directions broken (DESIGN.md):\n" + "\n".join(problems)


@pytest.mark.parametrize(
    ("relpath", "source", "says"),
    [
        ("spec/judge.py", "from subagent_tck.reference import host", "spec may import only spec"),
        ("spec/catalogue/tf.py", "from ...reference import host", "spec may import only spec"),
        ("spec/x.py", "from .. import conformance", "spec may import only spec"),
        ("spec/x.py", "import subagent_tck.fuzz.model", "nothing imports fuzz"),
        ("reference/host.py", "from ..conformance import check", "reference may import only"),
        ("reference/host.py", "import spec", "never bare"),
        ("reference/host.py", "from spec.depth import ABSENT", "never bare"),
        ("conformance/engine/runner.py", "from ..reference import host", "only through"),
        ("conformance/engine/runner.py", "from subagent_tck import reference", "only through"),
        ("conformance/cli.py", "from ..fuzz import model", "nothing imports fuzz"),
        ("conformance/engine/checks/persona.py", "def f():\n    from ...fuzz import model\n", "fuzz"),
        ("fuzz/model.py", "from ..reference.host import Host", "fuzz may import only"),
    ],
)
def test_a_wrong_import_is_reported_with_file_line_and_rule(
    relpath: str, source: str, says: str
) -> None:
    found = violations(source, relpath)
    assert len(found) == 1 and found[0].startswith(f"{relpath}:") and says in found[0], found


@pytest.mark.parametrize(
    ("relpath", "source"),
    [
        ("spec/catalogue/tf.py", "from ..rule import Rule\nfrom . import depth\n"),
        ("spec/__init__.py", "from .catalogue import CATALOGUE\n"),
        ("reference/host.py", "from subagent_tck.spec import RUN_CODE\nimport json\n"),
        ("conformance/transports/builtin.py", "from ..reference.host import Host\n"),
        ("conformance/cli.py", "def fuzz():\n    from ..fuzz import model\n"),
        ("conformance/engine/checks/tf.py", "from ..check import check\nfrom ...spec import judge\n"),
        ("fuzz/model.py", "from ..conformance.target import Target\nimport hypothesis\n"),
    ],
)
def test_an_allowed_import_is_not_reported(relpath: str, source: str) -> None:
    assert violations(source, relpath) == []


def test_a_relative_import_above_the_kit_is_refused() -> None:
    with pytest.raises(AssertionError, match="climbs above"):
        violations("from .... import x", "spec/catalogue/tf.py")
