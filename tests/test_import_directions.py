"""The import directions of docs/architecture.md ("Parts" and "Rooms"), read from the source
with ``ast``.

- spec imports nothing of the kit outside spec;
- reference imports only spec (and itself);
- conformance imports spec and itself, reference only from the built-in target
  (``conformance/transports/builtin.py`` and ``builtin_wire.py``), and fuzz only lazily
  (inside a function) from ``conformance/cliruns.py``, which builds a run's fuzz campaign;
- fuzz imports spec, itself and conformance; nothing else imports fuzz.

Inside conformance, each module lives in a room (``tools/rooms.py`` is the table) and a room
imports only the rooms below it: core only spec; engine core; report core and engine;
transports core; the front ends at the top of conformance/ anything. A module named as a
string (``importlib.import_module("subagent_tck.conformance.x")``) counts as an import.

Relative imports are resolved to the part they reach. Importing a part by its bare folder name
(``import spec``) is always wrong: the kit installs under ``subagent_tck``.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from collections.abc import Callable, Iterator
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
#: The built-in target's files: the target, and the reference's values as the driver API's.
BUILTIN_FILES = (BUILTIN_TARGET, "conformance/transports/builtin_wire.py")
CLI = "conformance/cliruns.py"  # builds the fuzz campaign of a certify run


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
    package = Path(relpath).parts[:-1]  # the module's folder (an __init__.py's too)
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
        return relpath in BUILTIN_FILES  # the built-in target
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
            found.append(f"{where}: conformance reaches reference only through "
                         f"{' and '.join(BUILTIN_FILES)}")
        else:
            allowed = ", ".join(sorted(ALLOWED[part]))
            found.append(f"{where}: {part} may import only {allowed}")
    return found


def kit_files() -> list[Path]:
    return sorted(p for part in PARTS for p in (ROOT / part).rglob("*.py"))


def problems_in(files: list[Path], check: Callable[[str, str], list[str]]) -> list[str]:
    """What ``check`` (:func:`violations` or :func:`room_violations`) reports on ``files``."""
    return [message for path in files
            for message in check(path.read_text(encoding="utf-8"),
                                 path.relative_to(ROOT).as_posix())]


def test_every_part_of_the_kit_imports_only_in_its_direction() -> None:
    files = kit_files()
    assert any(p.parent.name == "spec" for p in files), "found no source under spec/"
    problems = problems_in(files, violations)
    assert not problems, "import directions broken (docs/architecture.md):\n" + "\n".join(
        problems)


def test_a_relative_import_above_the_kit_is_refused() -> None:
    with pytest.raises(AssertionError, match="climbs above"):
        violations("from .... import x", "spec/catalogue/tf.py")


# --- rooms of conformance/ (docs/architecture.md#rooms) -------------------------------------


def _load_rooms() -> dict[str, str]:
    spec = importlib.util.spec_from_file_location("rooms_table", ROOT / "tools" / "rooms.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(module.ROOMS)


ROOMS = _load_rooms()
ROOM_NAMES = sorted({room for room in ROOMS.values() if room})
TOP = "front ends"  # the modules at the top of conformance/
#: room -> the rooms it may import (docs/architecture.md#rooms)
ROOM_ALLOWED = {
    "core": {"core"},
    "engine": {"core", "engine"},
    "report": {"core", "engine", "report"},
    "transports": {"core", "transports"},
    TOP: {"core", "engine", "report", "transports", TOP},
}
CONFORMANCE = "subagent_tck.conformance"
_NAMED = re.compile(r"subagent_tck\.conformance(?:\.\w+)+")


def room_of(relpath: str) -> str | None:
    """The room of a conformance file (``TOP`` for a front end), None when it has none."""
    parts = Path(relpath).parts
    assert parts[0] == "conformance", relpath
    if len(parts) > 2:
        return parts[1] if parts[1] in ROOM_NAMES else None
    return TOP if ROOMS.get(Path(parts[1]).stem) == "" else None


def room_of_module(dotted: str) -> str:
    """The room that ``dotted`` (``subagent_tck.conformance...``, a module or a name in one)
    lives in: a room by its folder, a front end, or the package itself (a front end)."""
    rest = dotted[len(CONFORMANCE) + 1:].split(".") if dotted != CONFORMANCE else []
    if not rest:
        return TOP
    if rest[0] in ROOM_NAMES:
        return rest[0]
    if (ROOT / "conformance" / f"{rest[0]}.py").exists() and ROOMS.get(rest[0]) != "":
        return f"no room ({rest[0]})"
    return TOP  # a front end, or a name the package exports


def reached(source: str, relpath: str) -> Iterator[tuple[int, str, str]]:
    """(line, dotted name, how it is written) of each part of conformance that ``source``
    imports, by a statement or as a string (``importlib``, a monkeypatch target)."""
    tree = ast.parse(source, filename=relpath)
    dotted_package = ["subagent_tck", *Path(relpath).parts[:-1]]  # the module's folder
    for node in ast.walk(tree):
        names: list[tuple[str, str]] = []
        if isinstance(node, ast.Import):
            names = [(a.name, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(dotted_package[: len(dotted_package) - (node.level - 1)])
            else:
                base = ""
            module = ".".join(p for p in (base, node.module or "") if p)
            shown = "." * node.level + (node.module or "")
            names = [(f"{module}.{a.name}", f"{shown} import {a.name}") for a in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names = [(m.group(0), repr(m.group(0))) for m in _NAMED.finditer(node.value)
                     if m.group(0) == node.value.strip()]
        for name, shown in names:
            if name == CONFORMANCE or name.startswith(CONFORMANCE + "."):
                yield node.lineno, name, shown


def room_violations(source: str, relpath: str) -> list[str]:
    """Each import of a conformance file that goes against the rooms' direction."""
    room = room_of(relpath)
    if room is None:
        return [f"{relpath}: in no room: add a row for it to ROOMS in tools/rooms.py and run "
                "`python tools/rooms.py`"]
    found = []
    for line, name, shown in reached(source, relpath):
        other = room_of_module(name)
        if other not in ROOM_ALLOWED[room]:
            allowed = ", ".join(sorted(ROOM_ALLOWED[room]))
            found.append(f"{relpath}:{line}: {shown} reaches {other}: {room} may import only "
                         f"{allowed} (docs/architecture.md#rooms)")
    return found


def test_every_room_of_conformance_imports_only_the_rooms_below_it() -> None:
    files = sorted((ROOT / "conformance").rglob("*.py"))
    assert any(room_of(p.relative_to(ROOT).as_posix()) == "core" for p in files)
    problems = problems_in(files, room_violations)
    assert not problems, "room directions broken:\n" + "\n".join(problems)


def test_every_row_of_the_room_table_names_a_module_in_its_room() -> None:
    missing = []
    for name, room in ROOMS.items():
        folder = ROOT / "conformance" / room
        if not any((folder / candidate).exists() for candidate in (name, f"{name}.py")):
            missing.append(f"{name} (room {room or TOP}) is not in conformance/{room}")
    assert not missing, "tools/rooms.py names what the tree lacks (run it, or drop the row):\n" \
        + "\n".join(missing)


# --- what each direction reports -----------------------------------------------------------

#: direction -> (file, source, what the message says) of imports against it
AGAINST = {
    "parts": [
        ("spec/judge.py", "from subagent_tck.reference import host", "spec may import only spec"),
        ("spec/catalogue/tf.py", "from ...reference import host", "spec may import only spec"),
        ("spec/x.py", "from .. import conformance", "spec may import only spec"),
        ("spec/x.py", "import subagent_tck.fuzz.model", "nothing imports fuzz"),
        ("reference/host.py", "from ..conformance import check", "reference may import only"),
        ("reference/host.py", "import spec", "never bare"),
        ("reference/host.py", "from spec.depth import ABSENT", "never bare"),
        ("conformance/engine/runner.py", "from ...reference import host", "only through"),
        ("conformance/engine/runner.py", "from subagent_tck import reference", "only through"),
        ("conformance/cliruns.py", "from ..fuzz import model", "nothing imports fuzz"),
        ("conformance/cli.py", "def fuzz():\n    from ..fuzz import model\n", "nothing imports"),
        ("conformance/engine/checks/persona.py", "def f():\n    from ....fuzz import model\n",
         "fuzz"),
        ("fuzz/model.py", "from ..reference.host import Host", "fuzz may import only"),
    ],
    "rooms": [
        ("conformance/core/protocol.py", "from ..engine.runner import Suite", "core may import"),
        ("conformance/core/target.py", "from subagent_tck.conformance import cli",
         "core may import"),
        ("conformance/engine/runner.py", "from ..transports import targets", "engine may"),
        ("conformance/engine/check.py", "from .. import cli", "reaches front ends"),
        ("conformance/engine/checks/persona.py", "from ...report.report_text import x",
         "engine may import only"),
        ("conformance/report/report_text.py",
         "def f():\n    from ..transports.wire import dumps\n", "report may import only"),
        ("conformance/transports/http_server.py", "from ..engine.runner import certify",
         "transports may import only"),
        ("conformance/engine/runner.py",
         "import importlib\nM = importlib.import_module('subagent_tck.conformance.report.x')\n",
         "reaches report"),
        ("conformance/newthing.py", "", "in no room"),
        ("conformance/stray/thing.py", "", "in no room"),
    ],
}
#: direction -> (file, source) of imports along it
ALONG = {
    "parts": [
        ("spec/catalogue/tf.py", "from ..rule import Rule\nfrom . import depth\n"),
        ("spec/__init__.py", "from .catalogue import CATALOGUE\n"),
        ("reference/host.py", "from subagent_tck.spec import RUN_CODE\nimport json\n"),
        ("conformance/transports/builtin.py", "from ...reference.host import Host\n"),
        ("conformance/cliruns.py", "def fuzz():\n    from ..fuzz import model\n"),
        ("conformance/engine/checks/tf.py",
         "from ..check import check\nfrom ....spec import judge\n"),
        ("fuzz/model.py",
         "from ..conformance.core.target import Target\nimport hypothesis\n"),
    ],
    "rooms": [
        ("conformance/cli.py", "from .transports import busypoll\nfrom .report import x\n"),
        ("conformance/__init__.py", "M = 'subagent_tck.conformance.engine.runner'\n"),
        ("conformance/report/report_text.py", "from ..engine.runner import RunFinished\n"),
        ("conformance/engine/checks/tf.py", "from ...core.outcome import Failure\n"),
        ("conformance/transports/wire.py", "from ..core.protocol import X\nfrom . import codec\n"),
        ("conformance/core/check.py", "from subagent_tck.spec import ErrorCode\n"),
    ],
}
#: Each direction's check.
CHECKS = {"parts": violations, "rooms": room_violations}


@pytest.mark.parametrize(("direction", "relpath", "source", "says"),
                         [(d, *case) for d, cases in AGAINST.items() for case in cases])
def test_an_import_against_a_direction_is_reported_with_file_line_and_rule(
    direction: str, relpath: str, source: str, says: str
) -> None:
    found = CHECKS[direction](source, relpath)
    assert len(found) == 1 and found[0].startswith(f"{relpath}:") and says in found[0], found


@pytest.mark.parametrize(("direction", "relpath", "source"),
                         [(d, *case) for d, cases in ALONG.items() for case in cases])
def test_an_import_along_the_directions_is_not_reported(
    direction: str, relpath: str, source: str
) -> None:
    assert CHECKS[direction](source, relpath) == []
