"""Every module of the kit, its reference and JavaScript implementations and its adapters stays
under 500 lines (docs/architecture.md: one reason to change per module); a module that grows
past it is split along its concerns, not trimmed of its comments."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 500
#: The rooms whose modules are held to the limit (tests and generated docs are not modules).
ROOMS = ("spec", "reference", "conformance", "fuzz", "adapters", "implementations/javascript/src",
         "entry", "tools")


def modules(root: Path = ROOT, rooms: Iterable[str] = ROOMS) -> list[Path]:
    found: list[Path] = []
    for room in rooms:
        for pattern in ("*.py", "*.mjs"):
            found += [p for p in (root / room).rglob(pattern)
                      if "node_modules" not in p.parts and "test" not in p.parts]
    return sorted(found)


def too_long(paths: Iterable[Path], root: Path = ROOT, limit: int = LIMIT) -> dict[str, int]:
    """The modules of ``paths`` with ``limit`` lines or more (paths from ``root``), with their
    line counts."""
    counts = {p: len(p.read_text(encoding="utf-8").splitlines()) for p in paths}
    return {p.relative_to(root).as_posix(): n for p, n in counts.items() if n >= limit}


def test_every_module_stays_under_500_lines() -> None:
    found = modules()
    assert len(found) > 100, "the rooms moved: update ROOMS"
    long = too_long(found)
    assert not long, f"split these along their concerns (docs/architecture.md): {long}"


def test_a_module_of_500_lines_is_named(tmp_path: Path) -> None:
    room = tmp_path / "spec"
    room.mkdir()
    (room / "small.py").write_text("x = 1\n" * 499, encoding="utf-8")
    (room / "large.mjs").write_text("let x;\n" * 500, encoding="utf-8")
    assert too_long(modules(tmp_path, ["spec"]), tmp_path) == {"spec/large.mjs": 500}
